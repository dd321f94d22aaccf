// The main() of every benchmark binary: pins the SIMD target named by
// LSMBLOOM_SIMD (if set), records the machine and the target each kernel
// family runs (with the timings it was chosen by) in the report's context,
// and runs the benchmarks the binary's RegisterAll() registers.

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "lsmbloom/filter/simd.h"

int main(int argc, char** argv) {
  const absl::Status pinned = lsmbloom::PinSimdTargetFromEnvironment();
  if (!pinned.ok()) {
    std::fprintf(stderr, "%s\n", std::string(pinned.message()).c_str());
    return 2;
  }
  benchmark::AddCustomContext("lsmbloom_simd", lsmbloom::ActiveSimdTarget());
  double timing_us = 0;
  for (const lsmbloom::KernelChoice& c : lsmbloom::SimdKernelChoices()) {
    std::string value = absl::StrCat(c.target, " (", c.how);
    for (const auto& [target, ns] : c.ns_per_op) {
      absl::StrAppend(&value, ", ", target, " ", absl::StrFormat("%.3g", ns));
    }
    absl::StrAppend(&value, c.ns_per_op.empty() ? ")" : " ns/op)");
    benchmark::AddCustomContext("lsmbloom_kernel_" + c.family, value);
    timing_us += c.timing_us;
  }
  benchmark::AddCustomContext("lsmbloom_kernel_timing_us", absl::StrFormat("%.0f", timing_us));
  lsmbloom::bench::AddMachineContext();
  benchmark::Initialize(&argc, argv);
  lsmbloom::bench::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
