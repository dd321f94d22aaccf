// lookup_bench's filter-memory cases: the same tree written with several
// filter choices, all sized from 10 bits/key everywhere:
//
//   Uniform10       blocked Bloom at 10 bits/key in every level;
//   Budgeted        that memory split across levels by filter_budget.h,
//                   Bloom only;
//   BudgetedMixed   the same memory, Bloom or Ribbon per level;
//   MatchedBloom    the least memory whose Bloom-only split the model says
//   MatchedMixed    reads no more false positives than Uniform10 (the
//                   memory is the filter_MB counter), and mixed;
//   RocksDbBloom10  RocksDB on the same files, NewBloomFilterPolicy(10);
//   RocksDbRibbon10 NewRibbonFilterPolicy(10, 1): every ingested file gets
//                   Ribbon sized to Bloom-at-10's FPR;
//   NoFilters, UniformBloom20, UniformRibbon20: absent keys only, for the
//                   costs FilterBudgetOptions takes (a false-positive read:
//                   NoFilters against UniformBloom20, whose filters almost
//                   never err; a Ribbon probe against a Bloom probe:
//                   UniformRibbon20 against UniformBloom20).
//
// Absent-key Get is timed without counters; an untimed pass over all the
// absent keys then counts false-positive data-block reads per lookup (every
// block an absent key reads is one; for RocksDB, its perf context's
// bloom_sst_hit_count).

#include <sys/stat.h>

#include <array>
#include <map>
#include <memory>
#include <string>
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
  kUniformRibbon20,
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
    case Variant::kUniformRibbon20:
      return "UniformRibbon20";
  }
  return "?";
}

FilterBudgetOptions MixedKinds() {
  FilterBudgetOptions o;
  o.allow_ribbon = true;
  return o;
}

// The filters of `v` for `layout`.
FilterAllocation AllocationOf(Variant v, const std::vector<fixture::FileSpec>& layout) {
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
    case Variant::kUniformRibbon20:
      a = UniformFilterAllocation(shapes, 20, ribbon_only);
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

Case& CaseOf(bool deep, Variant v) {
  static std::map<std::pair<bool, Variant>, Case*> cases;
  Case*& c = cases[{deep, v}];
  if (c != nullptr) return *c;
  c = new Case;
  const std::vector<fixture::FileSpec> deep_layout =
      deep ? fixture::MakeLayout(NumKeys(), 42, fixture::DeepShape())
           : std::vector<fixture::FileSpec>();
  const std::vector<fixture::FileSpec>& layout = deep ? deep_layout : TheData().layout;
  c->allocation = AllocationOf(v, layout);
  absl::StatusOr<std::array<TableOptions, kNumLevels>> options =
      fixture::TableOptionsFor(c->allocation);
  if (!options.ok()) Die(std::string(options.status().message()));
  for (TableOptions& o : *options) o.data_block_hash_index = true;  // As lookup_bench's.
  const std::string dir = absl::StrCat(TheData().dir, "/filters-", deep ? "deep-" : "standard-",
                                       NameOf(v));
  ::mkdir(dir.c_str(), 0755);
  VersionEdit edit;
  absl::Status st = fixture::WriteTables(layout, dir, *options, &edit, {});
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

void GetFilters(benchmark::State& state, bool deep, Variant v, bool present) {
  Case& c = CaseOf(deep, v);
  const auto& keys = Keys(present);
  LookupResult result;
  size_t i = 0, found = 0;
  for (auto _ : state) {
    if (!c.timed.Get(keys[i++ % kProbes], &result).ok()) Die("lookup failed");
    found += result.kind == LookupResult::Kind::kFound;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
  c.counted.ResetStats();
  found = 0;
  for (const std::string& k : keys) found += c.counted.Get(k)->kind == LookupResult::Kind::kFound;
  if (!present && found != 0) Die("an absent key was found");
  const LookupStats s = c.counted.stats();
  uint64_t reads = 0;
  for (const LevelStats& l : s.levels) reads += l.data_block_reads;
  if (!present) {
    state.counters["fp_reads_per_lookup"] = static_cast<double>(reads) / s.lookups;
    state.counters["predicted_fp_reads"] = c.allocation.expected_cost;
  }
  state.counters["filter_MB"] = s.total_filter_bytes / 1e6;
  state.SetLabel(FiltersLabel(s, c.allocation));
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
                        Variant::kMatchedBloom, Variant::kMatchedMixed, Variant::kNoFilters,
                        Variant::kUniformBloom20, Variant::kUniformRibbon20}) {
        const bool cost_case = v == Variant::kNoFilters || v == Variant::kUniformBloom20 ||
                               v == Variant::kUniformRibbon20;
        if (cost_case && (present || deep)) continue;
        if (deep && (v == Variant::kMatchedBloom || v == Variant::kMatchedMixed)) continue;
        const std::string name = absl::StrCat("BM_Get", kind, "_FilterMemory_",
                                              deep ? "DeepShape_" : "StandardShape_", NameOf(v));
        benchmark::RegisterBenchmark(name.c_str(), [deep, v, present](benchmark::State& s) {
          GetFilters(s, deep, v, present);
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
}

}  // namespace bench
}  // namespace lsmbloom
