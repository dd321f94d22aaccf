// What tables do with a BlockCache (lsmbloom/table/block_cache.h): look a
// data block up, insert one they read, and charge their own memory. Private
// to src/table.

#ifndef LSMBLOOM_SRC_TABLE_BLOCK_CACHE_IMPL_H_
#define LSMBLOOM_SRC_TABLE_BLOCK_CACHE_IMPL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lsmbloom/table/block_cache.h"
#include "src/table/block.h"

namespace lsmbloom {
namespace internal {

struct BlockCacheKey {
  uint64_t table_id = 0;   // BlockCacheImpl::NewTableId(): one per open table.
  uint64_t unique_id = 0;  // Table::unique_id().
  uint64_t offset = 0;     // The block's.
  bool operator==(const BlockCacheKey& o) const {
    return table_id == o.table_id && unique_id == o.unique_id && offset == o.offset;
  }
};

class BlockCacheImpl {
 public:
  BlockCacheImpl(uint64_t capacity, int shard_bits, bool strict_capacity_limit);

  static BlockCacheImpl& Of(const BlockCache& cache) { return *cache.impl_; }

  // An id no other table opened with this cache has (never 0).
  uint64_t NewTableId() { return next_table_id_.fetch_add(1, std::memory_order_relaxed); }

  // The block cached under `key`, or null (a miss). Counts the hit or miss.
  std::shared_ptr<const Block> Lookup(const BlockCacheKey& key);
  // Caches `block` under `key`, charged `charge` bytes, evicting the least
  // recently used blocks of its shard until it fits the shard's limit (read
  // under the shard's lock); a block larger than the limit is not cached.
  // Returns the block to use: `block`, or the one another thread cached
  // under `key` first.
  std::shared_ptr<const Block> Insert(const BlockCacheKey& key, std::shared_ptr<const Block> block,
                                      size_t charge);
  // Charges `bytes` of table memory, evicting data blocks first so that
  // usage never passes max(capacity, table memory charged). False, and
  // nothing charged, when the cache is strict and the charge would pass
  // capacity. Release gives back what Reserve charged.
  bool Reserve(uint64_t bytes);
  void Release(uint64_t bytes);

  uint64_t capacity() const { return capacity_; }
  int num_shards() const { return static_cast<int>(num_shards_); }
  BlockCacheStats stats() const;
  void ResetStats();
  void Clear();

  // What a block costs the cache: its bytes and the entry that holds it.
  static size_t ChargeOf(const Block& block);

 private:
  struct Entry {
    BlockCacheKey key;
    std::shared_ptr<const Block> block;
    size_t charge;
    bool hit;  // Looked up since it was inserted: in `protected_lru`.
  };
  struct KeyHash {
    size_t operator()(const BlockCacheKey& k) const;
  };
  // Two LRU lists, most recent first: a block enters `probation` and moves
  // to `protected_lru` on its first hit; protected blocks over their share
  // of the shard fall back to the head of probation. Eviction takes
  // probation's tail first, so a burst of blocks read once (a scan of cold
  // keys, false-positive reads) cannot flush the blocks that were hit.
  struct alignas(64) Shard {
    std::mutex mu;
    std::list<Entry> probation, protected_lru;
    std::unordered_map<BlockCacheKey, std::list<Entry>::iterator, KeyHash> map;
    uint64_t usage = 0, protected_usage = 0;
    // Its share of what table memory leaves of capacity. Lowered only after
    // the blocks over it are evicted and before the charge counts, raised
    // only after the release counts: the shards' usage plus the charges
    // never passes capacity at any moment.
    uint64_t limit = 0;
    // Blocks evicted while a lookup still held them (weakly: the lookup
    // frees them), with their charges: memory beyond usage. Pruned of the
    // freed ones as it grows.
    std::vector<std::pair<std::weak_ptr<const Block>, size_t>> evicted_held;
    size_t prune_at = 16;
  };

  Shard& ShardOf(const BlockCacheKey& key);
  // (capacity - reserved) / shards, 0 once the charges pass capacity.
  uint64_t ShardLimit(uint64_t reserved) const;
  // Sets every shard's limit, evicting what no longer fits.
  void SetShardLimits(uint64_t limit);
  // Evicts from `shard` (locked) until its usage plus `room` fits its limit.
  void EvictLocked(Shard& shard, uint64_t room);
  // Drops `entry`'s block from `shard` (locked), noting it if still held.
  void DropLocked(Shard& shard, Entry& entry);
  // Demotes protected blocks over kProtectedShare of `limit` to probation.
  void DemoteLocked(Shard& shard, uint64_t limit);
  // The share of a shard hit blocks may keep from eviction, as RocksDB's
  // LRUCache's high-priority pool ratio.
  static constexpr double kProtectedShare = 0.5;

  const uint64_t capacity_;
  const uint64_t num_shards_;
  const bool strict_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<uint64_t> next_table_id_{1};
  // Serialises charges and releases of table memory.
  std::mutex reserve_mu_;
  std::atomic<uint64_t> reserved_{0};
  // Every shard's usage plus reserved_, changed in the order that keeps it
  // within the bound at every moment: a sample is never over by a race.
  std::atomic<uint64_t> usage_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, inserts_{0}, evictions_{0}, too_large_{0};
};

// Table memory charged to a cache while a table is open.
class CacheReservation {
 public:
  // ResourceExhausted when a strict cache has no room for `bytes`.
  static absl::StatusOr<std::unique_ptr<CacheReservation>> Charge(std::shared_ptr<BlockCache> cache,
                                                                  uint64_t bytes);
  ~CacheReservation();
  CacheReservation(const CacheReservation&) = delete;
  CacheReservation& operator=(const CacheReservation&) = delete;

 private:
  CacheReservation(std::shared_ptr<BlockCache> cache, uint64_t bytes)
      : cache_(std::move(cache)), bytes_(bytes) {}
  std::shared_ptr<BlockCache> cache_;
  uint64_t bytes_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_BLOCK_CACHE_IMPL_H_
