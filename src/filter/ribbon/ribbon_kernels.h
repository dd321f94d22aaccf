// SIMD probes of the Ribbon filter, dispatched at run time by Highway.
//
// A probe ANDs the key's coefficients (shifted onto its three segments)
// with each result column's words and needs the parity of every column:
// the columns sit side by side in memory (interleaved storage), so one
// vector load takes several columns and one vector fold gives all their
// parities. Every target computes exactly internal::RibbonMayMatch
// (ribbon_reference.h), the scalar reference; no Highway types appear here.

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_KERNELS_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {

// REQUIRES: view.num_starts > 0.
using RibbonProbeOneFn = bool (*)(const RibbonView& view, uint64_t hash);
// out[i] = probe of hashes[i]; with `prefetch`, every key's cache lines of a
// group of 32 are requested before any of the group is probed.
// REQUIRES: view.num_starts > 0.
using RibbonProbeBatchFn = void (*)(const RibbonView& view, const uint64_t* hashes, size_t n,
                                    bool* out, bool prefetch);

// The kernels of the target Highway has chosen now (PinSimdTarget).
RibbonProbeOneFn ChosenRibbonProbeOne();
RibbonProbeBatchFn ChosenRibbonProbeBatch();

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_KERNELS_H_
