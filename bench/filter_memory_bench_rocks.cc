// filter_memory_bench's RocksDB engines: RocksDB 7.8 over the tree's files
// (each FileSpec written with SstFileWriter and ingested in order, so
// RocksDB places it as deep as it fits), use_direct_reads, block_align, a
// hash index in each data block, no compression, at the cap:
//
//   RocksOptimizeForHits  optimize_filters_for_hits: the bottom level's
//                         files written without a filter (SstFileWriter's
//                         skip_filters; ingested files have no level, so
//                         RocksDB would otherwise build them one) and never
//                         checked; Bloom in the other levels at the
//                         bits/key whose filters take the cap (at most 30),
//                         in table memory.
//   RocksPartitioned      Bloom at 10 bits/key in every level on disk,
//                         partition_filters with kTwoLevelIndexSearch,
//                         cache_index_and_filter_blocks: filter partitions
//                         compete in an LRU block cache of the cap plus the
//                         index partitions' bytes on disk (room for the
//                         index, which lsmbloom keeps in table memory; its
//                         misses are counted apart as index_loads),
//                         top-level indexes pinned. One LRU list holds
//                         both, so the filters may hold more than the cap
//                         where the index holds less than its bytes (or the
//                         reverse): filter_bytes and cached_index_bytes say
//                         what each held at the end.
//
// No data block is cached (as lsmbloom's, read with no cache): the block
// cache (MetadataOnlyCache) drops each data block when its lookup is done;
// BLOCK_CACHE_DATA_HIT stays 0 and each data block read is a
// BLOCK_CACHE_DATA_MISS.
// Device reads are the perf context's block_read_count (every block read
// from a file); per-level perf counters show the bottom level's filter
// checks.

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/filter_memory_bench.h"
#include "bench/rocks_layout.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"

namespace lsmbloom {
namespace bench {
namespace memory {
namespace {

// An LRU cache of index and filter blocks that keeps no data block.
// Blocks below high priority (every data block; index and filter blocks
// are inserted at high priority) go to a side cache instead, from which each
// is erased as soon as the lookup that read it releases it: RocksDB's Get
// fails if an insert does, so refusing them is not an option, and putting
// them in the LRU even briefly would evict filter partitions. Lookups search
// the LRU only, so no data block is ever found in the cache
// (BLOCK_CACHE_DATA_HIT stays 0: the cases check it).
class MetadataOnlyCache : public rocksdb::Cache {
 public:
  explicit MetadataOnlyCache(size_t capacity) {
    rocksdb::LRUCacheOptions options;
    options.capacity = capacity;
    options.num_shard_bits = 0;       // One LRU list: the capacity is exact.
    options.high_pri_pool_ratio = 0;  // Every entry high priority: plain LRU.
    lru_ = rocksdb::NewLRUCache(options);
    options.capacity = size_t{1} << 30;  // Never full: a lookup's blocks.
    side_ = rocksdb::NewLRUCache(options);
  }

  const char* Name() const override { return "MetadataOnlyCache"; }

