// filter_memory_bench's lsmbloom engines: TableSets over the tree's tables
// read with FileAccess::kDirect and no block cache (every data block a Get
// reads is a device read), block_align and a hash index in each data block
// as lookup_bench's storage cases. Filters are in table memory, all of them
// resident:
//
//   LsmbloomMonkey    blocked Bloom, the cap split across levels for the
//                     fewest false-positive reads (AllocateFilterBitsPerKey
//                     at 5 bits/key, as fixture::BudgetedTableOptions);
//   LsmbloomUniform5  blocked Bloom at 5 bits/key in every level;
//   LsmbloomModular, LsmbloomModularHalf
//                     modular filters (ModuleBits) under the
//                     cap and half of it, the modules held chosen from the
//                     warm-up's counted accesses.

#include <sys/stat.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_format.h"
#include "bench/filter_memory_bench.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {
namespace bench {
namespace memory {
namespace {

// The level of the tree's bottom files (MemoryShape's first).
int BottomLevel() { return MemoryShape().front().level; }

// "L0:B9.1 L1:B8.2 ... filters 6.2 MB (5.0 bits/entry)": the allocation's
// kind and bits/key in each level that has files, and the memory held.
std::string LabelOf(const FilterAllocation& allocation, const LookupStats& stats) {
  std::string label;
  for (int l = 0; l < kNumLevels; ++l) {
    if (stats.levels[l].files == 0) continue;
    const LevelFilterAllocation& a = allocation.levels[l];
    absl::StrAppend(&label, "L", l, ":",
                    a.kind == FilterKind::kBlockedBloom ? "B"
                    : a.kind == FilterKind::kRibbon     ? "R"
                                                        : "-",
                    absl::StrFormat("%.1f", a.bits_per_key), " ");
  }
  absl::StrAppend(&label,
                  absl::StrFormat("filters %.2f MB (%.2f bits/entry)",
                                  stats.total_filter_bytes / 1e6,
                                  8.0 * stats.total_filter_bytes / TheData().entries));
  return label;
}

// Writes the tree with `options` per level into TheData().dir/<name>,
// its tables read back directly (no cache) into `set`. The paths of the
// tables, by file number, are <dir>/<n>.sst.
std::string WriteTree(const std::string& name, std::array<TableOptions, kNumLevels> options,
                      TableSet* set) {
  for (TableOptions& o : options) {
    o.data_block_hash_index = true;  // As lookup_bench's storage cases.
    o.block_align = true;            // A data block read directly is one page.
  }
  const std::string dir = absl::StrCat(TheData().dir, "/", name);
  ::mkdir(dir.c_str(), 0755);
  const Clock::time_point start = Clock::now();
  VersionEdit edit;
  absl::Status s =
      fixture::WriteTables(TheData().layout, dir, options, &edit, {}, FileAccess::kDirect);
  if (s.ok()) s = set->Apply(edit);
  if (!s.ok()) Die(absl::StrCat(name, ": ", s.message()));
  std::fprintf(stderr, "filter_memory_bench: wrote %s (%zu files) in %.1f s\n", name.c_str(),
               edit.added.size(), Seconds(start));
  return dir;
}

// A TableSet of tables whose filters are all resident.
class StaticEngine : public Engine {
 public:
  StaticEngine(const std::string& name, const FilterAllocation& allocation)
      : set_(LookupOptions()) {
    absl::StatusOr<std::array<TableOptions, kNumLevels>> options =
        fixture::TableOptionsFor(allocation);
    if (!options.ok()) Die(std::string(options.status().message()));
    dir_ = WriteTree(name, *options, &set_);
    label_ = LabelOf(allocation, set_.stats());
  }

  std::string Label() const override { return label_; }
  void Reset() override { set_.ResetStats(); }
  void StartCounting() override { set_.ResetStats(); }

  bool Get(std::string_view key) override {
    if (!set_.Get(key, &result_).ok()) Die("a lookup failed");
    return result_.kind == LookupResult::Kind::kFound;
  }

  Counts counts() const override {
    const LookupStats stats = set_.stats();
    Counts c;
    for (const LevelStats& l : stats.levels) {
      c.device_reads += l.file_reads;
      c.data_reads += l.data_block_reads;
      c.filter_false_positives += l.false_positives();
    }
    c.bottom_filter_checks = stats.levels[BottomLevel()].filters_checked;
    c.filter_bytes = stats.total_filter_bytes;
    return c;
  }

  const std::string& dir() const { return dir_; }

