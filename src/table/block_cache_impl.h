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
  BlockCacheImpl(uint64_t capacity, int shard_bits);

  static BlockCacheImpl& Of(const BlockCache& cache) { return *cache.impl_; }

  // An id no other table opened with this cache has (never 0).
  uint64_t NewTableId() { return next_table_id_.fetch_add(1, std::memory_order_relaxed); }

  // The block cached under `key`, or null (a miss). Counts the hit or miss.
  std::shared_ptr<const Block> Lookup(const BlockCacheKey& key);
  // Caches `block` under `key`, charged `charge` bytes, evicting the least
  // recently used blocks of its shard until it fits; a block larger than
  // the shard's share is not cached. Returns the block to use: `block`, or
  // the one another thread cached under `key` first.
  std::shared_ptr<const Block> Insert(const BlockCacheKey& key, std::shared_ptr<const Block> block,
                                      size_t charge);
  // Charges (bytes > 0) or releases (bytes < 0) table memory, evicting data
  // blocks as the charge grows.
  void Reserve(int64_t bytes);

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
  };

  Shard& ShardOf(const BlockCacheKey& key);
  uint64_t ShardCapacity() const;
  // Evicts from `shard` (locked) until its usage plus `room` fits `limit`.
  void EvictLocked(Shard& shard, uint64_t room, uint64_t limit);
  // Demotes protected blocks over kProtectedShare of `limit` to probation.
  void DemoteLocked(Shard& shard, uint64_t limit);
  // The share of a shard hit blocks may keep from eviction, as RocksDB's
  // LRUCache's high-priority pool ratio.
  static constexpr double kProtectedShare = 0.5;

  const uint64_t capacity_;
  const uint64_t num_shards_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<uint64_t> next_table_id_{1};
  std::atomic<int64_t> reserved_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, inserts_{0}, evictions_{0}, too_large_{0};
};

// Table memory charged to a cache while a table is open.
class CacheReservation {
 public:
  CacheReservation(std::shared_ptr<BlockCache> cache, uint64_t bytes);
  ~CacheReservation();
  CacheReservation(const CacheReservation&) = delete;
  CacheReservation& operator=(const CacheReservation&) = delete;

 private:
  std::shared_ptr<BlockCache> cache_;
  uint64_t bytes_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_BLOCK_CACHE_IMPL_H_