  rocksdb::Status Insert(const rocksdb::Slice& key, void* value, size_t charge,
                         DeleterFn deleter, Handle** handle, Priority priority) override {
    if (!refusing_ || priority == Priority::HIGH) {
      Classify(deleter);
      return lru_->Insert(key, value, charge, deleter, handle, priority);
    }
    if (handle == nullptr) {  // As if inserted and evicted at once.
      deleter(key, value);
      return rocksdb::Status::OK();
    }
    const rocksdb::Status s = side_->Insert(key, value, charge, deleter, handle, priority);
    if (s.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      side_handles_.insert(*handle);
    }
    return s;
  }
  bool Release(Handle* handle, bool erase_if_last_ref) override {
    if (IsSide(handle)) {
      std::lock_guard<std::mutex> lock(mu_);
      const bool freed = side_->Release(handle, /*erase_if_last_ref=*/true);
      if (freed) side_handles_.erase(handle);
      return freed;
    }
    return lru_->Release(handle, erase_if_last_ref);
  }
  Handle* Lookup(const rocksdb::Slice& key, rocksdb::Statistics* stats) override {
    return lru_->Lookup(key, stats);
  }
  bool Ref(Handle* handle) override { return Of(handle)->Ref(handle); }
  void* Value(Handle* handle) override { return Of(handle)->Value(handle); }
  void Erase(const rocksdb::Slice& key) override { lru_->Erase(key); }
  uint64_t NewId() override { return lru_->NewId(); }
  void SetCapacity(size_t capacity) override { lru_->SetCapacity(capacity); }
  void SetStrictCapacityLimit(bool strict) override { lru_->SetStrictCapacityLimit(strict); }
  bool HasStrictCapacityLimit() const override { return lru_->HasStrictCapacityLimit(); }
  size_t GetCapacity() const override { return lru_->GetCapacity(); }
  size_t GetUsage() const override { return lru_->GetUsage(); }
  size_t GetUsage(Handle* handle) const override { return Of(handle)->GetUsage(handle); }
  size_t GetPinnedUsage() const override { return lru_->GetPinnedUsage(); }
  size_t GetCharge(Handle* handle) const override { return Of(handle)->GetCharge(handle); }
  DeleterFn GetDeleter(Handle* handle) const override { return Of(handle)->GetDeleter(handle); }
  void ApplyToAllEntries(
      const std::function<void(const rocksdb::Slice& key, void* value, size_t charge,
                               DeleterFn deleter)>& callback,
      const ApplyToAllEntriesOptions& options) override {
    lru_->ApplyToAllEntries(callback, options);
  }
  void EraseUnRefEntries() override { lru_->EraseUnRefEntries(); }

  // Off while RocksDB ingests the files.
  void set_refusing(bool refusing) { refusing_ = refusing; }
  // Data blocks a lookup still holds (0 between lookups).
  size_t side_usage() const { return side_->GetUsage(); }

  // The bytes the cache charges for filter blocks (partitions and their
  // top-level indexes) and for index blocks, now.
  struct Held {
    double filter_bytes = 0, index_bytes = 0;
  };
  Held held() {
    for (DeleterFn d : filter_deleters_) {
      if (index_deleters_.count(d) != 0) Die("a cache entry taken for both filter and index");
    }
    Held h;
    lru_->ApplyToAllEntries(
        [this, &h](const rocksdb::Slice&, void*, size_t charge, DeleterFn deleter) {
          std::lock_guard<std::mutex> lock(mu_);
          if (filter_deleters_.count(deleter) != 0) h.filter_bytes += charge;
          if (index_deleters_.count(deleter) != 0) h.index_bytes += charge;
        },
        ApplyToAllEntriesOptions());
    return h;
  }

 private:
  // Learns which kind of block `deleter` frees: RocksDB reads a block just
  // before inserting it, counting the read by kind in this thread's perf
  // context (which must count: PerfLevel::kEnableCount), and gives each
  // kind its own deleter.
  void Classify(DeleterFn deleter) {
    const rocksdb::PerfContext* perf = rocksdb::get_perf_context();
    std::lock_guard<std::mutex> lock(mu_);
    if (perf->filter_block_read_count != filter_reads_) filter_deleters_.insert(deleter);
    if (perf->index_block_read_count != index_reads_) index_deleters_.insert(deleter);
    filter_reads_ = perf->filter_block_read_count;
    index_reads_ = perf->index_block_read_count;
  }

  bool IsSide(Handle* handle) const {
    std::lock_guard<std::mutex> lock(mu_);
    return side_handles_.count(handle) != 0;
  }
  rocksdb::Cache* Of(Handle* handle) const {
    return IsSide(handle) ? side_.get() : lru_.get();
  }

