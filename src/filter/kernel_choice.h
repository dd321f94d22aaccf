// Which compiled target each kernel family runs: a pinned one, the widest
// the CPU has, or (by default) the one that measured fastest here. Each
// family times every target the CPU supports on a small in-cache workload
// the first time it is used unpinned, keeps the fastest for the process
// (ties within kTieFraction go to the wider target) and calls its own
// dispatch table entry for that target: a wider instruction set is not
// always faster (a core may split or emulate the wide operations a kernel
// uses), so the choice must not assume it is.

#ifndef LSMBLOOM_SRC_FILTER_KERNEL_CHOICE_H_
#define LSMBLOOM_SRC_FILTER_KERNEL_CHOICE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace lsmbloom {
namespace internal {

// One entry per dispatched kernel (each HWY_EXPORT table but Target).
enum class KernelFamily : int {
  kBlockedBuild,
  kBlockedProbeOne,
  kBlockedProbeBatch,
  kBlockedProbeEach,
  kBlockedProbePairs,
  kRibbonProbeOne,
  kRibbonProbeBatch,
  kRibbonProbeEach,
  kRibbonProbePairs,
};
inline constexpr int kNumKernelFamilies = 9;

// A target slower than the fastest by no more than this fraction ties with
// it, and the wider of the two is kept.
inline constexpr double kTieFraction = 0.03;

// "blocked_build", "blocked_probe_one", ...
const char* KernelFamilyName(KernelFamily family);

// Targets this binary has kernels for and this CPU runs (Highway target
// bits, the lowest bit the widest), read before any pin narrows what
// Highway reports.
int64_t AvailableTargetBits();

// The index of target `bit` in every HWY_EXPORT table of this build, as
// Highway computes it for its own choice. REQUIRES: bit in
// AvailableTargetBits().
size_t TableIndexOfTarget(int64_t bit);

// Pins every family to `bit` (0 lifts the pin). REQUIRES: bit is 0 or in
// AvailableTargetBits().
void PinKernelTarget(int64_t bit);

// Pins one family alone until the next PinKernelTarget, for tests that mix
// targets across families.
void PinFamilyTargetForTest(KernelFamily family, int64_t bit);

// Forgets every timing, so the next use times again (tests of first use).
void ForgetTimingsForTest();

// Unpinned families: by measurement (true, the default unless
// LSMBLOOM_SIMD_CHOICE=widest) or the widest target (false).
void SetChooseByMeasurement(bool on);

namespace kernel_choice_detail {
// Per family: 1 + the table index it dispatches to, 0 while undecided.
extern std::atomic<uint8_t> g_index_plus_one[kNumKernelFamilies];
size_t DecideIndex(KernelFamily family);
}  // namespace kernel_choice_detail

// The table index `family` dispatches to now: one acquire load (a plain
// load on x86) once decided.
inline size_t KernelTableIndex(KernelFamily family) {
  const uint8_t i = kernel_choice_detail::g_index_plus_one[static_cast<int>(family)].load(
      std::memory_order_acquire);
  return i != 0 ? size_t{i} - 1 : kernel_choice_detail::DecideIndex(family);
}

// How a family's target was chosen, and what each candidate cost.
struct FamilyChoice {
  KernelFamily family;
  int64_t target_bit = 0;  // The target it runs now.
  enum class How { kPinned, kMeasured, kWidest } how = How::kWidest;
  // (target bit, ns per op), widest first; empty if never timed.
  std::vector<std::pair<int64_t, double>> ns_per_op;
  double timing_us = 0;  // CPU time its timing took (0 if never timed).
};

// Every family's choice, deciding (and timing) those not yet decided.
std::vector<FamilyChoice> KernelChoices();

// Runs `family`'s kernel at table `index` once over its small in-cache
// workload and returns the operations (keys) it ran (kernel_timing.cc).
size_t RunKernelWorkload(KernelFamily family, size_t index);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_KERNEL_CHOICE_H_
