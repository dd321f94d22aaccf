// Measures the memory one Ribbon filter's construction takes: builds a
// filter of --keys hashes with RibbonOptions::max_construction_bytes set to
// --max_construction_bytes and reports the process's resident set before
// the keys, with them buffered, and at its peak during Finish (VmHWM,
// reset just before Finish through /proc/self/clear_refs; ru_maxrss if that
// is not possible), beside RibbonConstructionBytes, the peak Finish plans.
// One build per process: a peak is a process's own. docs/PERFORMANCE.md,
// "Ribbon construction memory", has the figures. Run with --help.

#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lsmbloom/filter/ribbon.h"

ABSL_FLAG(uint64_t, keys, 10000000, "hashes added to the one filter");
ABSL_FLAG(double, target_fpr, 0.01, "RibbonOptions::target_fpr");
ABSL_FLAG(uint64_t, seed, 0, "which key set: hashes of the counters seed * 2^40 + i");
ABSL_FLAG(uint64_t, max_construction_bytes, 0,
          "RibbonOptions::max_construction_bytes: 0 for no bound, else at least 1 MiB");

namespace {

constexpr double kMiB = 1 << 20;

// A field of /proc/self/status ("VmRSS", "VmHWM") in bytes, or -1.
long long StatusBytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, field.size() + 1, field + ":") == 0) {
      return std::stoll(line.substr(field.size() + 1)) * 1024;  // In kB.
    }
  }
  return -1;
}

// Sets VmHWM to the current resident set (Linux 4.0 and later).
bool ResetPeak() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

long long MaxRssBytes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<long long>(usage.ru_maxrss) * 1024;
}

// Distinct-looking 64-bit hashes (a splitmix-style counter mixer).
uint64_t MixedHash(uint64_t i) {
  uint64_t x = i * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Builds one Ribbon filter and reports the resident memory its construction took.\n"
      "  ribbon_rss --keys=10000000 --max_construction_bytes=268435456");
  absl::ParseCommandLine(argc, argv);
  lsmbloom::RibbonOptions options;
  options.target_fpr = absl::GetFlag(FLAGS_target_fpr);
  options.max_construction_bytes = absl::GetFlag(FLAGS_max_construction_bytes);
  auto builder = lsmbloom::RibbonBuilder::Create(options);
  if (!builder.ok()) {
    std::fprintf(stderr, "%s\n", builder.status().ToString().c_str());
    return 1;
  }
  const uint64_t n = absl::GetFlag(FLAGS_keys);
  const absl::StatusOr<lsmbloom::RibbonGeometry> plan = lsmbloom::PlanRibbon(n, options);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", plan.status().ToString().c_str());
    return 1;
  }
  const long long before = StatusBytes("VmRSS");
  const uint64_t first = absl::GetFlag(FLAGS_seed) << 40;
  for (uint64_t i = 0; i < n; ++i) builder->AddHash(MixedHash(first + i));
  const long long buffered = StatusBytes("VmRSS");
  const bool reset = ResetPeak();
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> filter = builder->Finish();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (!filter.ok()) {
    std::fprintf(stderr, "%s\n", filter.status().ToString().c_str());
    return 1;
  }
  const long long peak = reset ? StatusBytes("VmHWM") : MaxRssBytes();
  const double planned = static_cast<double>(lsmbloom::RibbonConstructionBytes(*plan));
  const double per_key = 1.0 / static_cast<double>(n);
  std::printf("keys                      %llu (seed %llu)\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(absl::GetFlag(FLAGS_seed)));
  std::printf("max_construction_bytes    %llu (%.1f MiB; 0: no bound)\n",
              static_cast<unsigned long long>(options.max_construction_bytes),
              options.max_construction_bytes / kMiB);
  std::printf("planned Ribbon peak       %.1f MiB (%.2f bytes/key, RibbonConstructionBytes)\n",
              planned / kMiB, planned * per_key);
  std::printf("built                     %s, %.1f MiB (%.2f bits/key), %.2f s\n",
              builder->fell_back() ? "blocked Bloom fallback" : "Ribbon",
              filter->size() / kMiB, 8.0 * filter->size() * per_key, seconds);
  std::printf("filter bytes' std::hash   %016zx\n", std::hash<std::string>()(*filter));
  std::printf("RSS before the keys       %.1f MiB\n", before / kMiB);
  std::printf("RSS with keys buffered    %.1f MiB (+%.2f bytes/key)\n", buffered / kMiB,
              (buffered - before) * per_key);
  std::printf("peak RSS during Finish    %.1f MiB (+%.2f bytes/key over the baseline; %s)\n",
              peak / kMiB, (peak - before) * per_key,
              reset ? "VmHWM reset before Finish" : "ru_maxrss");
  return 0;
}