  std::shared_ptr<rocksdb::Cache> lru_, side_;
  bool refusing_ = false;
  mutable std::mutex mu_;
  std::unordered_set<Handle*> side_handles_;
  std::unordered_set<DeleterFn> filter_deleters_, index_deleters_;
  uint64_t filter_reads_ = 0, index_reads_ = 0;
};

enum class RocksVariant { kOptimizeForHits, kPartitioned };

// The tickers and perf counters a case reads, at one moment.
struct Snapshot {
  uint64_t block_reads = 0, data_misses = 0, data_hits = 0, filter_misses = 0, index_misses = 0;
  uint64_t positives = 0, true_positives = 0, bottom_checks = 0;
};

class RocksEngine : public Engine {
 public:
  explicit RocksEngine(RocksVariant v) : variant_(v) {
    const bool partitioned = v == RocksVariant::kPartitioned;
    // Counted from the start, on this thread (the one every case runs on):
    // block reads by kind, which the cache learns its entries' kinds from,
    // and the bottom level's filter checks.
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->EnablePerLevelPerfContext();
    const std::string name = partitioned ? "RocksPartitioned" : "RocksOptimizeForHits";
    // Bloom bits/key: 10 on disk for partitions; for optimize-for-hits,
    // the cap spread over the entries above the bottom level, at most 30.
    uint64_t upper_entries = 0;
    const int bottom = MemoryShape().front().level;
    for (const fixture::FileSpec& f : TheData().layout) {
      if (f.level != bottom) upper_entries += f.entries.size();
    }
    bits_per_key_ = partitioned ? 10
                                : std::min(kMaxBitsPerKey, std::floor(100.0 * 8 * CapBytes() /
                                                                      upper_entries) / 100);
    cache_ = std::make_shared<MetadataOnlyCache>(partitioned ? CapBytes() : 0);

    rocksdb::Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    options.compression = rocksdb::kNoCompression;
    options.level0_slowdown_writes_trigger = 1000;
    options.level0_stop_writes_trigger = 1000;
    options.use_direct_reads = true;
    options.optimize_filters_for_hits = !partitioned;
    statistics_ = rocksdb::CreateDBStatistics();
    options.statistics = statistics_;
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(bits_per_key_));
    table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
    table.data_block_hash_table_util_ratio = 0.5;  // lsmbloom's two buckets per key.
    table.block_align = true;
    table.block_cache = cache_;
    if (partitioned) {
      table.partition_filters = true;
      table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
      table.cache_index_and_filter_blocks = true;
      table.pin_top_level_index_and_filter = true;
    }
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

    const Clock::time_point start = Clock::now();
    const std::string dir = absl::StrCat(TheData().dir, "/", name);
    absl::StatusOr<rocksdb::DB*> db =
        IngestLayout(options, dir, TheData().layout, [&](const fixture::FileSpec& f) {
          return !partitioned && f.level == bottom;
        });
    if (!db.ok()) Die(std::string(db.status().message()));
    db_ = *db;
    std::fprintf(stderr, "filter_memory_bench: wrote %s in %.1f s\n", name.c_str(),
                 Seconds(start));

    // The deepest level holding files: the bottom files' RocksDB level.
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    for (const rocksdb::LevelMetaData& l : meta.levels) {
      if (!l.files.empty()) bottom_level_ = l.level;
    }
    rocksdb::TablePropertiesCollection props;
    const rocksdb::Status s = db_->GetPropertiesOfAllTables(&props);
    if (!s.ok()) Die(s.ToString());
    for (const auto& [path, p] : props) {
      filter_disk_bytes_ += p->filter_size;
      index_disk_bytes_ += p->index_size;
    }
    if (partitioned) cache_->SetCapacity(CapBytes() + index_disk_bytes_);
    cache_->EraseUnRefEntries();
    cache_->set_refusing(true);
    label_ = partitioned
                 ? absl::StrFormat(
                       "Bloom 10 bits/key, %.2f MB of filters on disk; cache %.2f MB = cap "
                       "%.2f MB + index %.2f MB; levels L%d-L%d",
                       filter_disk_bytes_ / 1e6, cache_->GetCapacity() / 1e6, CapBytes() / 1e6,
                       index_disk_bytes_ / 1e6, meta.levels.front().level, bottom_level_)
                 : absl::StrFormat(
                       "Bloom %.2f bits/key above L%d (capped at %.0f), none in L%d; "
                       "filters %.2f MB in memory",
                       bits_per_key_, bottom_level_, kMaxBitsPerKey, bottom_level_,
                       filter_disk_bytes_ / 1e6);
  }

