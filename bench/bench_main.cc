// The main() of every benchmark binary: pins the SIMD target named by
// LSMBLOOM_SIMD_TARGET (if set), records the machine in the report's
// context, and runs the benchmarks the binary's RegisterAll() registers.

#include <cstdio>
#include <string>

#include "absl/status/status.h"
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
  lsmbloom::bench::AddMachineContext();
  benchmark::Initialize(&argc, argv);
  lsmbloom::bench::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
