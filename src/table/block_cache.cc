#include "lsmbloom/table/block_cache.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "src/table/block_cache_impl.h"

namespace lsmbloom {
namespace internal {
namespace {

constexpr int kMaxShardBits = 12;

int DefaultShardBits(uint64_t capacity) {
  constexpr uint64_t kMinShardBytes = 512 << 10;
  int bits = 0;
  while (bits < 6 && (capacity >> (bits + 1)) >= kMinShardBytes) ++bits;
  return bits;
}

}  // namespace

BlockCacheImpl::BlockCacheImpl(uint64_t capacity, int shard_bits, bool strict_capacity_limit)
    : capacity_(capacity),
      num_shards_(uint64_t{1} << shard_bits),
      strict_(strict_capacity_limit),
      shards_(new Shard[uint64_t{1} << shard_bits]) {
  for (uint64_t i = 0; i < num_shards_; ++i) shards_[i].limit = ShardLimit(0);
}

size_t BlockCacheImpl::KeyHash::operator()(const BlockCacheKey& k) const {
  // Offsets are multiples of small sizes and ids are sequential: mix all
  // three so that shards and buckets fill evenly.
  uint64_t h = k.table_id * 0x9E3779B97F4A7C15ull ^ k.unique_id;
  h ^= (k.offset + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return static_cast<size_t>(h ^ (h >> 32));
}

BlockCacheImpl::Shard& BlockCacheImpl::ShardOf(const BlockCacheKey& key) {
  // The hash's top bits pick the shard; the map uses all of them.
  return shards_[(KeyHash()(key) >> 20) & (num_shards_ - 1)];
}

uint64_t BlockCacheImpl::ShardLimit(uint64_t reserved) const {
  return (capacity_ - std::min(capacity_, reserved)) / num_shards_;
}

size_t BlockCacheImpl::ChargeOf(const Block& block) {
  // The bytes, the Block, the list node and the map node.
  return block.size() + sizeof(Block) + sizeof(Entry) + 64;
}

std::shared_ptr<const Block> BlockCacheImpl::Lookup(const BlockCacheKey& key) {
  Shard& shard = ShardOf(key);
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.map.find(key);
    if (it != shard.map.end()) {
      const std::list<Entry>::iterator entry = it->second;
      if (!entry->hit) {
        entry->hit = true;
        shard.protected_usage += entry->charge;
        shard.protected_lru.splice(shard.protected_lru.begin(), shard.probation, entry);
        DemoteLocked(shard, shard.limit);
      } else {
        shard.protected_lru.splice(shard.protected_lru.begin(), shard.protected_lru, entry);
      }
      hits_.fetch_add(1, std::memory_order_relaxed);
      return entry->block;
    }
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void BlockCacheImpl::DemoteLocked(Shard& shard, uint64_t limit) {
  const double share = kProtectedShare * static_cast<double>(limit);
  while (!shard.protected_lru.empty() && static_cast<double>(shard.protected_usage) > share) {
    const std::list<Entry>::iterator last = std::prev(shard.protected_lru.end());
    last->hit = false;
    shard.protected_usage -= last->charge;
    shard.probation.splice(shard.probation.begin(), shard.protected_lru, last);
  }
}

void BlockCacheImpl::DropLocked(Shard& shard, Entry& entry) {
  shard.usage -= entry.charge;
  usage_.fetch_sub(entry.charge, std::memory_order_relaxed);
  if (entry.hit) shard.protected_usage -= entry.charge;
  shard.map.erase(entry.key);
  // Under the lock no lookup can take a new reference: a count of one is
  // the cache's alone.
  if (entry.block.use_count() > 1) {
    if (shard.evicted_held.size() >= shard.prune_at) {
      auto& held = shard.evicted_held;
      held.erase(
          std::remove_if(held.begin(), held.end(), [](const auto& h) { return h.first.expired(); }),
          held.end());
      shard.prune_at = std::max<size_t>(16, 2 * held.size());
    }
    shard.evicted_held.emplace_back(entry.block, entry.charge);
  }
}

void BlockCacheImpl::EvictLocked(Shard& shard, uint64_t room) {
  while (shard.usage + room > shard.limit &&
         !(shard.probation.empty() && shard.protected_lru.empty())) {
    std::list<Entry>& from = shard.probation.empty() ? shard.protected_lru : shard.probation;
    DropLocked(shard, from.back());
    from.pop_back();
    evictions_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::shared_ptr<const Block> BlockCacheImpl::Insert(const BlockCacheKey& key,
                                                    std::shared_ptr<const Block> block,
                                                    size_t charge) {
  Shard& shard = ShardOf(key);
  std::lock_guard<std::mutex> lock(shard.mu);
  if (charge > shard.limit) {
    too_large_.fetch_add(1, std::memory_order_relaxed);
    return block;
  }
  auto it = shard.map.find(key);
  if (it != shard.map.end()) return it->second->block;  // Another lookup read it too.
  EvictLocked(shard, charge);
  // Counted after the evictions it needed: usage_ never passes the bound.
  usage_.fetch_add(charge, std::memory_order_relaxed);
  shard.probation.push_front(Entry{key, std::move(block), charge, /*hit=*/false});
  shard.map.emplace(key, shard.probation.begin());
  shard.usage += charge;
  inserts_.fetch_add(1, std::memory_order_relaxed);
  return shard.probation.front().block;
}

void BlockCacheImpl::SetShardLimits(uint64_t limit) {
  for (uint64_t i = 0; i < num_shards_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    shards_[i].limit = limit;
    EvictLocked(shards_[i], 0);
    DemoteLocked(shards_[i], limit);
  }
}

bool BlockCacheImpl::Reserve(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(reserve_mu_);
  const uint64_t reserved = reserved_.load(std::memory_order_relaxed);
  if (strict_ && bytes > capacity_ - std::min(capacity_, reserved)) return false;
  // Room first: until every shard is within its new limit, the charge
  // does not count.
  SetShardLimits(ShardLimit(reserved + bytes));
  reserved_.store(reserved + bytes, std::memory_order_relaxed);
  usage_.fetch_add(bytes, std::memory_order_relaxed);
  return true;
}

void BlockCacheImpl::Release(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(reserve_mu_);
  const uint64_t reserved = reserved_.load(std::memory_order_relaxed) - bytes;
  // Uncounted before the shards may use the room.
  usage_.fetch_sub(bytes, std::memory_order_relaxed);
  reserved_.store(reserved, std::memory_order_relaxed);
  SetShardLimits(ShardLimit(reserved));
}

BlockCacheStats BlockCacheImpl::stats() const {
  BlockCacheStats s;
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.inserts = inserts_.load(std::memory_order_relaxed);
  s.evictions = evictions_.load(std::memory_order_relaxed);
  s.too_large = too_large_.load(std::memory_order_relaxed);
  s.capacity_bytes = capacity_;
  s.reserved_bytes = reserved_.load(std::memory_order_relaxed);
  s.usage_bytes = usage_.load(std::memory_order_relaxed);
  for (uint64_t i = 0; i < num_shards_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    s.entries += shards_[i].map.size();
    for (const auto& held : shards_[i].evicted_held) {
      if (held.first.expired()) continue;
      ++s.evicted_held;
      s.evicted_held_bytes += held.second;
    }
  }
  return s;
}

void BlockCacheImpl::ResetStats() {
  hits_.store(0);
  misses_.store(0);
  inserts_.store(0);
  evictions_.store(0);
  too_large_.store(0);
}

void BlockCacheImpl::Clear() {
  for (uint64_t i = 0; i < num_shards_; ++i) {
    std::list<Entry> dropped;  // Freed after the lock.
    Shard& shard = shards_[i];
    std::lock_guard<std::mutex> lock(shard.mu);
    for (std::list<Entry>* from : {&shard.probation, &shard.protected_lru}) {
      for (Entry& e : *from) DropLocked(shard, e);
      dropped.splice(dropped.end(), *from);
    }
  }
}

absl::StatusOr<std::unique_ptr<CacheReservation>> CacheReservation::Charge(
    std::shared_ptr<BlockCache> cache, uint64_t bytes) {
  BlockCacheImpl& impl = BlockCacheImpl::Of(*cache);
  if (!impl.Reserve(bytes)) {
    const BlockCacheStats s = impl.stats();
    return absl::ResourceExhaustedError(absl::StrCat(
        "block cache: table memory of ", bytes, " bytes does not fit: ", s.reserved_bytes,
        " of its ", s.capacity_bytes, " bytes are charged to open tables (strict_capacity_limit)"));
  }
  return std::unique_ptr<CacheReservation>(new CacheReservation(std::move(cache), bytes));
}

CacheReservation::~CacheReservation() { BlockCacheImpl::Of(*cache_).Release(bytes_); }

}  // namespace internal

absl::StatusOr<std::shared_ptr<BlockCache>> BlockCache::Create(const BlockCacheOptions& options) {
  int bits = options.shard_bits;
  if (bits == -1) bits = internal::DefaultShardBits(options.capacity_bytes);
  if (bits < 0 || bits > internal::kMaxShardBits) {
    return absl::InvalidArgumentError(absl::StrCat("block cache: shard_bits ", options.shard_bits,
                                                   " is not in [0, ", internal::kMaxShardBits,
                                                   "] or -1"));
  }
  return std::shared_ptr<BlockCache>(new BlockCache(std::make_unique<internal::BlockCacheImpl>(
      options.capacity_bytes, bits, options.strict_capacity_limit)));
}

BlockCache::BlockCache(std::unique_ptr<internal::BlockCacheImpl> impl) : impl_(std::move(impl)) {}
BlockCache::~BlockCache() = default;
uint64_t BlockCache::capacity() const { return impl_->capacity(); }
int BlockCache::num_shards() const { return impl_->num_shards(); }
BlockCacheStats BlockCache::stats() const { return impl_->stats(); }
void BlockCache::ResetStats() { impl_->ResetStats(); }
void BlockCache::Clear() { impl_->Clear(); }

}  // namespace lsmbloom