 private:
  TableSet set_;
  LookupResult result_;
  std::string dir_, label_;
};

FilterAllocation MonkeyAllocation() {
  absl::StatusOr<FilterAllocation> a =
      AllocateFilterBitsPerKey(fixture::FilterShapes(TheData().layout), kCapBitsPerKey);
  if (!a.ok()) Die(std::string(a.status().message()));
  return *std::move(a);
}

StaticEngine* Monkey() {
  static StaticEngine* e = new StaticEngine("LsmbloomMonkey", MonkeyAllocation());
  return e;
}

// The files of `dir` (as WriteTree wrote them) mapped: the cached regime.
// No counting, as a store that reads no stats would run. Modular filters
// under `cap_bytes` (0: none) hold what the uniform split gives (no
// counts: the cached regime's absent keys are uniform).
const TableSet* MapTree(const std::string& dir, uint64_t cap_bytes = 0) {
  LookupOptions options;
  options.count_stats = false;
  options.filter_memory_cap_bytes = cap_bytes;
  auto* set = new TableSet(options);
  VersionEdit edit;
  uint64_t file_number = 1;
  for (const fixture::FileSpec& f : TheData().layout) {
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
        OpenPosixFile(absl::StrCat(dir, "/", file_number, ".sst"), FileAccess::kMmap);
    if (!file.ok()) Die(std::string(file.status().message()));
    absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file));
    if (!table.ok()) Die(std::string(table.status().message()));
    edit.added.push_back({f.level, file_number++, std::move(*table)});
  }
  const absl::Status s = set->Apply(edit);
  if (!s.ok()) Die(std::string(s.message()));
  return set;
}

}  // namespace

Engine* LsmbloomMonkey() { return Monkey(); }

Engine* LsmbloomUniform5() {
  static Engine* e = [] {
    absl::StatusOr<FilterAllocation> a =
        UniformFilterAllocation(fixture::FilterShapes(TheData().layout), kCapBitsPerKey);
    if (!a.ok()) Die(std::string(a.status().message()));
    return new StaticEngine("LsmbloomUniform5", *a);
  }();
  return e;
}

const char* NameOf(CachedVariant v) {
  return v == CachedVariant::kMonkey ? "LsmbloomMonkey" : "LsmbloomModular";
}

namespace {

// The modules' bits/key in the bottom level and in the levels above it:
// LSMBLOOM_MEMORY_MODULES and LSMBLOOM_MEMORY_UPPER_MODULES ("1,2,2,2"),
// else 1, 1 and 7 of 2 in the bottom level (16 bits/key on disk), 6 and 6
// of 2 above (18). A small module 0 in the bottom level, which holds most
// keys, leaves more of a tight cap to the files whose lookups need it, and
// a second 1-bit module lets a bottom file hold 2, 4 or 6 bits/key near
// Monkey's 4.4 (1, 3 or 5 cost 1.2% more reads with uniform keys); a larger
// module 0 above, where every absent lookup checks a file, rejects most
// keys on its first line (an absent Get on cached tables took 2.3x
// Monkey's CPU with 1, 1, 7 x 2 everywhere). Modules of one size after
// module 0 are held interleaved.
std::vector<double> ModuleBits(bool bottom) {
  std::vector<double> bits = bottom ? std::vector<double>{1, 1, 2, 2, 2, 2, 2, 2, 2}
                                    : std::vector<double>{6, 2, 2, 2, 2, 2, 2};
  const char* name = bottom ? "LSMBLOOM_MEMORY_MODULES" : "LSMBLOOM_MEMORY_UPPER_MODULES";
  if (const char* v = std::getenv(name)) {
    bits.clear();
    for (absl::string_view part : absl::StrSplit(v, ',')) {
      double b = 0;
      if (!absl::SimpleAtod(part, &b)) Die(absl::StrCat(name, "=", v));
      bits.push_back(b);
    }
  }
  return bits;
}

// The modular variant: every level's tables written with modular filters of
// ModuleBits(), read directly, in a
// TableSet under `cap_bytes`. Each repetition starts from a fresh TableSet
// over the same tables (no counts, the uniform split), rebalances once after
// the warm-up from the accesses it counted, and counts the modules read then
// (one read each) with the measured lookups' reads.
class ModularEngine : public Engine {
 public:
  // Over `same_files`' tables if given (else written here); RebalanceFilter-
  // Memory also after every `rebalance_every` measured lookups, if not 0.
  ModularEngine(const std::string& name, uint64_t cap_bytes, uint64_t rebalance_every = 0,
                const ModularEngine* same_files = nullptr)
      : cap_bytes_(cap_bytes), rebalance_every_(rebalance_every) {
    if (same_files != nullptr) {
      dir_ = same_files->dir_;
      files_ = same_files->files_;
      Reset();
      return;
    }
    std::array<TableOptions, kNumLevels> options;
    for (int level = 0; level < kNumLevels; ++level) {
      ModularBloomOptions modular;
      modular.module_bits_per_key = ModuleBits(level == BottomLevel());
      absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy = NewModularBloomPolicy(modular);
      if (!policy.ok()) Die(std::string(policy.status().message()));
      options[level].filter_policy = *policy;
    }
    TableSet writer{LookupOptions()};
    dir_ = WriteTree(name, options, &writer);
    files_ = writer.files();
    Reset();
  }

