// OptimalBlockedProbes reads a table; these tests hold the table to the
// blocked model it was computed from.

#include <cmath>

#include "gtest/gtest.h"
#include "lsmbloom/filter/bloom_math.h"

namespace lsmbloom {
namespace {

// The k that minimises the model, ties to the smaller k.
int ModelOptimum(double bits_per_key) {
  int best = 1;
  double best_fpr = BlockedBloomFpr(bits_per_key, 1);
  for (int k = 2; k <= kMaxProbesPerKey; ++k) {
    const double fpr = BlockedBloomFpr(bits_per_key, k);
    if (fpr < best_fpr) {
      best = k;
      best_fpr = fpr;
    }
  }
  return best;
}

TEST(OptimalProbesTest, AgreesWithTheModelOnAFineGrid) {
  // Up to 60 bits/key: past 35.4 the optimum stays at kMaxProbesPerKey. (From about
  // 230 bits/key on, FPRs near 1e-12 are below the precision of the model's
  // alternating sum, which then wanders; the table keeps kMaxProbesPerKey.)
  for (double b = 0.1; b <= 60.0; b += 0.0137) {
    ASSERT_EQ(OptimalBlockedProbes(b), ModelOptimum(b)) << b;
  }
}

TEST(OptimalProbesTest, StepsAtTheModelsCrossings) {
  // Just below each step the model prefers k, just above it k + 1.
  double step = 0.1;
  for (int k = 1; k < kMaxProbesPerKey; ++k) {
    while (OptimalBlockedProbes(step) == k) step += 1e-3;
    double lo = step - 1e-3, hi = step;  // The step is in (lo, hi].
    while (hi - lo > 1e-12 * hi) {
      const double mid = (lo + hi) / 2;
      (OptimalBlockedProbes(mid) > k ? hi : lo) = mid;
    }
    EXPECT_EQ(OptimalBlockedProbes(hi), k + 1);
    EXPECT_EQ(ModelOptimum(hi * (1 - 1e-9)), k) << hi;
    EXPECT_EQ(ModelOptimum(hi * (1 + 1e-9)), k + 1) << hi;
  }
}

TEST(OptimalProbesTest, ClampsToTheValidRange) {
  EXPECT_EQ(OptimalBlockedProbes(0.1), 1);
  EXPECT_EQ(OptimalBlockedProbes(1000.0), kMaxProbesPerKey);
}

}  // namespace
}  // namespace lsmbloom
