// lookup_bench's cases on storage (Storage_*): the standard tree read with
// FileAccess::kDirect, every data block a lookup needs coming from a block
// cache of 5% of the data (the tables' file sizes summed) or from the
// device, filters and indexes in table memory. Trees:
//
//   LsmbloomBloom10        blocked Bloom at 10 bits/key in every level;
//   LsmbloomBudgeted       that memory split across levels for the fewest
//                          false-positive reads (Bloom, kFalsePositiveReads);
//   LsmbloomBudgetedTime   the same memory, Bloom or Ribbon per level for the
//                          least lookup time (kLookupTime), a false-positive
//                          read costing the device read measured here;
//   RocksDbBloom10         RocksDB 7.8 on the same files (Rocks()'s ingest,
//   RocksDbRibbon10        in directories of their own), use_direct_reads,
//                          an LRU cache of the same capacity, filters and
//                          indexes in table memory.
//
// LevelDB is left out: it cannot read around the page cache.
//
// Keys: absent, present, and mixed (half absent), each uniform or, for the
// present and mixed ones, Zipfian (theta 0.99 over the key ranks, the ranks
// scattered over the key space so hot keys are not neighbours). Each case
// empties its cache, warms it with lookups of its own key distribution
// (4 lookups per block the cache holds), then times a fixed number of
// lookups: device reads take tens of microseconds, so iterations are set,
// not grown to a minimum time, and time is wall time (UseRealTime), as
// lookups wait on the device rather than spend CPU.
//
// Counters: us_per_key (wall time per key, for MultiGet too),
// reads_per_key (device reads: lsmbloom's LevelStats::file_reads, RocksDB's
// BLOCK_CACHE_DATA_MISS), cache_hit_rate (data blocks), found (the share
// of keys found, the same for every engine on the same keys).
// Storage_DeviceRead4KiB is the device alone: one random 4 KiB O_DIRECT
// pread of a table file at a time.


#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/lookup_bench.h"
#include "bench/storage_bench.h"
#include "benchmark/benchmark.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/block_cache.h"

