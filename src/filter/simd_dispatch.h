// What every kind's Highway kernels share: the size above which batches
// fetch ahead, and the target the one-key probe runs on (which target each
// kernel family runs: kernel_choice.h).

#ifndef LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_
#define LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_

#include <cstdint>

namespace lsmbloom {
namespace internal {

// The filter size (bytes of the body a batch probes) above which batches
// pay for fetching ahead: twice this machine's L2 cache (simd.cc). The
// same threshold for every kind.
uint64_t BatchPrefetchAboveBytes();

// The Highway target bit (HWY_AVX2, ...) the blocked one-key probe
// dispatches to now (defined beside the blocked kernels, whose dispatch
// table it reads).
int64_t ActiveTargetBit();

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_
