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

BlockCacheImpl::BlockCacheImpl(uint64_t capacity, int shard_bits)
    : capacity_(capacity),
      num_shards_(uint64_t{1} << shard_bits),
      shards_(new Shard[uint64_t{1} << shard_bits]) {}

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

uint64_t BlockCacheImpl::ShardCapacity() const {
  const int64_t reserved = reserved_.load(std::memory_order_relaxed);
  const uint64_t left =
      reserved <= 0 ? capacity_ : capacity_ - std::min<uint64_t>(capacity_, reserved);
  return left / num_shards_;
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
        DemoteLocked(shard, ShardCapacity());
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

void BlockCacheImpl::EvictLocked(Shard& shard, uint64_t room, uint64_t limit) {
  while (shard.usage + room > limit && !(shard.probation.empty() && shard.protected_lru.empty())) {
    std::list<Entry>& from = shard.probation.empty() ? shard.protected_lru : shard.probation;
    Entry& victim = from.back();
    shard.usage -= victim.charge;
    if (victim.hit) shard.protected_usage -= victim.charge;
    shard.map.erase(victim.key);
    from.pop_back();
    evictions_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::shared_ptr<const Block> BlockCacheImpl::Insert(const BlockCacheKey& key,
                                                    std::shared_ptr<const Block> block,
                                                    size_t charge) {
  const uint64_t limit = ShardCapacity();
  if (charge > limit) {
    too_large_.fetch_add(1, std::memory_order_relaxed);
    return block;
  }
  Shard& shard = ShardOf(key);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.map.find(key);
  if (it != shard.map.end()) return it->second->block;  // Another lookup read it too.
  EvictLocked(shard, charge, limit);
  shard.probation.push_front(Entry{key, std::move(block), charge, /*hit=*/false});
  shard.map.emplace(key, shard.probation.begin());
  shard.usage += charge;
  inserts_.fetch_add(1, std::memory_order_relaxed);
  return shard.probation.front().block;
}

void BlockCacheImpl::Reserve(int64_t bytes) {
  reserved_.fetch_add(bytes, std::memory_order_relaxed);
  if (bytes <= 0) return;
  const uint64_t limit = ShardCapacity();
  for (uint64_t i = 0; i < num_shards_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    EvictLocked(shards_[i], 0, limit);
  }
}

BlockCacheStats BlockCacheImpl::stats() const {
  BlockCacheStats s;
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.inserts = inserts_.load(std::memory_order_relaxed);
  s.evictions = evictions_.load(std::memory_order_relaxed);
  s.too_large = too_large_.load(std::memory_order_relaxed);
  s.capacity_bytes = capacity_;
  s.reserved_bytes = static_cast<uint64_t>(std::max<int64_t>(0, reserved_.load()));
  s.usage_bytes = s.reserved_bytes;
  for (uint64_t i = 0; i < num_shards_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    s.usage_bytes += shards_[i].usage;
    s.entries += shards_[i].map.size();
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
    std::list<Entry> dropped, dropped_protected;
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    shards_[i].map.clear();
    dropped.swap(shards_[i].probation);
    dropped_protected.swap(shards_[i].protected_lru);
    shards_[i].usage = 0;
    shards_[i].protected_usage = 0;
  }
}

CacheReservation::CacheReservation(std::shared_ptr<BlockCache> cache, uint64_t bytes)
    : cache_(std::move(cache)), bytes_(bytes) {
  BlockCacheImpl::Of(*cache_).Reserve(static_cast<int64_t>(bytes_));
}

CacheReservation::~CacheReservation() {
  BlockCacheImpl::Of(*cache_).Reserve(-static_cast<int64_t>(bytes_));
}

}  // namespace internal

absl::StatusOr<std::shared_ptr<BlockCache>> BlockCache::Create(const BlockCacheOptions& options) {
  int bits = options.shard_bits;
  if (bits == -1) bits = internal::DefaultShardBits(options.capacity_bytes);
  if (bits < 0 || bits > internal::kMaxShardBits) {
    return absl::InvalidArgumentError(absl::StrCat("block cache: shard_bits ", options.shard_bits,
                                                   " is not in [0, ", internal::kMaxShardBits,
                                                   "] or -1"));
  }
  return std::shared_ptr<BlockCache>(
      new BlockCache(std::make_unique<internal::BlockCacheImpl>(options.capacity_bytes, bits)));
}

BlockCache::BlockCache(std::unique_ptr<internal::BlockCacheImpl> impl) : impl_(std::move(impl)) {}
BlockCache::~BlockCache() = default;
uint64_t BlockCache::capacity() const { return impl_->capacity(); }
int BlockCache::num_shards() const { return impl_->num_shards(); }
BlockCacheStats BlockCache::stats() const { return impl_->stats(); }
void BlockCache::ResetStats() { impl_->ResetStats(); }
void BlockCache::Clear() { impl_->Clear(); }

}  // namespace lsmbloom
