// Ribbon builder and reader: no false negatives on every key shape and size,
// sizing, determinism, options.

#include "lsmbloom/filter/ribbon.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/ribbon_math.h"
#include "src/filter/ribbon/ribbon_slack.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

using testutil::KeyShape;

std::string BuildRibbon(const std::vector<std::string>& keys, const RibbonOptions& options = {}) {
  auto builder = RibbonBuilder::Create(options);
  EXPECT_TRUE(builder.ok()) << builder.status();
  for (const std::string& key : keys) builder->AddKey(key);
  absl::StatusOr<std::string> filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *filter;
}

size_t Misses(const RibbonReader& reader, const std::vector<std::string>& keys) {
  size_t misses = 0;
  for (const std::string& key : keys) misses += !reader.MayMatch(key);
  return misses;
}

TEST(RibbonTest, MillionAddedKeysAllMatchSingleAndBatched) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 7, 1000000);
  RibbonOptions options;
  options.target_fpr = 0.01;
  const std::string filter = BuildRibbon(keys, options);
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(reader->geometry().num_keys, keys.size());
  EXPECT_EQ(Misses(*reader, keys), 0u);

  std::vector<uint64_t> hashes(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) hashes[i] = KeyHash(keys[i]);
  std::unique_ptr<bool[]> answers(new bool[keys.size()]);
  for (size_t batch : {size_t{1}, size_t{7}, size_t{32}, size_t{1000}, keys.size()}) {
    for (size_t start = 0; start < keys.size(); start += batch) {
      const size_t n = std::min(batch, keys.size() - start);
      reader->MayMatchBatch(absl::MakeConstSpan(&hashes[start], n),
                            absl::MakeSpan(&answers[start], n));
    }
    EXPECT_EQ(std::count(answers.get(), answers.get() + keys.size(), false), 0) << batch;
  }
}

TEST(RibbonTest, StructuredKeysAllMatch) {
  for (KeyShape shape : {KeyShape::kBigEndianCounter, KeyShape::kSharedPrefix}) {
    const auto keys = testutil::MakeKeys(shape, 3, 200000);
    const std::string filter = BuildRibbon(keys);
    auto reader = RibbonReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(Misses(*reader, keys), 0u) << testutil::ShapeName(shape);
  }
}

// Every size from 0 to 300 (the small-filter edge: two segments, starts
// near the band's end), then sizes around segment multiples, each at a few
// widths.
TEST(RibbonTest, EverySmallSizeAndWidthHasNoFalseNegatives) {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 300; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4095, 4096, 4097, 65536, 100003}) sizes.push_back(n);
  for (size_t n : sizes) {
    const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 11, n);
    for (double bits : {1.1, 3.3, 7.0, 12.9, 33.0}) {
      RibbonOptions options;
      options.bits_per_key = bits;
      const std::string filter = BuildRibbon(keys, options);
      auto reader = RibbonReader::Open(filter);
      ASSERT_TRUE(reader.ok()) << reader.status();
      ASSERT_EQ(Misses(*reader, keys), 0u) << n << " keys at " << bits;
    }
  }
}

TEST(RibbonTest, EmptyFilterIsValidAndRejectsEverything) {
  const std::string filter = BuildRibbon({});
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(filter.size(), 64u);
  EXPECT_EQ(reader->geometry().num_segments, 0u);
  EXPECT_FALSE(reader->MayMatch("anything"));
  const uint64_t hashes[3] = {0, 1, ~uint64_t{0}};
  bool out[3] = {true, true, true};
  reader->MayMatchBatch(hashes, absl::MakeSpan(out));
  EXPECT_FALSE(out[0] || out[1] || out[2]);
}

TEST(RibbonTest, OneKeyFilterHasTwoSegmentsAndMatchesIt) {
  const std::string filter = BuildRibbon({"only"});
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().num_segments, 2u);
  EXPECT_TRUE(reader->MayMatch("only"));
  size_t matches = 0;
  for (int i = 0; i < 10000; ++i) matches += reader->MayMatch("other" + std::to_string(i));
  EXPECT_LT(matches, 10000u);  // A one-key filter still filters.
}

