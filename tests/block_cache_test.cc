// BlockCache: LRU eviction within capacity, charges for table memory,
// options checked; and tables reading through it: a hit reads nothing
// from the file, and a block is never served to another table.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
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
    internal::CacheReservation held(cache, 2 * charge);
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
