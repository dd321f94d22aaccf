// The one set-up step every kind's Highway kernels share: a reader that
// takes a kernel's address (to call it per probe without a dispatch) must
// first make Highway choose its target, or it would keep the table's
// initialising trampoline.

#ifndef LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_
#define LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_

#include "hwy/targets.h"

namespace lsmbloom {
namespace internal {

// Makes Highway's choice of target (PinSimdTarget's, else the best the CPU
// has) before a kernel's address is taken from a dispatch table.
inline void EnsureSimdTargetChosen() {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_SIMD_DISPATCH_H_
