// What every kind's Highway kernels share: the set-up step before a reader
// takes a kernel's address (to call it per probe without a dispatch: Highway
// must first choose its target, or the reader would keep the table's
// initialising trampoline), the size above which batches fetch ahead, and
// the target the kernels run on.

#ifndef LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_
#define LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_

#include <cstdint>

#include "hwy/targets.h"

namespace lsmbloom {
namespace internal {

// Makes Highway's choice of target (PinSimdTarget's, else the best the CPU
// has) before a kernel's address is taken from a dispatch table.
inline void EnsureSimdTargetChosen() {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
}

// The filter size (bytes of the body a batch probes) above which batches
// pay for fetching ahead: twice this machine's L2 cache (simd.cc). The
// same threshold for every kind.
uint64_t BatchPrefetchAboveBytes();

// The Highway target bit (HWY_AVX2, ...) the kernels dispatch to now
// (defined beside the blocked kernels, whose dispatch table it reads).
int64_t ActiveTargetBit();

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_
