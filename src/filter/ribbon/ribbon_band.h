// The Ribbon builder's linear algebra (ribbon_builder.cc drives it): the
// band of equations, Gaussian elimination as they arrive, the dependent
// fraction d of a band with saturated stretches (ribbon_math.h), and
// back-substitution into the interleaved solution (docs/FORMAT.md).
// Internal to the filter layer.

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_BAND_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_BAND_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {

// A slot of the band: the pivot row placed there (bit t: slot + t), 0 if free.
using RibbonRow = unsigned __int128;

// The values in ascending order: `sorted` holds n. The sort's bucket
// counts go to `counts`, SortRibbonHashesScratch(n) bytes of any contents
// that do not overlap the two arrays, or if it is null to memory of its own.
void SortRibbonHashes(const uint64_t* hashes, size_t n, uint64_t* sorted,
                      uint32_t* counts = nullptr);
// The bytes of SortRibbonHashes' bucket counts for n hashes: 1-2 per hash
// (8 at least), at most 64 MiB.
size_t SortRibbonHashesScratch(size_t n);

// The odd x with m * x == 1 (mod 2^64), for odd m: undoes a layout's
// start multiplier.
uint64_t InverseMultiplier(uint64_t m);

// Bands the equations of n keys into `band` (num_starts + 127 slots, zero
// on entry), given their placed hashes (hash * start_multiplier, ribbon_
// layout.h) in ascending order, so by start. Returns how many equations
// show the band saturated around them (vanished, or pivoted 120 or more
// slots past their start); their starts, the first 2^16 of them, go into
// `saturated_starts`.
size_t BandRibbon(const uint64_t* placed, size_t n, uint64_t start_multiplier, uint64_t num_starts,
                  RibbonRow* band, std::vector<uint64_t>* saturated_starts);

// d of a band BandRibbon reported `saturated` equations for, in units of
// 2^-32 (rounded up), measured on sampled absent equations.
uint32_t MeasureRibbonDependence(const RibbonRow* band, const RibbonGeometry& g, size_t saturated,
                                 const std::vector<uint64_t>& saturated_starts);

// Writes the solution of g's columns for `band` (every slot's row) to
// `out`, g.solution_bytes() bytes.
void BackSubstituteRibbon(const RibbonRow* band, const RibbonGeometry& g, uint8_t* out);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_BAND_H_