  std::string Label() const override { return label_; }

  void Reset() override { cache_->EraseUnRefEntries(); }

  void StartCounting() override { start_ = Now(); }

  bool Get(std::string_view key) override {
    const rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), &value_);
    if (!s.ok() && !s.IsNotFound()) Die(s.ToString());
    return s.ok();
  }

  Counts counts() const override {
    const Snapshot now = Now();
    Counts c;
    c.device_reads = now.block_reads - start_.block_reads;
    c.data_reads = now.data_misses - start_.data_misses;
    c.data_block_hits = now.data_hits - start_.data_hits;
    if (cache_->side_usage() != 0) Die("a data block outlived its lookup in the cache");
    c.filter_false_positives =
        (now.positives - start_.positives) - (now.true_positives - start_.true_positives);
    c.filter_loads = now.filter_misses - start_.filter_misses;
    c.index_loads = now.index_misses - start_.index_misses;
    c.bottom_filter_checks = now.bottom_checks - start_.bottom_checks;
    if (variant_ == RocksVariant::kPartitioned) {
      const MetadataOnlyCache::Held held = cache_->held();
      c.filter_bytes = held.filter_bytes;
      c.cached_index_bytes = held.index_bytes;
    } else {
      c.filter_bytes = static_cast<double>(filter_disk_bytes_);
    }
    return c;
  }

 private:
  static constexpr double kMaxBitsPerKey = 30;

  Snapshot Now() const {
    Snapshot s;
    const rocksdb::PerfContext* perf = rocksdb::get_perf_context();
    s.block_reads = perf->block_read_count;
    if (perf->level_to_perf_context != nullptr) {
      const auto it = perf->level_to_perf_context->find(bottom_level_);
      if (it != perf->level_to_perf_context->end()) {
        s.bottom_checks = it->second.bloom_filter_useful + it->second.bloom_filter_full_positive;
      }
    }
    s.data_misses = statistics_->getTickerCount(rocksdb::BLOCK_CACHE_DATA_MISS);
    s.data_hits = statistics_->getTickerCount(rocksdb::BLOCK_CACHE_DATA_HIT);
    s.filter_misses = statistics_->getTickerCount(rocksdb::BLOCK_CACHE_FILTER_MISS);
    s.index_misses = statistics_->getTickerCount(rocksdb::BLOCK_CACHE_INDEX_MISS);
    s.positives = statistics_->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE);
    s.true_positives = statistics_->getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
    return s;
  }

  RocksVariant variant_;
  double bits_per_key_ = 0;
  std::shared_ptr<MetadataOnlyCache> cache_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  rocksdb::DB* db_ = nullptr;
  int bottom_level_ = 0;
  uint64_t filter_disk_bytes_ = 0, index_disk_bytes_ = 0;
  std::string label_, value_;
  Snapshot start_;
};

}  // namespace

Engine* RocksOptimizeForHits() {
  static Engine* e = new RocksEngine(RocksVariant::kOptimizeForHits);
  return e;
}

Engine* RocksPartitioned() {
  static Engine* e = new RocksEngine(RocksVariant::kPartitioned);
  return e;
}

}  // namespace memory
}  // namespace bench
}  // namespace lsmbloom
