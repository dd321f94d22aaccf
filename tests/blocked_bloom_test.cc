// Builder and reader behaviour: no false negatives, sizing, options.

#include "lsmbloom/filter/blocked_bloom.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/filter_policy.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

using testutil::KeyShape;
using testutil::MakeKey;

std::string BuildFilter(const std::vector<std::string>& keys,
                        const BlockedBloomOptions& options = {}) {
  auto builder = BlockedBloomBuilder::Create(options);
  EXPECT_TRUE(builder.ok()) << builder.status();
  for (const std::string& key : keys) builder->AddKey(key);
  absl::StatusOr<std::string> filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *filter;
}

TEST(BlockedBloomTest, MillionAddedKeysAllMatchSingleAndBatched) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 7, 1000000);
  const std::string filter = BuildFilter(keys);
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(reader->geometry().num_keys, keys.size());

  size_t single_misses = 0;
  for (const std::string& key : keys) single_misses += !reader->MayMatch(key);
  EXPECT_EQ(single_misses, 0u);

  std::vector<uint64_t> hashes(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) hashes[i] = KeyHash(keys[i]);
  std::unique_ptr<bool[]> answers(new bool[keys.size()]);
  // Odd batch sizes cover the prefetch lead-in and the tails.
  size_t batch_misses = 0;
  for (size_t batch : {size_t{1}, size_t{7}, size_t{32}, size_t{1000}, keys.size()}) {
    for (size_t start = 0; start < keys.size(); start += batch) {
      const size_t n = std::min(batch, keys.size() - start);
      reader->MayMatchBatch(absl::MakeConstSpan(&hashes[start], n),
                            absl::MakeSpan(&answers[start], n));
    }
    for (size_t i = 0; i < keys.size(); ++i) batch_misses += !answers[i];
  }
  EXPECT_EQ(batch_misses, 0u);
}

TEST(BlockedBloomTest, StructuredKeysAllMatch) {
  for (KeyShape shape : {KeyShape::kBigEndianCounter, KeyShape::kSharedPrefix}) {
    const auto keys = testutil::MakeKeys(shape, 3, 200000);
    const std::string filter = BuildFilter(keys);
    auto reader = BlockedBloomReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    size_t misses = 0;
    for (const std::string& key : keys) misses += !reader->MayMatch(key);
    EXPECT_EQ(misses, 0u) << testutil::ShapeName(shape);
  }
}

TEST(BlockedBloomTest, AdjacentRepeatsAreDroppedOnArrival) {
  // A sorted table adds a key once per version, one after the other.
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 50000);
  std::vector<std::string> versions;
  for (const std::string& key : keys) versions.insert(versions.end(), 3, key);
  EXPECT_EQ(BuildFilter(keys), BuildFilter(versions));
}

TEST(BlockedBloomTest, AddKeysBuildsWhatAddKeyBuildsAcrossCallsAndRefills) {
  // Versions of one key in a row, some across the boundary between calls.
  const auto distinct = testutil::MakeKeys(KeyShape::kRandom16, 5, 300000);
  std::vector<std::string> keys;
  for (size_t i = 0; i < distinct.size(); ++i) keys.insert(keys.end(), 1 + i % 3, distinct[i]);
  const std::string one_by_one = BuildFilter(keys);

  // A new thread has no spare buffer from the build above, so the builder's
  // buffer starts small and grows several times inside AddKeys calls.
  size_t buffered = 0;
  absl::StatusOr<std::string> in_calls;
  std::thread([&] {
    auto builder = BlockedBloomBuilder::Create();
    ASSERT_TRUE(builder.ok());
    builder->AddKeys(std::vector<std::string>());
    size_t start = 0;
    // Calls of 0 to 100000 keys, with single AddKey and AddHash between them.
    for (size_t call = 0; start < keys.size(); ++call) {
      const size_t n = std::min(keys.size() - start, (call * 7919) % 100001);
      builder->AddKeys(
          std::vector<std::string_view>(keys.begin() + start, keys.begin() + start + n));
      start += n;
      if (start < keys.size()) builder->AddKey(keys[start++]);
      if (start < keys.size()) builder->AddHash(KeyHash(keys[start++]));
    }
    buffered = builder->num_buffered();
    in_calls = builder->Finish();
  }).join();
  EXPECT_EQ(buffered, distinct.size());
  ASSERT_TRUE(in_calls.ok()) << in_calls.status();
  EXPECT_EQ(*in_calls, one_by_one);
}

