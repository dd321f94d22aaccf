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

// The kernels of their families' targets now (kernel_choice.h).
RibbonProbeOneFn ChosenRibbonProbeOne();
RibbonProbeBatchFn ChosenRibbonProbeBatch();

using RibbonProbeEachFn = void (*)(const RibbonView* const* filters, size_t n, uint64_t hash,
                                   bool* out);
using RibbonProbePairsFn = void (*)(const RibbonView* const* filters, const uint64_t* hashes,
                                    size_t n, bool* out);

// Every Ribbon kernel of one target, for timing them (kernel_choice.h).
struct RibbonKernels {
  RibbonProbeOneFn probe_one;
  RibbonProbeBatchFn probe_batch;
  RibbonProbeEachFn probe_each;
  RibbonProbePairsFn probe_pairs;
};
// The kernels at `index` of the dispatch tables (TableIndexOfTarget).
RibbonKernels RibbonKernelsAt(size_t index);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_KERNELS_H_
