// Small helpers shared by the benchmark binaries.

#ifndef LSMBLOOM_BENCH_BENCH_UTIL_H_
#define LSMBLOOM_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"

namespace lsmbloom {
namespace bench {

// Largest n to run, from LSMBLOOM_BENCH_MAX_KEYS (the --quick mode lowers it).
inline uint64_t MaxKeys() {
  const char* v = std::getenv("LSMBLOOM_BENCH_MAX_KEYS");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 100000000ull;
}

inline std::vector<int64_t> KeyCounts(std::vector<int64_t> all) {
  std::vector<int64_t> kept;
  for (int64_t n : all) {
    if (static_cast<uint64_t>(n) <= MaxKeys()) kept.push_back(n);
  }
  return kept;
}

// Registers the binary's benchmarks. Each benchmark binary defines it;
// bench_main.cc calls it between benchmark::Initialize and running them.
void RegisterAll();

// Records what the report's machine table shows: CPU model, compiler, build.
inline void AddMachineContext() {
  std::string model = "?";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  benchmark::AddCustomContext("cpu_model", model);
  benchmark::AddCustomContext("compiler", "gcc " __VERSION__);
  benchmark::AddCustomContext("build_flags",
#ifdef NDEBUG
                              "-O2 -DNDEBUG (bazel -c opt), "
#else
                               "assertions on (not -c opt), "
#endif
                              "-std=c++17, no -march: SIMD by Highway runtime dispatch");
}

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_BENCH_UTIL_H_
