// Which SIMD instruction set the filter kernels run on.
//
// lsmbloom compiles its kernels for every target Highway can build here
// (a portable fallback, "scalar" with GCC before 12.3 and "emu128"
// otherwise; SSSE3, SSE4, AVX2, AVX-512 on x86; NEON on Arm). Each kernel
// family (blocked build, one-key probe, batch probe, ProbeEach, ProbePairs;
// Ribbon's four probes) picks its own target by measurement: the first time
// it is used, it times every target this CPU supports on a small in-cache
// workload and keeps the fastest for the process, preferring the wider
// target when two are within 3%. A wider instruction set is not faster on
// every core. Timing all families costs well under a millisecond, once per
// process (docs/PERFORMANCE.md). LSMBLOOM_SIMD_CHOICE=widest in the
// environment, or SetSimdChoice(SimdChoice::kWidest), skips the timing and
// runs the widest target the CPU has.
//
// Every target writes byte-identical filters and gives identical answers,
// so families may run different targets. Pinning one target for all
// families is for benchmarks, tools and tests. Pin (or change the choice)
// before opening readers: a reader binds its single-probe and batch
// kernels when it opens. Pinning is not thread-safe against concurrent
// filter use; the first-use timing is.

#ifndef LSMBLOOM_FILTER_SIMD_H_
#define LSMBLOOM_FILTER_SIMD_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace lsmbloom {

// Targets this binary has kernels for and this CPU runs, best first, by the
// names PinSimdTarget accepts: "avx512", "avx2", "sse4", "scalar", "emu128"...
std::vector<std::string> AvailableSimdTargets();

// Pins every kernel family to `name` (as above, or "best" to undo the pin
// and choose as SetSimdChoice says).
// InvalidArgument if the name is unknown or the CPU lacks that target.
absl::Status PinSimdTarget(std::string_view name);

// Applies the environment variable LSMBLOOM_SIMD if set (same names).
absl::Status PinSimdTargetFromEnvironment();

// The target the blocked filter's one-key probe runs now (every family's,
// when pinned); SimdKernelChoices has the others.
std::string ActiveSimdTarget();

// How unpinned kernel families choose their target.
enum class SimdChoice {
  kFastestMeasured,  // The default: timed at first use, as above.
  kWidest,           // The widest the CPU has, untimed.
};
// Overrides LSMBLOOM_SIMD_CHOICE ("widest", or anything else for the
// default), which is read at the first choice otherwise.
void SetSimdChoice(SimdChoice choice);

// Which target one kernel family runs and why.
struct KernelChoice {
  std::string family;  // "blocked_build", "blocked_probe_one", ...
  std::string target;  // As AvailableSimdTargets names it.
  std::string how;     // "measured", "pinned" or "widest".
  // Every available target's time on the family's workload, ns per key,
  // widest first; empty if the family was never timed.
  std::vector<std::pair<std::string, double>> ns_per_op;
  // CPU time the family's timing took, page faults of first use included
  // (0: never timed).
  double timing_us = 0;
};

// Every family's choice; times the families not yet chosen.
std::vector<KernelChoice> SimdKernelChoices();

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_SIMD_H_
