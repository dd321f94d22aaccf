// lookup_bench's filter-memory cases: the same tree written with several
// filter choices, all sized from 10 bits/key everywhere:
//
//   Uniform10       blocked Bloom at 10 bits/key in every level;
//   Budgeted        that memory split across levels by filter_budget.h,
//                   Bloom only;
//   BudgetedMixed   the same memory, Bloom or Ribbon per level;
//   BudgetedTime    the same memory, Bloom or Ribbon per level for the
//                   least lookup time (FilterObjective::kLookupTime), with
//                   the read and probe costs measured in this run (below);
//   MatchedBloom    the least memory whose Bloom-only split the model says
//   MatchedMixed    reads no more false positives than Uniform10 (the
//                   memory is the filter_MB counter), and mixed;
//   RocksDbBloom10  RocksDB on the same files, NewBloomFilterPolicy(10);
//   RocksDbRibbon10 NewRibbonFilterPolicy(10, 1): every ingested file gets
//                   Ribbon sized to Bloom-at-10's FPR;
//   NoFilters, UniformBloom20, UniformRibbon10: absent keys only, for the
//                   costs FilterBudgetOptions takes (a false-positive read:
//                   NoFilters against UniformBloom20, whose filters almost
//                   never err; a Ribbon probe against a Bloom probe:
//                   UniformRibbon10 against Uniform10, less the reads their
//                   FPRs tell apart); BudgetedTime measures them so (in an
//                   untimed setup) before it splits its memory.
//
// Tables are mapped, as by default; the Pread_ cases (absent keys only)
// read the same tree through pread, where a false-positive read costs a
// system call and a copy, as reads from storage cost more than cached ones.
//
// Absent-key Get is timed without counters; an untimed pass over all the
// absent keys then counts false-positive data-block reads per lookup (every
// block an absent key reads is one; for RocksDB, its perf context's
// bloom_sst_hit_count).

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/lookup_bench.h"
#include "benchmark/benchmark.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/table_properties.h"

namespace lsmbloom {
namespace bench {
namespace {

enum class Variant {
  kUniform10,
  kBudgeted,
  kBudgetedMixed,
  kMatchedBloom,
  kMatchedMixed,
  kNoFilters,
  kUniformBloom20,
  kUniformRibbon10,
  kBudgetedTime,
};

const char* NameOf(Variant v) {
  switch (v) {
    case Variant::kUniform10:
      return "Uniform10";
    case Variant::kBudgeted:
      return "Budgeted";
    case Variant::kBudgetedMixed:
      return "BudgetedMixed";
    case Variant::kMatchedBloom:
      return "MatchedBloom";
    case Variant::kMatchedMixed:
      return "MatchedMixed";
    case Variant::kNoFilters:
      return "NoFilters";
    case Variant::kUniformBloom20:
      return "UniformBloom20";
    case Variant::kUniformRibbon10:
      return "UniformRibbon10";
    case Variant::kBudgetedTime:
      return "BudgetedTime";
  }
  return "?";
}

FilterBudgetOptions MixedKinds() {
  FilterBudgetOptions o;
  o.allow_ribbon = true;
  return o;
}

FilterBudgetOptions MeasuredTimeObjective(bool pread);

// The filters of `v` for `layout`.
FilterAllocation AllocationOf(Variant v, const std::vector<fixture::FileSpec>& layout, bool pread) {
  const std::vector<LevelFilterShape> shapes = fixture::FilterShapes(layout);
  absl::StatusOr<FilterAllocation> uniform = UniformFilterAllocation(shapes, 10);
  if (!uniform.ok()) Die(std::string(uniform.status().message()));
  const double bytes = uniform->memory_bits / 8;
  const double cost = uniform->expected_cost;
  FilterBudgetOptions ribbon_only;
  ribbon_only.allow_bloom = false;
  ribbon_only.allow_ribbon = true;
  absl::StatusOr<FilterAllocation> a = uniform;
  switch (v) {
    case Variant::kUniform10:
      break;
    case Variant::kBudgeted:
      a = AllocateFilterMemory(shapes, bytes);
      break;
    case Variant::kBudgetedMixed:
      a = AllocateFilterMemory(shapes, bytes, MixedKinds());
      break;
    case Variant::kMatchedBloom:
      a = MinimumFilterMemory(shapes, cost);
      break;
    case Variant::kMatchedMixed:
      a = MinimumFilterMemory(shapes, cost, MixedKinds());
      break;
    case Variant::kNoFilters:
      a = UniformFilterAllocation(shapes, 0);
      break;
    case Variant::kUniformBloom20:
      a = UniformFilterAllocation(shapes, 20);
      break;
    case Variant::kUniformRibbon10:
      a = UniformFilterAllocation(shapes, 10, ribbon_only);
      break;
    case Variant::kBudgetedTime:
      a = AllocateFilterMemory(shapes, bytes, MeasuredTimeObjective(pread));
      break;
  }
  if (!a.ok()) Die(std::string(a.status().message()));
  return *std::move(a);
}

// The tables of one variant, twice: timed without counters, and counted.
struct Case {
  TableSet timed{NoCounters()};
  TableSet counted;
  FilterAllocation allocation;

