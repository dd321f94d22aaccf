// Which SIMD instruction set the filter kernels run on.
//
// lsmbloom compiles its kernels for every target Highway can build here
// (a portable fallback, "scalar" with GCC before 12.3 and "emu128"
// otherwise; SSSE3, SSE4, AVX2, AVX-512 on x86; NEON on Arm) and picks the best
// one the CPU supports at run time. Every target writes byte-identical
// filters and gives identical answers; pinning one is for benchmarks, tools
// and tests. Pin before opening readers: a reader binds its single-probe
// and batch kernels when it opens. Not thread-safe against concurrent
// filter use.

#ifndef LSMBLOOM_FILTER_SIMD_H_
#define LSMBLOOM_FILTER_SIMD_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace lsmbloom {

// Targets this binary has kernels for and this CPU runs, best first, by the
// names PinSimdTarget accepts: "avx512", "avx2", "sse4", "scalar", "emu128"...
std::vector<std::string> AvailableSimdTargets();

// Pins the kernels to `name` (as above, or "best" to undo the pin).
// InvalidArgument if the name is unknown or the CPU lacks that target.
absl::Status PinSimdTarget(std::string_view name);

// Applies the environment variable LSMBLOOM_SIMD if set (same names).
absl::Status PinSimdTargetFromEnvironment();

// The target the kernels dispatch to now.
std::string ActiveSimdTarget();

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_SIMD_H_
