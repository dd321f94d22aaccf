#include "tools/memory_demo.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <random>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {
namespace demo {
namespace {

// Looks up `n` keys, half absent (odd ids), from the first 16th of the
// `even_ids` present ids (the hot range: a
// skewed workload's), and returns false-positive reads per lookup.
absl::StatusOr<double> Pass(TableSet& set, uint64_t even_ids, uint64_t n, std::mt19937_64& rng) {
  set.ResetStats();
  const uint64_t hot = even_ids / 16;
  LookupResult result;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t id = 2 * (rng() % hot) + (i & 1);
    absl::Status s = set.Get(fixture::KeyOf(id), &result);
    if (!s.ok()) return s;
  }
  return set.stats().false_positives_per_lookup();
}

void PrintAllocation(const LookupStats& s) {
  std::printf("%-6s %6s %9s %10s %12s %14s %14s\n", "level", "files", "modules", "bits/key",
              "filter MB", "FPR seen", "FPR predicted");
  for (int l = 0; l < kNumLevels; ++l) {
    const LevelStats& ls = s.levels[l];
    if (ls.files == 0) continue;
    std::printf("L%-5d %6llu %9llu %10.2f %12.3f %14.4f %14.4f\n", l,
                static_cast<unsigned long long>(ls.files),
                static_cast<unsigned long long>(ls.filter_modules_held), ls.bits_per_key,
                ls.filter_bytes / 1e6, ls.observed_fpr(), ls.predicted_fpr_of_checks());
  }
}

}  // namespace

absl::Status RunMemoryDemo(const std::string& dir, const std::vector<fixture::FileSpec>& layout,
                           uint64_t lookups) {
  const std::string sub = absl::StrCat(dir, "/modular");
  ::mkdir(sub.c_str(), 0755);
  ModularBloomOptions modular;  // 8 modules of 2 bits/key.
  TableOptions options;
  options.filter_policy = *NewModularBloomPolicy(modular);
  VersionEdit edit;
  absl::Status s = fixture::WriteTables(layout, sub, options, &edit, {});
  if (!s.ok()) return s;
  uint64_t entries = 0, max_id = 0;
  for (const fixture::FileSpec& f : layout) {
    entries += f.entries.size();
    for (const fixture::Entry& e : f.entries) max_id = std::max(max_id, e.id);
  }
  LookupOptions lookup;
  lookup.filter_memory_cap_bytes = entries * 5 / 8;
  TableSet set(lookup);
  s = set.Apply(edit);
  std::mt19937_64 rng(20261206);
  std::printf(
      "\nfilter memory that follows the workload: modular filters (8 modules of 2 bits/key "
      "on disk) under a cap of 5 bits/key (%.2f MB); lookups of 1 key range in 16, half "
      "absent\n",
      lookup.filter_memory_cap_bytes / 1e6);
  absl::StatusOr<double> before = s.ok() ? Pass(set, max_id / 2, lookups, rng) : s;
  if (!before.ok()) return before.status();
  std::printf("allocated before any lookup (a uniform workload's split):\n");
  PrintAllocation(set.stats());
  set.RebalanceFilterMemory();  // From the accesses the pass counted.
  const LookupStats moved = set.stats();
  uint64_t loads = 0, evictions = 0;
  for (const LevelStats& l : moved.levels) {
    loads += l.filter_module_loads;
    evictions += l.filter_module_evictions;
  }
  absl::StatusOr<double> after = Pass(set, max_id / 2, lookups, rng);
  if (!after.ok()) return after.status();
  std::printf("after RebalanceFilterMemory (%llu modules read, %llu dropped):\n",
              static_cast<unsigned long long>(loads), static_cast<unsigned long long>(evictions));
  PrintAllocation(set.stats());
  std::printf("false-positive reads per lookup: %.4f before, %.4f after, the same memory\n",
              *before, *after);
  for (uint64_t f = 1; f <= edit.added.size(); ++f) {
    ::unlink(absl::StrCat(sub, "/", f, ".sst").c_str());
  }
  ::rmdir(sub.c_str());
  return absl::OkStatus();
}

}  // namespace demo
}  // namespace lsmbloom
