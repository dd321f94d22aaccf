// Point lookups across an LSM tree: lsmbloom's TableSet against RocksDB
// (Debian's librocksdb, Bloom filter at 10 bits/key, block cache holding
// everything) and LevelDB (Bloom policy at 10 bits/key, same cache), loaded
// with the same entries in the same order (bottom level first, then newer
// versions and tombstones), each arranged into several levels of files.
//
// lsmbloom's files are laid out by tools/lsm_fixture, and RocksDB ingests
// the same files (same entries per file, same order), so both search the
// same shape. LevelDB cannot ingest files: it gets the same writes with small
// memtables and files, and its own compactions (which the benchmark waits
// for) build fewer, deeper files; its labels show the shape it ended with.
// 1,000,000 keys by default; LSMBLOOM_LOOKUP_KEYS sets another count
// (tools/run_bench.sh --lookup-keys 10000000).
//
// The filter-memory cases (BM_Get*_FilterMemory_*: uniform, budgeted and
// mixed Bloom/Ribbon filters, RocksDB with Ribbon) are in
// bench/lookup_filter_bench.cc.
//
// The cases on storage (Storage_*: tables read with O_DIRECT through a block
// cache of 5% of the data, RocksDB with direct reads) are in
// bench/storage_bench.cc.

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "bench/lookup_bench.h"
#include "bench/rocks_layout.h"
#include "benchmark/benchmark.h"
#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "lsmbloom/lookup/lookup.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "tools/lsm_fixture.h"

