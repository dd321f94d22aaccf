// The cost curves filter_budget.cc allocates on: per grid point of bits/key,
// each filter kind's FPR, and per level the least cost per check over the
// kinds that level may have, with the lower convex hull of those points.

#ifndef LSMBLOOM_SRC_LOOKUP_FILTER_MODEL_H_
#define LSMBLOOM_SRC_LOOKUP_FILTER_MODEL_H_

#include <vector>

#include "lsmbloom/lookup/filter_budget.h"

namespace lsmbloom {
namespace internal {

// Bits/key come in hundredths: grid point j is j/100 bits/key. Point 0 is
// "no filter"; points below a kind's minimum are not that kind's.
constexpr int kGridPerBit = 100;
constexpr int kMinBloomPoint = 10;    // 0.1 bits/key, the Bloom builder's minimum.
constexpr int kMinRibbonPoint = 110;  // 1.1 bits/key, the Ribbon builder's.
constexpr int kMaxPoint = 3000;       // 30 bits/key.

// Keys per filter the Ribbon curve is computed for.
constexpr uint64_t kRibbonModelKeys = 1000000;

inline double BitsAt(int point) { return static_cast<double>(point) / kGridPerBit; }

// Both kinds' FPR over the grid (1 where a kind has no filter), tabulated
// once per process.
struct FprCurves {
  double bloom_fpr[kMaxPoint + 1];
  int bloom_probes[kMaxPoint + 1];
  double ribbon_fpr[kMaxPoint + 1];
};
const FprCurves& TheCurves();

// What one level may choose from, in units of false-positive reads per
// check: cost[p] = FPR, plus for kLookupTime the probe's time over a read's.
struct LevelModel {
  double cost[kMaxPoint + 1];
  FilterKind kind[kMaxPoint + 1];
  int min_point = kMinBloomPoint;  // The least usable point besides 0.
  std::vector<int> hull;           // Grid points, bits ascending, slopes ascending.
};

// The model of a level that may have Bloom and/or Ribbon filters (at least
// one), with probe costs in reads (0 for kFalsePositiveReads).
LevelModel MakeLevelModel(bool bloom, bool ribbon, double bloom_probe_reads,
                          double ribbon_probe_reads);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_FILTER_MODEL_H_
