// BlockCache: LRU eviction within capacity, charges for table memory,
// options checked; and tables reading through it: a hit reads nothing
// from the file, and a block is never served to another table. The
// header's bounds under churn: usage within capacity (or the table memory
// charged) at every sample, and the blocks a lookup holds past eviction.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/block_cache.h"
#include "lsmbloom/table/table.h"
#include "src/table/block.h"
#include "src/table/block_cache_impl.h"
#include "src/util/random.h"
#include "tests/storage_testutil.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using internal::Block;
using internal::BlockCacheImpl;
using internal::BlockCacheKey;

// A parsed block of `bytes` bytes (a valid empty block: one restart).
std::shared_ptr<const Block> MakeBlock(size_t bytes) {
  internal::BlockContents contents;
  contents.owned.assign(bytes < 8 ? 8 : bytes, '\0');
  // Restart array: one restart at 0, count 1, at the end.
  std::string& b = contents.owned;
  b[b.size() - 4] = 1;
  contents.is_owned = true;
  auto block = Block::Parse(std::move(contents), "test block");
  if (!block.ok()) std::abort();
  return std::make_shared<const Block>(std::move(*block));
}

std::shared_ptr<BlockCache> NewCache(uint64_t capacity, int shard_bits) {
  auto cache = BlockCache::Create(BlockCacheOptions{capacity, shard_bits});
  if (!cache.ok()) std::abort();
  return *cache;
}