namespace lsmbloom {
namespace bench {
namespace storage {
namespace {

// ---- lsmbloom ----

enum class Variant { kBloom10, kBudgeted, kBudgetedTime };

const char* NameOf(Variant v) {
  switch (v) {
    case Variant::kBloom10:
      return "LsmbloomBloom10";
    case Variant::kBudgeted:
      return "LsmbloomBudgeted";
    case Variant::kBudgetedTime:
      return "LsmbloomBudgetedTime";
  }
  return "?";
}

// One tree's tables read directly, through one cache, in two sets: MultiGet
// reading in flight (the set Get cases use too), and one after another.
struct Tree {
  std::vector<std::string> paths;
  uint64_t data_bytes = 0;
  std::shared_ptr<BlockCache> cache;
  std::unique_ptr<TableSet> set, serial_set;
  // The same files mapped (FileAccess::kMmap), no cache: the warm case's peer.
  std::unique_ptr<TableSet> mapped_set;
  std::string label;
};

double DirectReadNs();

Tree& TreeOf(Variant v) {
  static std::map<Variant, Tree*> trees;
  Tree*& t = trees[v];
  if (t != nullptr) return *t;
  t = new Tree;
  const std::vector<fixture::FileSpec>& layout = TheData().layout;
  FilterAllocation allocation;
  absl::StatusOr<std::array<TableOptions, kNumLevels>> options;
  if (v == Variant::kBloom10) {
    absl::StatusOr<FilterAllocation> a =
        UniformFilterAllocation(fixture::FilterShapes(layout), 10);
    if (!a.ok()) Die(std::string(a.status().message()));
    allocation = *std::move(a);
    options = fixture::TableOptionsFor(allocation);
  } else {
    FilterBudgetOptions budget;
    if (v == Variant::kBudgetedTime) {
      budget.allow_ribbon = true;
      budget.objective = FilterObjective::kLookupTime;
      budget.false_positive_read_ns = DirectReadNs();
    }
    options = fixture::BudgetedTableOptions(layout, 10, &allocation, budget);
  }
  if (!options.ok()) Die(std::string(options.status().message()));
  for (TableOptions& o : *options) {
    o.data_block_hash_index = true;  // As lookup_bench's.
    o.block_align = true;            // A block read directly reads one page.
  }
  const std::string dir = absl::StrCat(TheData().dir, "/storage-", NameOf(v));
  ::mkdir(dir.c_str(), 0755);
  // Written and read back through pread (cheaply: only to learn the sizes),
  // then opened again directly, with a cache sized from the Bloom10 tree.
  VersionEdit written;
  absl::Status st = fixture::WriteTables(layout, dir, *options, &written, {}, FileAccess::kPread);
  if (!st.ok()) Die(std::string(st.message()));
  for (const TableFile& f : written.added) t->data_bytes += f.table->file_size();
  BlockCacheOptions cache_options;
  cache_options.capacity_bytes = v == Variant::kBloom10
                                     ? static_cast<uint64_t>(kCacheShare * t->data_bytes)
                                     : CacheBytes();
  absl::StatusOr<std::shared_ptr<BlockCache>> cache = BlockCache::Create(cache_options);
  if (!cache.ok()) Die(std::string(cache.status().message()));
  t->cache = *std::move(cache);
  TableReadOptions read;
  read.block_cache = t->cache;
  VersionEdit edit;
  for (const TableFile& f : written.added) {
    const std::string path = absl::StrCat(dir, "/", f.file_number, ".sst");
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
        OpenPosixFile(path, FileAccess::kDirect);
    if (!file.ok()) Die(std::string(file.status().message()));
    absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file), read);
    if (!table.ok()) Die(std::string(table.status().message()));
    edit.added.push_back({f.level, f.file_number, std::move(*table)});
    t->paths.push_back(path);
  }
  VersionEdit mapped;
  for (const TableFile& f : written.added) {
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
        OpenPosixFile(absl::StrCat(dir, "/", f.file_number, ".sst"), FileAccess::kMmap);
    if (!file.ok()) Die(std::string(file.status().message()));
    absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file));
    if (!table.ok()) Die(std::string(table.status().message()));
    mapped.added.push_back({f.level, f.file_number, std::move(*table)});
  }
  LookupOptions lookup;  // Counting: a few atomic adds beside a device read.
  t->set = std::make_unique<TableSet>(lookup);
  lookup.multiget_reads = LookupOptions::StorageReads::kOneAfterAnother;
  t->serial_set = std::make_unique<TableSet>(lookup);
  t->mapped_set = std::make_unique<TableSet>(LookupOptions());
  st = t->set->Apply(edit);
  if (st.ok()) st = t->serial_set->Apply(edit);
  if (st.ok()) st = t->mapped_set->Apply(mapped);
  if (!st.ok()) Die(std::string(st.message()));
  // "L0:B10 L1:B12.3 ...": each level's filter kind and bits/key.
  for (int l = 0; l < kNumLevels; ++l) {
    const LevelFilterAllocation& a = allocation.levels[l];
    if (t->set->stats().levels[l].files == 0) continue;
    absl::StrAppend(&t->label, "L", l, ":",
                    a.kind == FilterKind::kRibbon         ? "R"
                    : a.kind == FilterKind::kBlockedBloom ? "B"
                                                          : "-",
                    absl::SixDigits(a.bits_per_key), " ");
  }
  absl::StrAppend(&t->label, "cache ", absl::SixDigits(t->cache->capacity() / 1e6), "MB of ",
                  absl::SixDigits(t->data_bytes / 1e6), "MB");
  return *t;
}

}  // namespace

// 5% of the Bloom10 tree's data, for every engine.
uint64_t CacheBytes() { return TreeOf(Variant::kBloom10).cache->capacity(); }

size_t WarmLookups() { return std::max<size_t>(4096, 4 * CacheBytes() / 4096); }

namespace {

// ---- The device ----

// Random 4 KiB-aligned blocks of the Bloom10 tree's files (each file's share
// by its size), read with O_DIRECT into an aligned buffer.
class DeviceReader {
 public:
  DeviceReader() {
    for (const std::string& path : TreeOf(Variant::kBloom10).paths) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
      if (fd < 0) Die("cannot open " + path + " with O_DIRECT");
      struct stat s;
      if (::fstat(fd, &s) != 0) Die("cannot stat " + path);
      fds_.push_back(fd);
      blocks_ += static_cast<uint64_t>(s.st_size) / 4096;
      ends_.push_back(blocks_);
    }
    if (::posix_memalign(&buffer_, 4096, 4096) != 0) Die("no aligned buffer");
  }
  ~DeviceReader() {
    for (int fd : fds_) ::close(fd);
    ::free(buffer_);
  }

  void ReadOne(std::mt19937_64& rng) {
    const uint64_t block = rng() % blocks_;
    const size_t f = std::upper_bound(ends_.begin(), ends_.end(), block) - ends_.begin();
    const uint64_t first = f == 0 ? 0 : ends_[f - 1];
    if (::pread(fds_[f], buffer_, 4096, static_cast<off_t>((block - first) * 4096)) != 4096) {
      Die("a direct read failed");
    }
  }

 private:
  std::vector<int> fds_;
  std::vector<uint64_t> ends_;  // Blocks up to and including each file.
  uint64_t blocks_ = 0;
  void* buffer_ = nullptr;
};

const Table& LargestTable();