TEST(BlockedBloomTest, AddHashesBuildsWhatAddHashBuildsAcrossCallsAndRefills) {
  // Versions of one key in a row, some across the boundary between calls.
  const auto distinct = testutil::MakeKeys(KeyShape::kRandom16, 6, 300000);
  std::vector<uint64_t> hashes;
  for (size_t i = 0; i < distinct.size(); ++i) {
    hashes.insert(hashes.end(), 1 + i % 3, KeyHash(distinct[i]));
  }
  auto one_by_one = BlockedBloomBuilder::Create();
  ASSERT_TRUE(one_by_one.ok());
  for (const uint64_t h : hashes) one_by_one->AddHash(h);
  const absl::StatusOr<std::string> expected = one_by_one->Finish();
  ASSERT_TRUE(expected.ok());

  // A new thread has no spare buffer from the build above, so the builder's
  // buffer grows several times inside AddHashes calls.
  size_t buffered = 0;
  absl::StatusOr<std::string> in_calls;
  std::thread([&] {
    auto builder = BlockedBloomBuilder::Create();
    ASSERT_TRUE(builder.ok());
    builder->AddHashes({});
    size_t start = 0;
    // Calls of 0 to 100000 hashes, with a single AddHash between them.
    for (size_t call = 0; start < hashes.size(); ++call) {
      const size_t n = std::min(hashes.size() - start, (call * 7919) % 100001);
      builder->AddHashes(absl::MakeConstSpan(hashes.data() + start, n));
      start += n;
      if (start < hashes.size()) builder->AddHash(hashes[start++]);
    }
    buffered = builder->num_buffered();
    in_calls = builder->Finish();
  }).join();
  EXPECT_EQ(buffered, distinct.size());
  ASSERT_TRUE(in_calls.ok()) << in_calls.status();
  EXPECT_EQ(*in_calls, *expected);
}

TEST(BlockedBloomTest, RepeatsFarApartAreCountedAndStillMatch) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 10000);
  std::vector<std::string> repeated;
  for (int r = 0; r < 3; ++r) repeated.insert(repeated.end(), keys.begin(), keys.end());
  const std::string bytes = BuildFilter(repeated);
  auto reader = BlockedBloomReader::Open(bytes);
  ASSERT_TRUE(reader.ok());
  // Sized from what was added, as RocksDB does: a plain Bloom filter cannot
  // tell a repeat from a new key without remembering every key.
  EXPECT_EQ(reader->geometry().num_keys, 30000u);
  EXPECT_EQ(reader->geometry().num_blocks, (30000u * 10 + 511) / 512);
  size_t misses = 0;
  for (const std::string& key : keys) misses += !reader->MayMatch(key);
  EXPECT_EQ(misses, 0u);
}

TEST(BlockedBloomTest, InsertionOrderDoesNotChangeBytes) {
  auto keys = testutil::MakeKeys(KeyShape::kBigEndianCounter, 1, 30000);
  const std::string forward = BuildFilter(keys);
  std::reverse(keys.begin(), keys.end());
  EXPECT_EQ(forward, BuildFilter(keys));
}

TEST(BlockedBloomTest, SizedFromTheKeysAdded) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 10000);
  auto bytes = BuildFilter(keys);
  auto reader = BlockedBloomReader::Open(bytes);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().num_keys, 10000u);
  EXPECT_EQ(reader->geometry().num_blocks, (10000u * 10 + 511) / 512);
}

