// A cache of data blocks shared by many tables, for tables read from
// storage (FileAccess::kPread or kDirect): a block read once is held
// verified, decompressed and parsed, so a later lookup that needs it reads
// neither the device nor the checksum again, and copies nothing.
//
// Capacity is in bytes. The cache is split into shards, each guarded by its
// own mutex and holding an equal part of the capacity, so concurrent
// lookups rarely wait for each other. Each shard evicts by LRU with
// midpoint insertion, as RocksDB's LRUCache does with its high-priority
// pool: a block read enters a probation list, and moves to a protected one
// (at most half the shard) on its first hit; eviction takes probation's
// least recently used block first. A burst of blocks read once (cold keys,
// false-positive reads) then cannot flush the blocks lookups come back to.
// A hit moves its block under the shard's mutex, a few nanoseconds.
// (RocksDB's HyperClockCache avoids that mutex with CLOCK and lock-free
// slots, which pays with many cores hitting one shard; LRU keeps recency
// exact, the accounting simple, and is the policy RocksDB's users know.)
//
// Usage (stats().usage_bytes: the data blocks cached plus the table memory
// charged, below) never exceeds capacity while the table memory charged
// fits in it, and never exceeds the table memory charged otherwise: at
// every moment, usage <= max(capacity, reserved_bytes). An insert evicts,
// under its shard's lock, until the new block fits the shard's share of
// what table memory leaves; a block larger than that share is not cached.
//
// Tables may charge their index and filter memory to the cache
// (TableReadOptions::charge_table_memory_to_cache): that memory is held as
// long as the table is open, ahead of every data block, and shrinks what
// the data blocks may use (data blocks are evicted before the charge
// counts). A cache made with strict_capacity_limit refuses a charge that
// would pass capacity, and the table fails to open (ResourceExhausted):
// then usage <= capacity always. Modules of modular filters a TableSet
// holds beyond module 0 are not charged here: its own cap bounds them
// (LookupOptions::filter_memory_cap_bytes).
//
// Memory beyond usage: a block a lookup still reads stays alive after
// eviction (it is reference counted), and a block too large to cache lives
// as long as the lookup that read it; neither counts in usage. A Get holds
// at most one block at a time, a MultiGet at most one per key of its batch,
// and neither holds any once it returns. stats().evicted_held counts the
// evicted blocks lookups still hold.
//
// A block is cached under its table's unique id, an id the cache gives each
// open table, and its offset: a block of a table that was closed (a file a
// compaction removed) is never served to another table, even to a later
// open of a file with the same unique id. All methods are thread-safe.

#ifndef LSMBLOOM_TABLE_BLOCK_CACHE_H_
#define LSMBLOOM_TABLE_BLOCK_CACHE_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace lsmbloom {

struct BlockCacheOptions {
  uint64_t capacity_bytes = uint64_t{64} << 20;
  // 2^shard_bits shards, at most 2^12; -1 picks one from the capacity (at
  // least 512 KiB a shard, at most 64 shards).
  int shard_bits = -1;
  // Refuse table memory (TableReadOptions::charge_table_memory_to_cache)
  // that would pass capacity: Table::Open fails with ResourceExhausted, and
  // usage never exceeds capacity. False: the charge is always taken (an
  // open table needs its index and filter), evicting every data block if
  // it must, and usage may reach the table memory charged.
  bool strict_capacity_limit = false;
};

// Counters since the cache was made (or ResetStats), and its state now.
struct BlockCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t inserts = 0;
  uint64_t evictions = 0;
  // Blocks not cached because they are larger than a shard's share.
  uint64_t too_large = 0;
  uint64_t capacity_bytes = 0;
  // Data blocks held plus table memory charged (reserved_bytes).
  uint64_t usage_bytes = 0;
  uint64_t reserved_bytes = 0;
  uint64_t entries = 0;
  // Blocks evicted that lookups still hold, and their charges: memory held
  // beyond usage_bytes until those lookups finish.
  uint64_t evicted_held = 0;
  uint64_t evicted_held_bytes = 0;
};

namespace internal {
class BlockCacheImpl;  // src/table/block_cache_impl.h
}  // namespace internal

class BlockCache {
 public:
  // InvalidArgument if shard_bits is out of range.
  static absl::StatusOr<std::shared_ptr<BlockCache>> Create(const BlockCacheOptions& options);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  uint64_t capacity() const;
  int num_shards() const;
  BlockCacheStats stats() const;
  void ResetStats();
  // Drops every data block (table memory charged stays).
  void Clear();

 private:
  friend class internal::BlockCacheImpl;
  explicit BlockCache(std::unique_ptr<internal::BlockCacheImpl> impl);
  std::unique_ptr<internal::BlockCacheImpl> impl_;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_BLOCK_CACHE_H_