// What a false-positive read that the cache misses costs, for the
// BudgetedTime tree's objective: the library's own calibration on the
// Bloom10 tree's largest file (untimed), as a store would run it.
double DirectReadNs() {
  static const double ns = [] {
    absl::StatusOr<double> measured = MeasureFalsePositiveReadNanos(LargestTable(), 2000);
    if (!measured.ok()) Die(std::string(measured.status().message()));
    return *measured;
  }();
  return ns;
}

// The largest table of the Bloom10 tree (a bottom-level file).
const Table& LargestTable() {
  const std::vector<std::vector<TableFile>> levels = TreeOf(Variant::kBloom10).set->files();
  const Table* largest = nullptr;
  for (const auto& level : levels) {
    for (const TableFile& f : level) {
      if (largest == nullptr || f.table->file_size() > largest->file_size()) largest = f.table.get();
    }
  }
  if (largest == nullptr) Die("no table");
  return *largest;  // The tree, and so its tables, live to the end.
}

// What the library's calibration measures (MeasureFalsePositiveReadNanos):
// the median of whole data-block reads through a table's own file, the
// read a Get makes, reported as us_per_key (one iteration of many reads).
void ReadDataBlock(benchmark::State& state) {
  if (Skipped(state)) return;
  double ns = 0;
  for (auto _ : state) {
    absl::StatusOr<double> measured = MeasureFalsePositiveReadNanos(LargestTable(), 4096);
    if (!measured.ok()) Die(std::string(measured.status().message()));
    ns = *measured;
  }
  state.counters["us_per_key"] = ns / 1000;
}

void DeviceRead(benchmark::State& state) {
  if (Skipped(state)) return;
  DeviceReader reader;
  std::mt19937_64 rng(8);
  const Clock::time_point start = Clock::now();
  for (auto _ : state) reader.ReadOne(rng);
  state.counters["us_per_key"] = Seconds(start) * 1e6 / state.iterations();
  state.SetItemsProcessed(state.iterations());
}

// ---- Cases ----

// What `set` counted since the warm-up, over `keys` lookups.
void SetOurCounters(benchmark::State& state, const Tree& t, const TableSet& set, double seconds,
                    double keys, size_t found) {
  const LookupStats s = set.stats();
  SetCounters(state, seconds, keys, s.file_reads_per_lookup() * s.lookups,
              s.block_cache_hit_rate(), static_cast<double>(found));
  state.counters["lookups_counted"] = static_cast<double>(s.lookups) / keys;
  state.SetLabel(t.label);
}

// Empties the cache and warms it with the first WarmLookups() keys.
void Warm(Tree& t, const std::vector<std::string>& keys) {
  t.cache->Clear();
  LookupResult result;
  for (size_t i = 0; i < WarmLookups(); ++i) {
    if (!t.set->Get(keys[i], &result).ok()) Die("lookup failed");
  }
  t.set->ResetStats();
  t.serial_set->ResetStats();
}

void GetOurs(benchmark::State& state, Variant v, Keys k) {
  if (Skipped(state)) return;
  Tree& t = TreeOf(v);
  const std::vector<std::string>& keys = KeysOf(k);
  Warm(t, keys);
  LookupResult result;
  size_t i = WarmLookups(), found = 0;
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    if (!t.set->Get(keys[i++], &result).ok()) Die("lookup failed");
    found += result.kind == LookupResult::Kind::kFound;
  }
  const double seconds = Seconds(start);
  if (k == Keys::kAbsent && found != 0) Die("an absent key was found");
  SetOurCounters(state, t, *t.set, seconds, static_cast<double>(state.iterations()), found);
}

// A working set that fits the cache: kWarmKeys present keys, over and
// over, through direct reads and the cache (all hits once warm), or the
// same files mapped and in the page cache.
constexpr size_t kWarmKeys = 256;

void GetWarmOurs(benchmark::State& state, bool mapped) {
  if (Skipped(state)) return;
  Tree& t = TreeOf(Variant::kBloom10);
  const std::vector<std::string>& keys = KeysOf(Keys::kPresent);
  TableSet& set = mapped ? *t.mapped_set : *t.set;
  LookupResult result;
  t.cache->Clear();
  for (int round = 0; round < 2; ++round) {  // Warms the cache, or the page cache.
    for (size_t i = 0; i < kWarmKeys; ++i) {
      if (!set.Get(keys[i], &result).ok()) Die("lookup failed");
    }
  }
  set.ResetStats();
  size_t i = 0, found = 0;
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    if (!set.Get(keys[i++ % kWarmKeys], &result).ok()) Die("lookup failed");
    found += result.kind == LookupResult::Kind::kFound;
  }
  SetOurCounters(state, t, set, Seconds(start), static_cast<double>(state.iterations()), found);
}

// kBatch present keys an iteration: one MultiGet (reads in flight, or one
// after another), or kBatch single Gets of the same keys.
enum class Batch { kInFlight, kOneAfterAnother, kSingleGets };