namespace lsmbloom {
namespace bench {
namespace {
constexpr size_t kBatch = 64;
}  // namespace

// 10^6 keys unless LSMBLOOM_LOOKUP_KEYS says otherwise (tools/run_bench.sh
// --lookup-keys), and never above LSMBLOOM_BENCH_MAX_KEYS.
uint64_t NumKeys() {
  static const uint64_t n = [] {
    uint64_t keys = 1000000;
    if (const char* v = std::getenv("LSMBLOOM_LOOKUP_KEYS"); v != nullptr && *v != '\0') {
      if (!absl::SimpleAtoi(v, &keys) || keys < 1000) {
        std::fprintf(stderr, "lookup_bench: LSMBLOOM_LOOKUP_KEYS=%s is not a count >= 1000\n", v);
        std::exit(2);
      }
      return keys;
    }
    return std::min<uint64_t>(MaxKeys(), keys);
  }();
  return n;
}

const Data& TheData() {
  static const Data* data = [] {
    auto* d = new Data;
    char tmpl[] = "/tmp/lsmbloom-lookup-bench-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) std::abort();
    d->dir = tmpl;
    // Leave no data behind: the stores are all in this directory.
    std::atexit([] {
      const std::string rm = "rm -rf " + TheData().dir;
      if (std::system(rm.c_str()) != 0) std::fprintf(stderr, "could not remove temp dir\n");
    });
    const uint64_t n = NumKeys();
    d->layout = fixture::MakeLayout(n, 42);
    std::mt19937_64 rng(9);
    for (size_t i = 0; i < kProbes; ++i) {
      d->present.push_back(fixture::KeyOf(2 * (rng() % n)));
      d->absent.push_back(fixture::KeyOf(2 * (rng() % n) + 1));
    }
    return d;
  }();
  return *data;
}

void Die(const std::string& what) {
  std::fprintf(stderr, "lookup_bench: %s\n", what.c_str());
  std::exit(1);
}

namespace {

// ---- lsmbloom ----

const TableSet& Ours() {
  static const TableSet* set = [] {
    // Counters off, as RocksDB's statistics and LevelDB's (none) are here.
    LookupOptions options;
    options.count_stats = false;
    auto* s = new TableSet(options);
    VersionEdit edit;
    const std::string dir = TheData().dir + "/lsmbloom";
    ::mkdir(dir.c_str(), 0755);
    TableOptions table;
    table.data_block_hash_index = true;  // As RocksDB's below.
    absl::Status st = fixture::WriteTables(TheData().layout, dir, table, &edit, {});
    if (st.ok()) st = s->Apply(edit);
    if (!st.ok()) Die(std::string(st.message()));
    return s;
  }();
  return *set;
}

// ---- RocksDB and LevelDB: same writes, their own compactions ----

template <typename Put>
void WriteAll(Put put) {
  for (const fixture::FileSpec& f : TheData().layout) {
    for (const fixture::Entry& e : f.entries) {
      put(fixture::KeyOf(e.id), e.tombstone, fixture::ValueOf(e.id, e.seq));
    }
  }
}

}  // namespace

rocksdb::Options RocksOptions(RocksFilter filter, std::shared_ptr<rocksdb::Cache> cache,
                              bool block_align) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.compression = rocksdb::kNoCompression;
  options.level0_slowdown_writes_trigger = 1000;
  options.level0_stop_writes_trigger = 1000;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(filter == RocksFilter::kRibbon10 ? rocksdb::NewRibbonFilterPolicy(10, 1)
                                                             : rocksdb::NewBloomFilterPolicy(10));
  // A hash index in each data block, at lsmbloom's two buckets per key.
  table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  table.data_block_hash_table_util_ratio = 0.5;
  table.block_cache = std::move(cache);
  table.block_align = block_align;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

// RocksDB gets the very same files (rocks_layout.h).
rocksdb::DB* OpenRocksWithLayout(const rocksdb::Options& options, const std::string& dir) {
  absl::StatusOr<rocksdb::DB*> db = IngestLayout(options, dir, TheData().layout);
  if (!db.ok()) Die(std::string(db.status().message()));
  return *db;
}

rocksdb::DB* Rocks(RocksFilter filter) {
  static rocksdb::DB* dbs[2] = {};
  rocksdb::DB*& db = dbs[static_cast<int>(filter)];
  if (db != nullptr) return db;
  const std::string dir =
      TheData().dir + (filter == RocksFilter::kRibbon10 ? "/rocksdb-ribbon" : "/rocksdb");
  db = OpenRocksWithLayout(RocksOptions(filter, rocksdb::NewLRUCache(size_t{2} << 30)), dir);
  return db;
}

namespace {

leveldb::DB* Level() {
  static leveldb::DB* db = [] {
    leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 4 << 20;
    options.max_file_size = 4 << 20;
    options.compression = leveldb::kNoCompression;
    options.filter_policy = leveldb::NewBloomFilterPolicy(10);
    options.block_cache = leveldb::NewLRUCache(size_t{2} << 30);
    options.max_open_files = 10000;
    leveldb::DB* d = nullptr;
    leveldb::Status s = leveldb::DB::Open(options, TheData().dir + "/leveldb", &d);
    if (!s.ok()) Die(s.ToString());
    WriteAll([&](const std::string& k, bool tombstone, const std::string& v) {
      leveldb::Status st =
          tombstone ? d->Delete(leveldb::WriteOptions(), k) : d->Put(leveldb::WriteOptions(), k, v);
      if (!st.ok()) Die(st.ToString());
    });
    // LevelDB has no "compactions pending" property: wait until the file
    // counts stop changing.
    std::string last, now;
    do {
      last = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      now.clear();
      for (int l = 0; l < 7; ++l) {
        std::string v;
        d->GetProperty(absl::StrCat("leveldb.num-files-at-level", l), &v);
        now += v + ",";
      }
    } while (now != last);
    return d;
  }();
  return db;
}

// Files per level, as a label: "L0:6 L1:6 ..." so the report shows the shape.
std::string OurShape() {
  std::string shape;
  const auto files = Ours().files();
  for (size_t l = 0; l < files.size(); ++l) {
    if (!files[l].empty()) absl::StrAppend(&shape, "L", l, ":", files[l].size(), " ");
  }
  return shape;
}

std::string RocksShape() {
  std::string shape;
  for (int l = 0; l < 7; ++l) {
    std::string v;
    Rocks()->GetProperty(absl::StrCat("rocksdb.num-files-at-level", l), &v);
    if (v != "0") absl::StrAppend(&shape, "L", l, ":", v, " ");
  }
  return shape;
}

std::string LevelShape() {
  std::string shape;
  for (int l = 0; l < 7; ++l) {
    std::string v;
    Level()->GetProperty(absl::StrCat("leveldb.num-files-at-level", l), &v);
    if (v != "0") absl::StrAppend(&shape, "L", l, ":", v, " ");
  }
  return shape;
}

const std::vector<std::string>& Probes(bool present) {
  return present ? TheData().present : TheData().absent;
}

// One LookupResult for the whole loop, as the peers' loops below keep one
// std::string for their values.
void GetOurs(benchmark::State& state, bool present) {
  const TableSet& set = Ours();
  const auto& keys = Probes(present);
  LookupResult result;
  size_t i = 0, found = 0;
  for (auto _ : state) {
    if (!set.Get(keys[i++ % kProbes], &result).ok()) Die("lookup failed");
    found += result.kind == LookupResult::Kind::kFound;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(OurShape());
}

void MultiGetOurs(benchmark::State& state, bool present) {
  const TableSet& set = Ours();
  const auto& keys = Probes(present);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  size_t i = 0, found = 0;
  for (auto _ : state) {
    for (const auto& r : set.MultiGet(absl::MakeConstSpan(&views[i], kBatch))) {
      found += r->kind == LookupResult::Kind::kFound;
    }
    i = (i + kBatch) % (kProbes - kBatch);
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetLabel(OurShape());
}

void GetRocks(benchmark::State& state, bool present) {
  rocksdb::DB* db = Rocks();
  const auto& keys = Probes(present);
  std::string value;
  size_t i = 0, found = 0;
  for (auto _ : state) found += db->Get(rocksdb::ReadOptions(), keys[i++ % kProbes], &value).ok();
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(RocksShape());
}

void MultiGetRocks(benchmark::State& state, bool present) {
  rocksdb::DB* db = Rocks();
  const auto& keys = Probes(present);
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(kBatch);
  std::vector<rocksdb::Status> statuses(kBatch);
  size_t i = 0, found = 0;
  for (auto _ : state) {
    db->MultiGet(rocksdb::ReadOptions(), db->DefaultColumnFamily(), kBatch, &slices[i],
                 values.data(), statuses.data());
    for (const auto& s : statuses) found += s.ok();
    i = (i + kBatch) % (kProbes - kBatch);
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetLabel(RocksShape());
}

void GetLevel(benchmark::State& state, bool present) {
  leveldb::DB* db = Level();
  const auto& keys = Probes(present);
  std::string value;
  size_t i = 0, found = 0;
  for (auto _ : state) found += db->Get(leveldb::ReadOptions(), keys[i++ % kProbes], &value).ok();
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(LevelShape());
}

// The floor: one dependent random load at a time over a buffer the size of
// all the filters of the LSM tree (a random cycle through its cache lines,
// 4 KiB pages as the mapped table files have), so an absent-key Get can be
// read as a number of such loads.
void LoadLatencyFloor(benchmark::State& state) {
  const size_t bytes = std::max<size_t>(Ours().stats().total_filter_bytes, 4096);
  const size_t lines = bytes / 64;
  std::vector<uint64_t> next(lines * 8);
  std::vector<uint64_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = i;
  uint64_t x = 42;
  for (size_t i = lines - 1; i > 0; --i) {  // Sattolo: one cycle through all.
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[i], order[(x >> 33) % i]);
  }
  for (size_t i = 0; i < lines; ++i) next[order[i] * 8] = order[(i + 1) % lines];
  uint64_t at = order[0];
  constexpr size_t kLoads = 1024;
  for (auto _ : state) {
    for (size_t i = 0; i < kLoads; ++i) at = next[at * 8];
  }
  benchmark::DoNotOptimize(at);
  state.SetItemsProcessed(state.iterations() * kLoads);
  state.counters["buffer_bytes"] = static_cast<double>(bytes);
}

// The other floor: independent random loads over the same buffer, as many in
// flight as the core allows, so a MultiGet (whose filter probes do not
// depend on one another) can be read as filter checks times this. The
// counter is the filter checks of an absent-key lookup in the benchmarks'
// tree, counted in an untimed pass.
void LoadThroughputFloor(benchmark::State& state) {
  const size_t bytes = std::max<size_t>(Ours().stats().total_filter_bytes, 4096);
  const size_t lines = bytes / 64;
  std::vector<uint64_t> buffer(lines * 8, 1);
  // Random lines, as many as the buffer has (so the loop does not cycle
  // through a cached subset), in whole runs of kLoads.
  constexpr size_t kLoads = 1024;
  std::vector<uint32_t> at((lines + kLoads - 1) / kLoads * kLoads);
  uint64_t x = 42;
  for (uint32_t& line : at) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    line = static_cast<uint32_t>((x >> 33) % lines);
  }
  size_t start = 0;
  uint64_t sum = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < kLoads; ++i) sum += buffer[at[start + i] * size_t{8}];
    start = (start + kLoads) % at.size();
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * kLoads);
  state.counters["buffer_bytes"] = static_cast<double>(bytes);