  std::string Label() const override {
    const LookupStats stats = set_->stats();
    std::string label;
    for (int l = 0; l < kNumLevels; ++l) {
      if (stats.levels[l].files == 0) continue;
      absl::StrAppend(&label, "L", l, ":M", absl::StrFormat("%.1f", stats.levels[l].bits_per_key),
                      " ");
    }
    absl::StrAppend(&label, absl::StrFormat("filters %.2f MB (%.2f bits/entry, cap %.2f MB)",
                                            stats.total_filter_bytes / 1e6,
                                            8.0 * stats.total_filter_bytes / TheData().entries,
                                            cap_bytes_ / 1e6));
    return label;
  }

  void Reset() override {
    LookupOptions options;
    options.filter_memory_cap_bytes = cap_bytes_;
    set_ = std::make_unique<TableSet>(options);
    VersionEdit edit;
    for (const auto& level : files_) {
      for (const TableFile& f : level) edit.added.push_back(f);
    }
    const absl::Status s = set_->Apply(edit);
    if (!s.ok()) Die(std::string(s.message()));
    warmup_loads_ = 0;
  }

  void AfterWarmup() override {
    set_->ResetStats();
    set_->RebalanceFilterMemory();
    for (const LevelStats& l : set_->stats().levels) warmup_loads_ += l.filter_module_loads;
  }

  void StartCounting() override {
    set_->ResetStats();
    gets_ = 0;
  }

  bool Get(std::string_view key) override {
    if (rebalance_every_ != 0 && ++gets_ % rebalance_every_ == 0) set_->RebalanceFilterMemory();
    if (!set_->Get(key, &result_).ok()) Die("a lookup failed");
    return result_.kind == LookupResult::Kind::kFound;
  }

  Counts counts() const override {
    const LookupStats stats = set_->stats();
    Counts c;
    for (const LevelStats& l : stats.levels) {
      c.device_reads += l.file_reads + l.filter_module_loads;
      c.data_reads += l.data_block_reads;
      c.filter_false_positives += l.false_positives();
      c.filter_loads += l.filter_module_loads;
    }
    // The rebalance after the warm-up read these: charged to the measured
    // lookups, one device read per module.
    c.device_reads += warmup_loads_;
    c.filter_loads += warmup_loads_;
    c.bottom_filter_checks = stats.levels[BottomLevel()].filters_checked;
    c.filter_bytes = stats.total_filter_bytes;
    return c;
  }

  const std::string& dir() const { return dir_; }
  uint64_t cap_bytes() const { return cap_bytes_; }

 private:
  const uint64_t cap_bytes_;
  const uint64_t rebalance_every_;
  uint64_t gets_ = 0;
  std::string dir_;
  std::vector<std::vector<TableFile>> files_;
  std::unique_ptr<TableSet> set_;
  LookupResult result_;
  double warmup_loads_ = 0;
};

ModularEngine* Modular() {
  static ModularEngine* e = new ModularEngine("LsmbloomModular", CapBytes());
  return e;
}

}  // namespace

Engine* LsmbloomModular() { return Modular(); }

Engine* LsmbloomModularHalf() {
  static ModularEngine* e = new ModularEngine("LsmbloomModularHalf", CapBytes() / 2, 0, Modular());
  return e;
}

Engine* LsmbloomModularEvery8K() {
  static ModularEngine* e =
      new ModularEngine("LsmbloomModularEvery8K", CapBytes(), 8192, Modular());
  return e;
}

const TableSet* MappedSet(CachedVariant v) {
  if (v == CachedVariant::kModular) {
    static const TableSet* modular = MapTree(Modular()->dir(), Modular()->cap_bytes());
    return modular;
  }
  static const TableSet* monkey = MapTree(Monkey()->dir());
  return monkey;
}

}  // namespace memory
}  // namespace bench
}  // namespace lsmbloom