// A table's bytes read by copying, never mapped (so tables read through
// the cache), calling `on_read` first on every read.
class CopyingFile : public RandomAccessFile {
 public:
  CopyingFile(std::shared_ptr<const std::string> bytes, std::function<void()> on_read)
      : bytes_(std::move(bytes)), on_read_(std::move(on_read)) {}
  uint64_t Size() const override { return bytes_->size(); }
  absl::Status Read(uint64_t offset, size_t n, char* scratch,
                    std::string_view* result) const override {
    if (on_read_) on_read_();
    const size_t at = static_cast<size_t>(std::min<uint64_t>(offset, bytes_->size()));
    n = std::min(n, bytes_->size() - at);
    std::memcpy(scratch, bytes_->data() + at, n);
    *result = std::string_view(scratch, n);
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const std::string> bytes_;
  std::function<void()> on_read_;
};

std::shared_ptr<const Table> OpenCopying(std::shared_ptr<const std::string> bytes,
                                         const TableReadOptions& options,
                                         std::function<void()> on_read = nullptr) {
  auto table =
      Table::Open(std::make_unique<CopyingFile>(std::move(bytes), std::move(on_read)), options);
  if (!table.ok()) std::abort();
  return std::shared_ptr<const Table>(std::move(*table));
}

TEST(BlockCacheTest, ShardBitsOutOfRangeAreRefused) {
  EXPECT_EQ(BlockCache::Create(BlockCacheOptions{1 << 20, 13}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BlockCache::Create(BlockCacheOptions{1 << 20, -2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto chosen = BlockCache::Create(BlockCacheOptions{64 << 20, -1});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->num_shards(), 64);
  EXPECT_EQ((*BlockCache::Create(BlockCacheOptions{100 << 10, -1}))->num_shards(), 1);
}

TEST(BlockCacheTest, EvictsTheLeastRecentlyUsedBlock) {
  const size_t charge = BlockCacheImpl::ChargeOf(*MakeBlock(1000));
  auto cache = NewCache(3 * charge, 0);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  for (uint64_t offset : {0, 1, 2}) c.Insert(BlockCacheKey{1, 7, offset}, MakeBlock(1000), charge);
  ASSERT_NE(c.Lookup(BlockCacheKey{1, 7, 0}), nullptr);  // 0 is now the most recent.
  c.Insert(BlockCacheKey{1, 7, 3}, MakeBlock(1000), charge);
  EXPECT_NE(c.Lookup(BlockCacheKey{1, 7, 0}), nullptr);
  EXPECT_EQ(c.Lookup(BlockCacheKey{1, 7, 1}), nullptr);  // The least recent went.
  EXPECT_NE(c.Lookup(BlockCacheKey{1, 7, 2}), nullptr);
  EXPECT_NE(c.Lookup(BlockCacheKey{1, 7, 3}), nullptr);
  const BlockCacheStats s = cache->stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.entries, 3u);
  EXPECT_EQ(s.usage_bytes, 3 * charge);
  EXPECT_EQ(s.hits, 4u);
  EXPECT_EQ(s.misses, 1u);
}

// Midpoint insertion: a block hit once is protected from a burst of blocks
// read once, which plain LRU would let flush it.
TEST(BlockCacheTest, ABlockHitOnceOutlivesABurstOfBlocksReadOnce) {
  const size_t charge = BlockCacheImpl::ChargeOf(*MakeBlock(1000));
  auto cache = NewCache(4 * charge, 0);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  c.Insert(BlockCacheKey{1, 1, 0}, MakeBlock(1000), charge);
  ASSERT_NE(c.Lookup(BlockCacheKey{1, 1, 0}), nullptr);
  for (uint64_t offset = 1; offset <= 20; ++offset) {
    c.Insert(BlockCacheKey{1, 1, offset}, MakeBlock(1000), charge);
  }
  EXPECT_NE(c.Lookup(BlockCacheKey{1, 1, 0}), nullptr);
  EXPECT_NE(c.Lookup(BlockCacheKey{1, 1, 20}), nullptr);
  EXPECT_EQ(c.Lookup(BlockCacheKey{1, 1, 17}), nullptr);
  EXPECT_LE(cache->stats().usage_bytes, cache->stats().capacity_bytes);
}

TEST(BlockCacheTest, KeysDifferingInAnyPartAreDifferentBlocks) {
  auto cache = NewCache(1 << 20, 0);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  c.Insert(BlockCacheKey{1, 7, 4096}, MakeBlock(100), 200);
  EXPECT_EQ(c.Lookup(BlockCacheKey{2, 7, 4096}), nullptr);  // Another open table.
  EXPECT_EQ(c.Lookup(BlockCacheKey{1, 8, 4096}), nullptr);  // Another unique id.
  EXPECT_EQ(c.Lookup(BlockCacheKey{1, 7, 0}), nullptr);
  EXPECT_NE(c.Lookup(BlockCacheKey{1, 7, 4096}), nullptr);
}

TEST(BlockCacheTest, ABlockLargerThanAShardIsNotCached) {
  auto cache = NewCache(4096, 0);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  auto big = MakeBlock(8000);
  EXPECT_EQ(c.Insert(BlockCacheKey{1, 1, 0}, big, BlockCacheImpl::ChargeOf(*big)), big);
  EXPECT_EQ(cache->stats().entries, 0u);
  EXPECT_EQ(cache->stats().too_large, 1u);
}

TEST(BlockCacheTest, ChargedTableMemoryEvictsDataBlocksAndIsReleased) {
  const size_t charge = BlockCacheImpl::ChargeOf(*MakeBlock(1000));
  auto cache = NewCache(4 * charge, 0);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  for (uint64_t offset = 0; offset < 4; ++offset) {
    c.Insert(BlockCacheKey{1, 1, offset}, MakeBlock(1000), charge);
  }
  EXPECT_EQ(cache->stats().entries, 4u);
  {
    auto held = internal::CacheReservation::Charge(cache, 2 * charge);
    ASSERT_TRUE(held.ok());
    const BlockCacheStats s = cache->stats();
    EXPECT_EQ(s.entries, 2u);
    EXPECT_EQ(s.reserved_bytes, 2 * charge);
    EXPECT_LE(s.usage_bytes, s.capacity_bytes);
  }
  EXPECT_EQ(cache->stats().reserved_bytes, 0u);
}

// Many threads inserting and looking up blocks of many sizes: usage never
// passes capacity, and a lookup gets the block inserted under its key.
TEST(BlockCacheTest, UsageStaysWithinCapacityUnderConcurrentChurn) {
  auto cache = NewCache(256 << 10, 3);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  std::vector<std::thread> threads;
  std::atomic<bool> over{false}, wrong{false};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 3000; ++i) {
        const uint64_t key = internal::SplitMix64(i * 4 + t) % 500;
        const size_t size = 64 + key * 13 % 6000;  // A key always has the same size.
        auto hit = c.Lookup(BlockCacheKey{1, 1, key});
        if (hit != nullptr && hit->size() != (size < 8 ? 8 : size)) wrong = true;
        if (hit == nullptr) {
          auto b = MakeBlock(size);
          c.Insert(BlockCacheKey{1, 1, key}, b, BlockCacheImpl::ChargeOf(*b));
        }
        if (i % 64 == 0) {
          const BlockCacheStats s = cache->stats();
          if (s.usage_bytes > s.capacity_bytes) over = true;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(over);
  EXPECT_FALSE(wrong);
  const BlockCacheStats s = cache->stats();
  EXPECT_LE(s.usage_bytes, s.capacity_bytes);
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.hits, 0u);
}

// Two threads insert and look up blocks while one erases them all now and
// then (Clear) and another charges and releases table memory: a sampler
// reading stats() without pause never sees usage over capacity.
TEST(BlockCacheTest, UsageNeverPassesCapacityUnderChurnWithTableMemoryCharged) {
  auto cache = NewCache(256 << 10, 2);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> over{0}, samples{0}, charged_seen{0};
  std::thread sampler([&] {
    while (!stop.load()) {
      const BlockCacheStats s = cache->stats();
      if (s.usage_bytes > s.capacity_bytes) ++over;
      if (s.reserved_bytes > 0) ++charged_seen;
      ++samples;
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 20000; ++i) {
        const uint64_t key = internal::SplitMix64(i * 2 + t) % 400;
        if (c.Lookup(BlockCacheKey{1, 1, key}) == nullptr) {
          auto b = MakeBlock(64 + key * 13 % 6000);
          c.Insert(BlockCacheKey{1, 1, key}, b, BlockCacheImpl::ChargeOf(*b));
        }
        if (t == 0 && i % 4999 == 4998) cache->Clear();
      }
    });
  }
  threads.emplace_back([&] {
    std::deque<std::unique_ptr<internal::CacheReservation>> held;  // At most 3 of 64 KiB.
    for (uint64_t i = 0; i < 400; ++i) {
      auto r = internal::CacheReservation::Charge(cache, 1 + internal::SplitMix64(i) % (64 << 10));
      ASSERT_TRUE(r.ok());
      held.push_back(*std::move(r));
      if (held.size() > 3) held.pop_front();
      std::this_thread::yield();
    }
  });
  for (auto& th : threads) th.join();
  stop = true;
  sampler.join();
  EXPECT_EQ(over.load(), 0u) << "of " << samples.load() << " samples";
  EXPECT_GT(charged_seen.load(), 0u);
  const BlockCacheStats s = cache->stats();
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_GT(s.evictions, 0u);
  cache->Clear();
  EXPECT_EQ(cache->stats().usage_bytes, 0u);  // Nothing lost or counted twice.
}

// Table memory over capacity (a cache not strict): charged all the same,
// every data block goes and none is cached until it is released, so usage
// is the table memory alone.
TEST(BlockCacheTest, TableMemoryOverCapacityLeavesNoRoomForDataBlocks) {
  const size_t charge = BlockCacheImpl::ChargeOf(*MakeBlock(1000));
  auto cache = NewCache(4 * charge, 1);
  BlockCacheImpl& c = BlockCacheImpl::Of(*cache);
  for (uint64_t offset = 0; offset < 8; ++offset) {
    c.Insert(BlockCacheKey{1, 1, offset}, MakeBlock(1000), charge);
  }
  ASSERT_GT(cache->stats().entries, 0u);
  {
    auto big = internal::CacheReservation::Charge(cache, 5 * charge);
    ASSERT_TRUE(big.ok());
    c.Insert(BlockCacheKey{1, 1, 99}, MakeBlock(1000), charge);
    const BlockCacheStats s = cache->stats();
    EXPECT_EQ(s.entries, 0u);
    EXPECT_EQ(s.usage_bytes, 5 * charge);
    EXPECT_EQ(s.reserved_bytes, 5 * charge);
  }
  c.Insert(BlockCacheKey{1, 1, 99}, MakeBlock(1000), charge);
  EXPECT_EQ(cache->stats().entries, 1u);
  EXPECT_EQ(cache->stats().usage_bytes, charge);
}

TEST(BlockCacheTest, AStrictCacheRefusesTableMemoryPastCapacity) {
  BlockCacheOptions options{40000, 0};
  options.strict_capacity_limit = true;
  auto cache = *BlockCache::Create(options);
  auto first = internal::CacheReservation::Charge(cache, 30000);
  ASSERT_TRUE(first.ok());
  auto second = internal::CacheReservation::Charge(cache, 10001);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(cache->stats().reserved_bytes, 30000u);
  EXPECT_TRUE(internal::CacheReservation::Charge(cache, 10000).ok());  // Exactly fits.
  first->reset();
  EXPECT_TRUE(internal::CacheReservation::Charge(cache, 35000).ok());

  // A table whose memory does not fit fails to open, and charges nothing.
  auto bytes = std::make_shared<const std::string>(
      testutil::BuildTable(testutil::MakeEntries(3000, 2), TableOptions()));
  options.capacity_bytes = 1024;
  TableReadOptions read;
  read.block_cache = *BlockCache::Create(options);
  read.charge_table_memory_to_cache = true;
  auto refused = Table::Open(std::make_unique<CopyingFile>(bytes, nullptr), read);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_EQ(read.block_cache->stats().reserved_bytes, 0u);
  options.strict_capacity_limit = false;
  read.block_cache = *BlockCache::Create(options);
  EXPECT_TRUE(Table::Open(std::make_unique<CopyingFile>(bytes, nullptr), read).ok());
}

// Tables opened with their memory charged and closed as edits replace them,
// while Get and MultiGet fill the cache and evict: usage never passes
// capacity at any sample, and every answer is the model's.
TEST(BlockCacheTest, UsageNeverPassesCapacityWhileChargedTablesOpenAndCloseUnderLookups) {
  auto cache = NewCache(512 << 10, 2);
  TableReadOptions read;
  read.block_cache = cache;
  read.charge_table_memory_to_cache = true;
  std::vector<std::vector<testutil::Entry>> entries;
  std::vector<std::shared_ptr<const std::string>> files;
  std::vector<std::string> keys;
  for (uint64_t seed = 0; seed < 3; ++seed) {  // Disjoint keys: i * 3 + seed.
    entries.push_back(testutil::MakeEntries(3000, seed));
    files.push_back(
        std::make_shared<const std::string>(testutil::BuildTable(entries.back(), TableOptions())));
    for (size_t i = 0; i < entries.back().size(); i += 5) keys.push_back(entries.back()[i].key);
  }
  auto expected = [&](const std::string& key) {
    for (const auto& e : entries) {
      const LookupResult r = testutil::ModelGet(e, key);
      if (r.kind != LookupResult::Kind::kNotFound) return r;
    }
    return LookupResult();
  };
  TableSet set;
  {
    VersionEdit initial;
    for (uint64_t f = 0; f < 3; ++f) {
      initial.added.push_back({0, f + 1, OpenCopying(files[f], read)});
    }
    ASSERT_TRUE(set.Apply(initial).ok());
  }
  const uint64_t one_table = cache->stats().reserved_bytes / 3;
  ASSERT_GT(one_table, 0u);
  ASSERT_LT(5 * one_table, cache->capacity() / 2);  // Charges fit: the bound is capacity.

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> over{0}, samples{0}, wrong{0}, errors{0};
  auto check = [&](const absl::StatusOr<LookupResult>& got, std::string_view key) {
    if (!got.ok()) {
      ++errors;
    } else if (!testutil::SameAsModel(*got, expected(std::string(key)))) {
      ++wrong;
    }
  };
  std::thread sampler([&] {
    while (!stop.load()) {
      const BlockCacheStats s = cache->stats();
      if (s.usage_bytes > s.capacity_bytes) ++over;
      ++samples;
    }
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::vector<std::string_view> batch;
      for (uint64_t i = 0; !stop.load(); ++i) {
        if (t == 0) {
          const std::string& k = keys[internal::SplitMix64(i) % keys.size()];
          check(set.Get(k), k);
          continue;
        }
        batch.clear();
        for (int j = 0; j < 16; ++j) {
          batch.push_back(keys[internal::SplitMix64(i * 16 + j + 7) % keys.size()]);
        }
        auto results = set.MultiGet(batch);
        for (size_t j = 0; j < batch.size(); ++j) check(results[j], batch[j]);
      }
    });
  }
  uint64_t numbers[3] = {1, 2, 3}, next = 4;
  for (int round = 0; round < 60; ++round) {
    const size_t f = round % 3;
    VersionEdit swap;  // The same file opened again: the old open closes.
    swap.removed.push_back({0, numbers[f]});
    swap.added.push_back({0, next, OpenCopying(files[f], read)});
    numbers[f] = next++;
    ASSERT_TRUE(set.Apply(swap).ok());
    std::this_thread::yield();
  }
  stop = true;
  for (auto& th : readers) th.join();
  sampler.join();
  EXPECT_EQ(over.load(), 0u) << "of " << samples.load() << " samples";
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_GT(cache->stats().evictions, 0u);
  EXPECT_EQ(cache->stats().reserved_bytes, 3 * one_table);  // Closed opens released theirs.
}

// Room for about two blocks, so every block read evicts one. A Get holds
// at most one block at a time; a MultiGet holds none across its rounds'
// reads (its blocks are let go round by round); neither holds any once it
// returns. Sampled at every read of the tables' files.
TEST(BlockCacheTest, LookupsHoldNoMoreEvictedBlocksThanTheirBound) {
  const size_t block_charge = BlockCacheImpl::ChargeOf(*MakeBlock(4096));
  auto cache = NewCache(2 * block_charge + 512, 0);
  std::atomic<uint64_t> most_held{0}, reads{0};
  auto on_read = [&] {
    const uint64_t held = cache->stats().evicted_held;
    if (held > most_held.load()) most_held = held;
    ++reads;
  };
  TableOptions no_filter;  // Every file is searched: a key of the oldest takes 3 rounds.
  no_filter.filter_policy = nullptr;
  TableReadOptions read;
  read.block_cache = cache;
  std::vector<testutil::Entry> oldest;
  TableSet set;
  VersionEdit edit;
  for (uint64_t seed = 0; seed < 3; ++seed) {  // Disjoint keys: i * 3 + seed.
    const std::vector<testutil::Entry> entries = testutil::MakeEntries(3000, seed);
    if (seed == 0) oldest = entries;
    auto bytes = std::make_shared<const std::string>(testutil::BuildTable(entries, no_filter));
    edit.added.push_back({0, seed + 1, OpenCopying(bytes, read, on_read)});
  }
  ASSERT_TRUE(set.Apply(edit).ok());
  std::vector<std::string> keys;
  for (size_t i = 0; i < oldest.size(); i += oldest.size() / 24) keys.push_back(oldest[i].key);

  for (const std::string& k : keys) {
    auto got = set.Get(k);
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(oldest, k)));
    EXPECT_EQ(cache->stats().evicted_held, 0u);
  }
  EXPECT_LE(most_held.load(), 1u);

  most_held = 0;
  reads = 0;
  const uint64_t evictions_before = cache->stats().evictions;
  const std::vector<std::string_view> batch(keys.begin(), keys.end());
  auto results = set.MultiGet(batch);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(results[i].ok());
    EXPECT_TRUE(testutil::SameAsModel(*results[i], testutil::ModelGet(oldest, keys[i])));
  }
  EXPECT_GE(reads.load(), 2 * keys.size());  // The premise: rounds of reads,
  EXPECT_GE(cache->stats().evictions - evictions_before, keys.size());  // each evicting.
  EXPECT_EQ(most_held.load(), 0u);
  EXPECT_EQ(cache->stats().evicted_held, 0u);
}