  // The same tables, in a set that counts.
  TableSet counted;
  VersionEdit edit;
  for (const std::vector<TableFile>& level : Ours().files()) {
    edit.added.insert(edit.added.end(), level.begin(), level.end());
  }
  if (!counted.Apply(edit).ok()) Die("cannot open the tables a second time");
  for (const std::string& k : TheData().absent) {
    if (!counted.Get(k).ok()) Die("lookup failed");
  }
  const LookupStats s = counted.stats();
  uint64_t checks = 0;
  for (const LevelStats& l : s.levels) checks += l.filters_checked;
  state.counters["filter_checks_per_absent_lookup"] = static_cast<double>(checks) / s.lookups;
}

}  // namespace

void RegisterAll() {
  benchmark::RegisterBenchmark("BM_LoadLatency_Floor", LoadLatencyFloor)
      ->Arg(static_cast<int64_t>(NumKeys()));
  benchmark::RegisterBenchmark("BM_LoadThroughput_Floor", LoadThroughputFloor)
      ->Arg(static_cast<int64_t>(NumKeys()));
  RegisterFilterMemory();
  RegisterStorage();
  for (bool present : {false, true}) {
    const std::string kind = present ? "Present" : "Absent";
    const uint64_t n = NumKeys();
    auto reg = [&](const std::string& name, void (*fn)(benchmark::State&, bool)) {
      benchmark::RegisterBenchmark(name.c_str(), [fn, present](benchmark::State& s) {
        fn(s, present);
      })->Arg(static_cast<int64_t>(n));
    };
    reg("BM_Get" + kind + "_Lsmbloom", GetOurs);
    reg("BM_Get" + kind + "_RocksDb", GetRocks);
    reg("BM_Get" + kind + "_LevelDb", GetLevel);
    reg("BM_MultiGet" + kind + "_Lsmbloom", MultiGetOurs);
    reg("BM_MultiGet" + kind + "_RocksDb", MultiGetRocks);
  }
}

}  // namespace bench
}  // namespace lsmbloom
