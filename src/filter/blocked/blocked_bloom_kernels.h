// SIMD kernels of the blocked filter, one copy per target Highway compiles.
//
// No Highway types appear here: callers see plain functions. Each one
// dispatches once per call (per batch or per build), or, for single probes,
// hands out a function pointer that a reader resolves once when it opens,
// to the target its family runs (kernel_choice.h).

#ifndef LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_KERNELS_H_
#define LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "lsmbloom/filter/blocked_bloom.h"

namespace lsmbloom {
namespace internal {

// True if all k bits of `hash` are set. REQUIRES: num_blocks > 0.
using ProbeOneFn = bool (*)(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                            uint64_t hash);

// The single-probe kernel of its family's target now.
ProbeOneFn ChosenProbeOne();

// out[i] = probe of hashes[i]. With `prefetch`, each block is fetched a
// fixed number of keys before it is probed (worth it only for filters larger
// than cache). REQUIRES: num_blocks > 0.
using ProbeBatchFn = void (*)(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                              const uint64_t* hashes, size_t n, bool* out, bool prefetch);
// The batch kernel of its family's target now.
ProbeBatchFn ChosenProbeBatch();

// Sets the k bits of every hash. Any order is correct; hashes sorted by value
// are also sorted by block, which turns random writes into a sequential sweep.
void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
               size_t n);

using AddHashesFn = void (*)(uint8_t* bits, uint64_t num_blocks, int num_probes,
                             const uint64_t* hashes, size_t n);
using BlockedProbeEachFn = void (*)(const BlockedBloomView* const* filters, size_t n, uint64_t hash,
                                    bool* out);
using BlockedProbePairsFn = void (*)(const BlockedBloomView* const* filters, const uint64_t* hashes,
                                     size_t n, bool* out);

// Every blocked kernel of one target, for timing them (kernel_choice.h).
struct BlockedKernels {
  ProbeOneFn probe_one;
  ProbeBatchFn probe_batch;
  AddHashesFn add;
  BlockedProbeEachFn probe_each;
  BlockedProbePairsFn probe_pairs;
};
// The kernels at `index` of the dispatch tables (TableIndexOfTarget).
BlockedKernels BlockedKernelsAt(size_t index);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_KERNELS_H_