// A table read through pread with a cache: the second lookup of a key
// reads nothing from the file and answers the same; a second open of the
// same file gets blocks of its own.
TEST(BlockCacheTest, AHitReadsNothingFromTheFileAndOpensDoNotShareBlocks) {
  const std::vector<testutil::Entry> entries = testutil::MakeEntries(3000, 1);
  const std::string path =
      testutil::WriteTestFile("cached_table", testutil::BuildTable(entries, TableOptions()));
  auto cache = NewCache(8 << 20, 2);
  TableReadOptions options;
  options.block_cache = cache;
  auto open = [&](testutil::FaultyFile** file) {
    auto base = OpenPosixFile(path, FileAccess::kPread);
    EXPECT_TRUE(base.ok());
    auto counted = std::make_unique<testutil::FaultyFile>(std::move(*base));
    *file = counted.get();
    auto table = Table::Open(std::move(counted), options);
    EXPECT_TRUE(table.ok()) << table.status();
    return std::move(*table);
  };
  testutil::FaultyFile* file = nullptr;
  std::unique_ptr<Table> table = open(&file);
  const std::string& key = entries[100].key;
  const LookupResult want = testutil::ModelGet(entries, key);
  const int reads_at_open = file->reads();
  auto first = table->Get(key);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(testutil::SameAsModel(*first, want));
  EXPECT_EQ(file->reads(), reads_at_open + 1);
  auto second = table->Get(key);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(testutil::SameAsModel(*second, want));
  EXPECT_EQ(file->reads(), reads_at_open + 1);  // From the cache.
  EXPECT_EQ(cache->stats().hits, 1u);
  // Every key of the table, from the cache or not, answers as the model.
  EXPECT_EQ(testutil::CountWrongAnswers(*table, entries), 0u);

  testutil::FaultyFile* file2 = nullptr;
  std::unique_ptr<Table> again = open(&file2);
  const int reads_at_open2 = file2->reads();
  ASSERT_TRUE(again->Get(key).ok());
  EXPECT_EQ(file2->reads(), reads_at_open2 + 1);  // Not the first open's block.
}

TEST(BlockCacheTest, ChargingTableMemoryHoldsItWhileTheTableIsOpen) {
  const std::string path = testutil::WriteTestFile(
      "charged_table", testutil::BuildTable(testutil::MakeEntries(3000, 2), TableOptions()));
  auto cache = NewCache(8 << 20, 0);
  TableReadOptions options;
  options.block_cache = cache;
  options.charge_table_memory_to_cache = true;
  {
    auto file = OpenPosixFile(path, FileAccess::kPread);
    ASSERT_TRUE(file.ok());
    auto table = Table::Open(std::move(*file), options);
    ASSERT_TRUE(table.ok());
    EXPECT_GE(cache->stats().reserved_bytes,
              (*table)->filter_memory() + (*table)->index_memory());
  }
  EXPECT_EQ(cache->stats().reserved_bytes, 0u);
}

}  // namespace
}  // namespace lsmbloom