void BatchOurs(benchmark::State& state, Variant v, Batch b) {
  if (Skipped(state)) return;
  Tree& t = TreeOf(v);
  const std::vector<std::string>& keys = KeysOf(Keys::kPresent);
  Warm(t, keys);
  const TableSet& set = b == Batch::kOneAfterAnother ? *t.serial_set : *t.set;
  std::vector<std::string_view> views(keys.begin(), keys.end());
  LookupResult result;
  size_t i = WarmLookups(), found = 0;
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    const absl::Span<const std::string_view> batch(&views[i], kBatch);
    if (b == Batch::kSingleGets) {
      for (std::string_view key : batch) {
        if (!set.Get(key, &result).ok()) Die("lookup failed");
        found += result.kind == LookupResult::Kind::kFound;
      }
    } else {
      for (const auto& r : set.MultiGet(batch)) {
        if (!r.ok()) Die("lookup failed");
        found += r->kind == LookupResult::Kind::kFound;
      }
    }
    i += kBatch;
  }
  const double seconds = Seconds(start);
  SetOurCounters(state, t, set, seconds, static_cast<double>(state.iterations()) * kBatch, found);
}

}  // namespace
}  // namespace storage

void RegisterStorage() {
  using namespace storage;  // NOLINT: this file's cases.
  const int64_t n = static_cast<int64_t>(NumKeys());
  benchmark::RegisterBenchmark("Storage_DeviceRead4KiB", DeviceRead)
      ->Arg(n)
      ->Iterations(Iterations(kDeviceReads))
      ->UseRealTime();
  benchmark::RegisterBenchmark("Storage_ReadDataBlock_LsmbloomBloom10", ReadDataBlock)
      ->Arg(n)
      ->Iterations(1)
      ->UseRealTime();
  const Keys all_keys[] = {Keys::kAbsent, Keys::kPresent, Keys::kPresentZipf, Keys::kMixed,
                           Keys::kMixedZipf};
  for (Keys k : all_keys) {
    for (Variant v : {Variant::kBloom10, Variant::kBudgeted, Variant::kBudgetedTime}) {
      benchmark::RegisterBenchmark(absl::StrCat("Storage_Get", NameOf(k), "_", NameOf(v)).c_str(),
                                   [v, k](benchmark::State& s) { GetOurs(s, v, k); })
          ->Arg(n)
          ->Iterations(Iterations(kGets))
          ->UseRealTime();
    }
    for (RocksFilter f : {RocksFilter::kBloom10, RocksFilter::kRibbon10}) {
      const char* name = f == RocksFilter::kRibbon10 ? "RocksDbRibbon10" : "RocksDbBloom10";
      benchmark::RegisterBenchmark(absl::StrCat("Storage_Get", NameOf(k), "_", name).c_str(),
                                   [f, k](benchmark::State& s) { GetRocks(s, f, k); })
          ->Arg(n)
          ->Iterations(Iterations(kGets))
          ->UseRealTime();
    }
  }
  for (bool mapped : {false, true}) {
    benchmark::RegisterBenchmark(
        mapped ? "Storage_GetPresentWarm_LsmbloomMapped" : "Storage_GetPresentWarm_LsmbloomBloom10",
        [mapped](benchmark::State& s) { GetWarmOurs(s, mapped); })
        ->Arg(n)
        ->Iterations(Iterations(kGets))
        ->UseRealTime();
  }
  // kBatch present keys (uniform) an iteration.
  for (Variant v : {Variant::kBloom10, Variant::kBudgeted, Variant::kBudgetedTime}) {
    for (Batch b : {Batch::kInFlight, Batch::kOneAfterAnother, Batch::kSingleGets}) {
      const char* how = b == Batch::kInFlight          ? "MultiGet32InFlight"
                        : b == Batch::kOneAfterAnother ? "MultiGet32OneAfterAnother"
                                                       : "Get32";
      benchmark::RegisterBenchmark(absl::StrCat("Storage_", how, "_", NameOf(v)).c_str(),
                                   [v, b](benchmark::State& s) { BatchOurs(s, v, b); })
          ->Arg(n)
          ->Iterations(Iterations(kBatches))
          ->UseRealTime();
    }
  }
  for (RocksFilter f : {RocksFilter::kBloom10, RocksFilter::kRibbon10}) {
    const char* name = f == RocksFilter::kRibbon10 ? "RocksDbRibbon10" : "RocksDbBloom10";
    benchmark::RegisterBenchmark(absl::StrCat("Storage_MultiGet32_", name).c_str(),
                                 [f](benchmark::State& s) { MultiGetRocks(s, f); })
        ->Arg(n)
        ->Iterations(Iterations(kBatches))
        ->UseRealTime();
  }
}

}  // namespace bench
}  // namespace lsmbloom