TEST(RibbonTest, InsertionOrderDoesNotChangeBytes) {
  auto keys = testutil::MakeKeys(KeyShape::kBigEndianCounter, 1, 30000);
  const std::string forward = BuildRibbon(keys);
  std::reverse(keys.begin(), keys.end());
  EXPECT_EQ(forward, BuildRibbon(keys));
}

TEST(RibbonTest, RepeatsAnywhereChangeNoSolutionBit) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 20000);
  std::vector<std::string> adjacent;
  for (const auto& key : keys) adjacent.insert(adjacent.end(), 3, key);
  EXPECT_EQ(BuildRibbon(keys), BuildRibbon(adjacent));  // Dropped on arrival.
  std::vector<std::string> twice = keys;
  twice.insert(twice.end(), keys.begin(), keys.end());
  const std::string filter = BuildRibbon(twice);  // The reader views it.
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().num_keys, 40000u);  // Counted, as in Bloom.
  EXPECT_EQ(Misses(*reader, keys), 0u);
}

TEST(RibbonTest, FractionalBitsPerKeySizesTheSolution) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 100000);
  for (double bits : {6.5, 7.05, 7.5, 9.9}) {
    RibbonOptions options;
    options.bits_per_key = bits;
    const std::string filter = BuildRibbon(keys, options);  // The reader views it.
    auto reader = RibbonReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    EXPECT_NEAR(reader->geometry().bits_per_key(), bits, 0.001) << bits;
    EXPECT_EQ(reader->geometry().num_columns, static_cast<int>(bits * 100000 / 64 /
                                                               reader->geometry().num_segments));
  }
}

TEST(RibbonTest, TargetFprPicksTheSmallestFilterThatMeetsIt) {
  for (double target : {0.1, 0.01, 0.001, 1e-6}) {
    RibbonOptions options;
    options.target_fpr = target;
    auto g = PlanRibbon(1000000, options);
    ASSERT_TRUE(g.ok());
    EXPECT_LE(g->predicted_fpr(), target);
    // One word less would miss the target.
    RibbonGeometry smaller = *g;
    if (smaller.upper_start < smaller.num_segments) {
      ++smaller.upper_start;
    } else {
      --smaller.num_columns;
      smaller.upper_start = 0;
    }
    EXPECT_GT(smaller.predicted_fpr(), target);
    // Within 6% of the information-theoretic bound's size, plus the slack.
    EXPECT_LT(g->bits_per_key(), 1.06 * (1 + RibbonSlotOverhead(1000000)) * std::log2(1 / target))
        << target;
  }
}

TEST(RibbonTest, InvalidOptionsAreRejectedWithTheFieldNamed) {
  RibbonOptions options;
  options.bits_per_key = 0.5;
  EXPECT_NE(RibbonBuilder::Create(options).status().message().find("bits_per_key"),
            std::string::npos);
  options = RibbonOptions();
  options.target_fpr = 0.9;
  EXPECT_NE(RibbonBuilder::Create(options).status().message().find("target_fpr"),
            std::string::npos);
}

TEST(RibbonTest, SeedIsStoredAndUsedByTheReader) {
  RibbonOptions options;
  options.hash.seed = 12345;
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 1000);
  const std::string filter = BuildRibbon(keys, options);
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().hash.seed, 12345u);
  EXPECT_EQ(Misses(*reader, keys), 0u);
  EXPECT_NE(filter, BuildRibbon(keys));
}

TEST(RibbonTest, ReaderIsSafeOnUnalignedBytes) {
  const auto keys = testutil::MakeKeys(KeyShape::kRandom16, 1, 5000);
  const std::string filter = BuildRibbon(keys);
  for (size_t offset = 1; offset < 8; ++offset) {
    std::string shifted(offset, 'x');
    shifted += filter;
    auto reader = RibbonReader::Open(std::string_view(shifted).substr(offset));
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(Misses(*reader, keys), 0u);
  }
}

}  // namespace
}  // namespace lsmbloom
