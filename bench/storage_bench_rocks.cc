// The storage cases' RocksDB side: RocksDB 7.8 over the same files
// (OpenRocksWithLayout, in directories of their own), use_direct_reads,
// block_align, an LRU cache of the same capacity as lsmbloom's, filters and
// indexes in table memory; device reads from its statistics.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/storage_bench.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"

namespace lsmbloom {
namespace bench {
namespace storage {
namespace {

struct RocksDirect {
  rocksdb::DB* db = nullptr;
  std::shared_ptr<rocksdb::Cache> cache;
  std::shared_ptr<rocksdb::Statistics> statistics;
};

RocksDirect& RocksDirectOf(RocksFilter f) {
  static std::map<RocksFilter, RocksDirect*> dbs;
  RocksDirect*& r = dbs[f];
  if (r != nullptr) return *r;
  r = new RocksDirect;
  r->cache = rocksdb::NewLRUCache(CacheBytes());
  // Filters in table memory; blocks aligned to pages, as lsmbloom's here.
  rocksdb::Options options = RocksOptions(f, r->cache, /*block_align=*/true);
  options.use_direct_reads = true;
  options.use_direct_io_for_flush_and_compaction = false;
  r->statistics = rocksdb::CreateDBStatistics();
  options.statistics = r->statistics;
  r->db = OpenRocksWithLayout(options, absl::StrCat(TheData().dir, "/storage-rocksdb-",
                                                    f == RocksFilter::kRibbon10 ? "ribbon" : "bloom"));
  return *r;
}

// The data-block counts of RocksDB's statistics since `before`.
struct RocksCounts {
  uint64_t misses, hits;
};
RocksCounts CountsOf(const RocksDirect& r) {
  return {r.statistics->getTickerCount(rocksdb::BLOCK_CACHE_DATA_MISS),
          r.statistics->getTickerCount(rocksdb::BLOCK_CACHE_DATA_HIT)};
}

void SetRocksCounters(benchmark::State& state, const RocksDirect& r, const RocksCounts& before,
                      double seconds, double keys, size_t found) {
  const RocksCounts after = CountsOf(r);
  const double misses = after.misses - before.misses, hits = after.hits - before.hits;
  SetCounters(state, seconds, keys, misses, hits + misses > 0 ? hits / (hits + misses) : 0,
              static_cast<double>(found));
  state.SetLabel(absl::StrCat("cache ", absl::SixDigits(r.cache->GetCapacity() / 1e6), "MB"));
}

void WarmRocks(RocksDirect& r, const std::vector<std::string>& keys) {
  r.cache->EraseUnRefEntries();
  std::string value;
  for (size_t i = 0; i < WarmLookups(); ++i) r.db->Get(rocksdb::ReadOptions(), keys[i], &value);
}

}  // namespace

void GetRocks(benchmark::State& state, RocksFilter f, Keys k) {
  if (Skipped(state)) return;
  RocksDirect& r = RocksDirectOf(f);
  const std::vector<std::string>& keys = KeysOf(k);
  WarmRocks(r, keys);
  std::string value;
  size_t i = WarmLookups(), found = 0;
  const RocksCounts before = CountsOf(r);
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    const rocksdb::Status s = r.db->Get(rocksdb::ReadOptions(), keys[i++], &value);
    if (!s.ok() && !s.IsNotFound()) Die(s.ToString());
    found += s.ok();
  }
  SetRocksCounters(state, r, before, Seconds(start), static_cast<double>(state.iterations()),
                   found);
}

void MultiGetRocks(benchmark::State& state, RocksFilter f) {
  if (Skipped(state)) return;
  RocksDirect& r = RocksDirectOf(f);
  const std::vector<std::string>& keys = KeysOf(Keys::kPresent);
  WarmRocks(r, keys);
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(kBatch);
  std::vector<rocksdb::Status> statuses(kBatch);
  size_t i = WarmLookups(), found = 0;
  const RocksCounts before = CountsOf(r);
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    r.db->MultiGet(rocksdb::ReadOptions(), r.db->DefaultColumnFamily(), kBatch, &slices[i],
                   values.data(), statuses.data());
    for (const rocksdb::Status& s : statuses) {
      if (!s.ok() && !s.IsNotFound()) Die(s.ToString());
      found += s.ok();
    }
    i += kBatch;
  }
  SetRocksCounters(state, r, before, Seconds(start),
                   static_cast<double>(state.iterations()) * kBatch, found);
}

}  // namespace storage
}  // namespace bench
}  // namespace lsmbloom