  static LookupOptions NoCounters() {
    LookupOptions options;
    options.count_stats = false;
    return options;
  }
};

// The case of `v` on the standard or deep tree, its tables mapped or read
// through pread.
Case& CaseOf(bool deep, Variant v, bool pread = false) {
  static std::map<std::tuple<bool, Variant, bool>, Case*> cases;
  Case*& c = cases[{deep, v, pread}];  // Stays valid as the map grows.
  if (c != nullptr) return *c;
  c = new Case;
  const std::vector<fixture::FileSpec> deep_layout =
      deep ? fixture::MakeLayout(NumKeys(), 42, fixture::DeepShape())
           : std::vector<fixture::FileSpec>();
  const std::vector<fixture::FileSpec>& layout = deep ? deep_layout : TheData().layout;
  c->allocation = AllocationOf(v, layout, pread);
  absl::StatusOr<std::array<TableOptions, kNumLevels>> options =
      fixture::TableOptionsFor(c->allocation);
  if (!options.ok()) Die(std::string(options.status().message()));
  for (TableOptions& o : *options) o.data_block_hash_index = true;  // As lookup_bench's.
  const std::string dir = absl::StrCat(TheData().dir, "/filters-", deep ? "deep-" : "standard-",
                                       pread ? "pread-" : "", NameOf(v));
  ::mkdir(dir.c_str(), 0755);
  VersionEdit edit;
  absl::Status st = fixture::WriteTables(layout, dir, *options, &edit, {},
                                         pread ? FileAccess::kPread : FileAccess::kMmap);
  if (st.ok()) st = c->timed.Apply(edit);
  if (st.ok()) st = c->counted.Apply(edit);
  if (!st.ok()) Die(std::string(st.message()));
  return *c;
}

const std::vector<std::string>& Keys(bool present) {
  return present ? TheData().present : TheData().absent;
}

// "L0:B19.65 L1:R12.66 ...": each level's kind and bits/key, as built.
std::string FiltersLabel(const LookupStats& s, const FilterAllocation& a) {
  std::string label;
  for (int l = 0; l < kNumLevels; ++l) {
    if (s.levels[l].files == 0) continue;
    const FilterKind kind = a.levels[l].kind;
    absl::StrAppend(&label, "L", l, ":",
                    kind == FilterKind::kRibbon         ? "R"
                    : kind == FilterKind::kBlockedBloom ? "B"
                                                        : "-",
                    absl::SixDigits(s.levels[l].bits_per_key), " ");
  }
  return label;
}

// What an untimed, counted pass over `keys` saw, per lookup.
struct Counted {
  LookupStats stats;
  double reads = 0;   // Data blocks read (for absent keys: false positives).
  double checks = 0;  // Filters consulted.
};

Counted Count(Case& c, const std::vector<std::string>& keys, bool present) {
  c.counted.ResetStats();
  size_t found = 0;
  for (const std::string& k : keys) found += c.counted.Get(k)->kind == LookupResult::Kind::kFound;
  if (!present && found != 0) Die("an absent key was found");
  Counted out;
  out.stats = c.counted.stats();
  for (const LevelStats& l : out.stats.levels) {
    out.reads += static_cast<double>(l.data_block_reads) / out.stats.lookups;
    out.checks += static_cast<double>(l.filters_checked) / out.stats.lookups;
  }
  return out;
}

// Wall time per absent-key Get of `c`, the median of 3 passes (over fewer
// keys through pread, where each read is a system call).
double AbsentGetNs(Case& c, bool pread) {
  const std::vector<std::string>& keys = Keys(false);
  const size_t n = pread ? keys.size() / 8 : keys.size();
  LookupResult result;
  std::vector<double> passes;
  for (int pass = 0; pass < 3; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) {
      if (!c.timed.Get(keys[i], &result).ok()) Die("lookup failed");
    }
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    passes.push_back(took.count() / n);
  }
  std::sort(passes.begin(), passes.end());
  return passes[1];
}

// FilterObjective::kLookupTime, Bloom or Ribbon, with the costs of this
// run's tree, its tables mapped or read through pread: a false-positive
// read from absent-key Get without filters against 20-bit Bloom filters
// (which almost never err, each check taking bloom_probe_ns); a Ribbon
// probe from 10-bit Ribbon against 10-bit Bloom filters on the mapped tree,
// less the reads their FPRs tell apart (filters are in memory either way;
// a Ribbon probe's cost grows with its bits/key, and the budget gives
// Ribbon the levels near 10).
FilterBudgetOptions MeasuredTimeObjective(bool pread) {
  static std::map<bool, FilterBudgetOptions> measured;
  if (auto it = measured.find(pread); it != measured.end()) return it->second;
  const std::vector<std::string>& absent = Keys(false);
  FilterBudgetOptions o = MixedKinds();
  o.objective = FilterObjective::kLookupTime;
  Case& none = CaseOf(false, Variant::kNoFilters, pread);
  Case& bloom20 = CaseOf(false, Variant::kUniformBloom20, pread);
  const double none_reads = Count(none, absent, false).reads;
  const Counted b20 = Count(bloom20, absent, false);
  o.false_positive_read_ns =
      (AbsentGetNs(none, pread) - AbsentGetNs(bloom20, pread) + b20.checks * o.bloom_probe_ns) /
      (none_reads - b20.reads);
  if (!(o.false_positive_read_ns > 0)) Die("reads measured as free: rerun on a quiet machine");
  if (pread) {
    o.ribbon_probe_ns = MeasuredTimeObjective(false).ribbon_probe_ns;
  } else {
    Case& bloom10 = CaseOf(false, Variant::kUniform10, false);
    Case& ribbon10 = CaseOf(false, Variant::kUniformRibbon10, false);
    const Counted b10 = Count(bloom10, absent, false), r10 = Count(ribbon10, absent, false);
    const double extra = (AbsentGetNs(ribbon10, false) - AbsentGetNs(bloom10, false) -
                          (r10.reads - b10.reads) * o.false_positive_read_ns) /
                         r10.checks;
    o.ribbon_probe_ns = o.bloom_probe_ns + std::max(0.0, extra);
  }
  measured[pread] = o;
  return o;
}

void GetFilters(benchmark::State& state, bool deep, Variant v, bool present, bool pread) {
  Case& c = CaseOf(deep, v, pread);
  const auto& keys = Keys(present);
  LookupResult result;
  size_t i = 0, found = 0;
  for (auto _ : state) {
    if (!c.timed.Get(keys[i++ % kProbes], &result).ok()) Die("lookup failed");
    found += result.kind == LookupResult::Kind::kFound;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
  const Counted counted = Count(c, keys, present);
  if (!present) {
    state.counters["fp_reads_per_lookup"] = counted.reads;
    state.counters["predicted_fp_reads"] = c.allocation.expected_cost;
  }
  if (v == Variant::kBudgetedTime) {
    const FilterBudgetOptions o = MeasuredTimeObjective(pread);
    state.counters["read_ns"] = o.false_positive_read_ns;
    state.counters["ribbon_probe_ns"] = o.ribbon_probe_ns;
  }
  state.counters["filter_MB"] = counted.stats.total_filter_bytes / 1e6;
  state.SetLabel(FiltersLabel(counted.stats, c.allocation));
}

void GetRocksFilters(benchmark::State& state, RocksFilter filter, bool present) {
  rocksdb::DB* db = Rocks(filter);
  const auto& keys = Keys(present);
  std::string value;
  size_t i = 0, found = 0;
  for (auto _ : state) found += db->Get(rocksdb::ReadOptions(), keys[i++ % kProbes], &value).ok();
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
  // Counted untimed: filters that said "maybe" (for absent keys, every one
  // is a false positive that reads a block).
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  for (const std::string& k : keys) db->Get(rocksdb::ReadOptions(), k, &value).ok();
  const uint64_t hits = rocksdb::get_perf_context()->bloom_sst_hit_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  if (!present) state.counters["fp_reads_per_lookup"] = static_cast<double>(hits) / keys.size();
  rocksdb::TablePropertiesCollection props;
  if (!db->GetPropertiesOfAllTables(&props).ok()) Die("no table properties");
  uint64_t filter_bytes = 0;
  std::string policy;
  for (const auto& [file, p] : props) {
    filter_bytes += p->filter_size;
    policy = p->filter_policy_name;
  }
  state.counters["filter_MB"] = filter_bytes / 1e6;
  state.SetLabel(policy);
}

}  // namespace

void RegisterFilterMemory() {
  const int64_t n = static_cast<int64_t>(NumKeys());
  for (bool present : {false, true}) {
    const std::string kind = present ? "Present" : "Absent";
    for (bool deep : {false, true}) {
      for (Variant v : {Variant::kUniform10, Variant::kBudgeted, Variant::kBudgetedMixed,
                        Variant::kBudgetedTime, Variant::kMatchedBloom, Variant::kMatchedMixed,
                        Variant::kNoFilters, Variant::kUniformBloom20, Variant::kUniformRibbon10}) {
        const bool cost_case = v == Variant::kNoFilters || v == Variant::kUniformBloom20 ||
                               v == Variant::kUniformRibbon10;
        if (cost_case && (present || deep)) continue;
        if (deep && (v == Variant::kMatchedBloom || v == Variant::kMatchedMixed ||
                     v == Variant::kBudgetedTime)) {
          continue;
        }
        const std::string name = absl::StrCat("BM_Get", kind, "_FilterMemory_",
                                              deep ? "DeepShape_" : "StandardShape_", NameOf(v));
        benchmark::RegisterBenchmark(name.c_str(), [deep, v, present](benchmark::State& s) {
          GetFilters(s, deep, v, present, /*pread=*/false);
        })->Arg(n);
      }
    }
    for (RocksFilter f : {RocksFilter::kBloom10, RocksFilter::kRibbon10}) {
      const std::string name =
          absl::StrCat("BM_Get", kind, "_FilterMemory_StandardShape_",
                       f == RocksFilter::kRibbon10 ? "RocksDbRibbon10" : "RocksDbBloom10");
      benchmark::RegisterBenchmark(name.c_str(), [f, present](benchmark::State& s) {
        GetRocksFilters(s, f, present);
      })->Arg(n);
    }
  }
  // The standard tree read through pread: absent keys.
  for (Variant v : {Variant::kUniform10, Variant::kBudgeted, Variant::kBudgetedMixed,
                    Variant::kBudgetedTime, Variant::kNoFilters, Variant::kUniformBloom20}) {
    const std::string name =
        absl::StrCat("BM_GetAbsent_FilterMemory_Pread_StandardShape_", NameOf(v));
    benchmark::RegisterBenchmark(name.c_str(), [v](benchmark::State& s) {
      GetFilters(s, /*deep=*/false, v, /*present=*/false, /*pread=*/true);
    })->Arg(n);
  }
}

}  // namespace bench
}  // namespace lsmbloom