TEST(BlockedBloomTest, LargeFiltersBuiltInGroupsMatchTheReference) {
  // 2^22 hashes at 64 bits/key make a 32 MiB filter, past the size where the
  // builder groups hashes by their top bits before setting them. The bytes
  // must equal the scalar reference's, set one hash at a time in order.
  constexpr uint64_t kCount = uint64_t{1} << 22;
  BlockedBloomOptions options;
  options.bits_per_key = 64.5;
  options.num_probes = 6;
  auto builder = BlockedBloomBuilder::Create(options);
  ASSERT_TRUE(builder.ok());
  std::vector<uint64_t> hashes(kCount);
  for (uint64_t i = 0; i < kCount; ++i) {
    hashes[i] = testutil::SplitMix64(i);
    builder->AddHash(hashes[i]);
  }
  const absl::StatusOr<std::string> built = builder->Finish();
  ASSERT_TRUE(built.ok());
  auto reader = BlockedBloomReader::Open(*built);
  ASSERT_TRUE(reader.ok());
  const BlockedBloomGeometry& g = reader->geometry();
  ASSERT_GT(g.bit_bytes(), uint64_t{32} << 20);
  std::string expected(g.bit_bytes(), '\0');
  internal::ReferenceAdd(reinterpret_cast<uint8_t*>(&expected[0]), g.num_blocks, g.num_probes,
                         hashes.data(), hashes.size());
  EXPECT_TRUE(reader->bits() == expected);
}

TEST(BlockedBloomTest, NonUniformHashesLoseNoKey) {
  // AddHash's contract asks for real key hashes. Values that break it
  // crowd the first blocks and share their low bits (multiples of 2^20):
  // the filter is poor, but must not lose a key.
  constexpr uint64_t kCount = 1000000;
  auto builder = BlockedBloomBuilder::Create();
  ASSERT_TRUE(builder.ok());
  for (uint64_t i = 0; i < kCount; ++i) builder->AddHash(i << 20);
  for (uint64_t i = kCount; i-- > 0;) builder->AddHash(i << 20);
  const absl::StatusOr<std::string> filter = builder->Finish();
  ASSERT_TRUE(filter.ok());
  auto reader = BlockedBloomReader::Open(*filter);
  ASSERT_TRUE(reader.ok());
  // At the turn the same hash arrives twice in a row: dropped on arrival.
  EXPECT_EQ(reader->geometry().num_keys, 2 * kCount - 1);
  size_t misses = 0;
  for (uint64_t i = 0; i < kCount; ++i) misses += !reader->MayMatchHash(i << 20);
  EXPECT_EQ(misses, 0u);
}

TEST(BlockedBloomTest, PolicyBuildersTakeHashesOrKeysAlike) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 3, 20000);
  for (const auto& policy : {DefaultFilterPolicy(), *NewClassicBloomPolicy(10)}) {
    auto by_key = policy->NewBuilder();
    auto by_hash = policy->NewBuilder();
    ASSERT_NE(by_hash->hash_spec(), nullptr) << policy->Name();
    for (const std::string& key : keys) {
      by_key->AddKey(key);
      ASSERT_TRUE(by_hash->AddHash(KeyHash(key, *by_hash->hash_spec())).ok());
    }
    const absl::StatusOr<std::string> a = by_key->Finish();
    const absl::StatusOr<std::string> b = by_hash->Finish();
    ASSERT_TRUE(a.ok() && b.ok()) << policy->Name();
    EXPECT_EQ(*a, *b) << policy->Name();
  }
}

TEST(BlockedBloomTest, BuilderResetsAfterFinish) {
  auto builder = BlockedBloomBuilder::Create();
  ASSERT_TRUE(builder.ok());
  builder->AddKey("a");
  ASSERT_TRUE(builder->Finish().ok());
  EXPECT_EQ(builder->num_buffered(), 0u);
  builder->AddKey("b");
  auto second = builder->Finish();
  ASSERT_TRUE(second.ok());
  auto reader = BlockedBloomReader::Open(*second);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().num_keys, 1u);
  EXPECT_TRUE(reader->MayMatch("b"));
}

TEST(BlockedBloomTest, EmptyFilterIsValidAndRejectsEverything) {
  const std::string filter = BuildFilter({});
  EXPECT_EQ(filter.size(), 64u);
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(reader->geometry().num_blocks, 0u);
  EXPECT_FALSE(reader->MayMatch("anything"));
  const uint64_t hashes[3] = {1, 2, 3};
  bool out[3] = {true, true, true};
  reader->MayMatchBatch(hashes, absl::MakeSpan(out));
  EXPECT_FALSE(out[0] || out[1] || out[2]);
}

TEST(BlockedBloomTest, OneKeyFilterHasOneBlockAndKBitsAtMost) {
  BlockedBloomOptions options;
  options.num_probes = 5;
  const std::string filter = BuildFilter({"only"}, options);
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().num_blocks, 1u);
  int set = 0;
  for (char c : reader->bits()) set += __builtin_popcount(static_cast<uint8_t>(c));
  EXPECT_GE(set, 1);
  EXPECT_LE(set, 5);
  EXPECT_TRUE(reader->MayMatch("only"));
}

TEST(BlockedBloomTest, FractionalBitsPerKeySizesTheFilter) {
  BlockedBloomOptions options;
  options.bits_per_key = 9.6;
  auto g = PlanBlockedBloom(1000000, options);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->num_blocks, 18750u);  // ceil(1e6 * 9.6 / 512)
  EXPECT_NEAR(g->bits_per_key(), 9.6, 1e-9);
  EXPECT_EQ(g->num_probes, OptimalBlockedProbes(9.6));
}

TEST(BlockedBloomTest, TargetFprPicksBitsPerKeyThatMeetsIt) {
  BlockedBloomOptions options;
  options.target_fpr = 0.01;
  auto g = PlanBlockedBloom(1000000, options);
  ASSERT_TRUE(g.ok());
  EXPECT_LE(g->predicted_fpr(), 0.01);
  EXPECT_GT(g->bits_per_key(), 9.0);
  EXPECT_LT(g->bits_per_key(), 11.0);
}

TEST(BlockedBloomTest, GeometryForTenBillionKeysWithoutAllocating) {
  BlockedBloomOptions options;
  auto g = PlanBlockedBloom(10000000000ull, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_blocks, 195312500u);  // 1e11 bits / 512
  EXPECT_EQ(g->bit_bytes(), 12500000000ull);
  EXPECT_EQ(g->serialized_size(), 12500000064ull);
  options.bits_per_key = 1000;  // 2^32 blocks would be exceeded.
  auto too_big = PlanBlockedBloom(10000000000ull, options);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BlockedBloomTest, InvalidOptionsAreRejectedWithTheFieldNamed) {
  BlockedBloomOptions bad;
  bad.bits_per_key = 0;
  auto a = BlockedBloomBuilder::Create(bad);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("bits_per_key"), std::string::npos);
  bad = {};
  bad.num_probes = 17;
  EXPECT_NE(BlockedBloomBuilder::Create(bad).status().message().find("num_probes"),
            std::string::npos);
  bad = {};
  bad.target_fpr = 1.5;
  EXPECT_NE(BlockedBloomBuilder::Create(bad).status().message().find("target_fpr"),
            std::string::npos);
  bad = {};
  bad.bits_per_key = std::nan("");
  EXPECT_FALSE(BlockedBloomBuilder::Create(bad).ok());
}

TEST(BlockedBloomTest, SeedIsStoredAndUsedByTheReader) {
  BlockedBloomOptions options;
  options.hash.seed = 0x1234;
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 1000);
  const std::string seeded = BuildFilter(keys, options);
  EXPECT_NE(seeded, BuildFilter(keys));
  auto reader = BlockedBloomReader::Open(seeded);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().hash.seed, 0x1234u);
  for (const auto& key : keys) ASSERT_TRUE(reader->MayMatch(key));
}

TEST(BlockedBloomTest, ReaderIsSafeOnUnalignedBytes) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 5000);
  const std::string filter = BuildFilter(keys);
  for (size_t offset = 1; offset < 8; ++offset) {
    std::string shifted(offset, 'x');
    shifted += filter;
    auto reader = BlockedBloomReader::Open(std::string_view(shifted).substr(offset));
    ASSERT_TRUE(reader.ok());
    for (const auto& key : keys) ASSERT_TRUE(reader->MayMatch(key));
  }
}

}  // namespace
}  // namespace lsmbloom
