// RibbonOptions::max_construction_bytes: a Ribbon build whose band would
// exceed the bound builds a blocked Bloom filter of about the same FPR
// instead, which finds every key, is told apart by its magic, and which the
// Ribbon policy's readers (so tables) open; within the bound nothing changes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/table/table.h"
#include "tests/table_testutil.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

using testutil::KeyShape;
using testutil::MakeKeys;

constexpr size_t kMiB = size_t{1} << 20;

RibbonOptions AtFpr(double fpr, size_t bound) {
  RibbonOptions options;
  options.target_fpr = fpr;
  options.max_construction_bytes = bound;
  return options;
}

std::string Build(const RibbonOptions& options, const std::vector<std::string>& keys,
                  bool* fell_back = nullptr) {
  auto builder = RibbonBuilder::Create(options);
  EXPECT_TRUE(builder.ok()) << builder.status();
  builder->AddKeys(keys);
  absl::StatusOr<std::string> filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  if (fell_back != nullptr) *fell_back = builder->fell_back();
  return *filter;
}

TEST(RibbonBoundTest, ConstructionBytesAreAbout25PerKey) {
  const RibbonGeometry g = *PlanRibbon(10000000, AtFpr(0.01, 0));
  const double per_key = static_cast<double>(RibbonConstructionBytes(g)) / g.num_keys;
  EXPECT_GT(per_key, 24.0);
  EXPECT_LT(per_key, 26.0);
  EXPECT_EQ(RibbonConstructionBytes(*PlanRibbon(0, RibbonOptions())), 0u);
}

TEST(RibbonBoundTest, DefaultBoundIsOneGibAndKeepsTenMillionKeysRibbon) {
  const RibbonOptions options;
  EXPECT_EQ(options.max_construction_bytes, size_t{1} << 30);
  EXPECT_LT(RibbonConstructionBytes(*PlanRibbon(10000000, options)), options.max_construction_bytes);
  EXPECT_GT(RibbonConstructionBytes(*PlanRibbon(50000000, options)), options.max_construction_bytes);
}

TEST(RibbonBoundTest, SmallBoundFallsBackToBloomThatFindsEveryKey) {
  const std::vector<std::string> keys = MakeKeys(KeyShape::kRandom16, 1, 200000);
  const RibbonOptions options = AtFpr(0.01, kMiB);
  ASSERT_GT(RibbonConstructionBytes(*PlanRibbon(keys.size(), options)), kMiB);
  bool fell_back = false;
  const std::string filter = Build(options, keys, &fell_back);
  EXPECT_TRUE(fell_back);
  EXPECT_EQ(filter.substr(0, 4), "LBBF");
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(reader->geometry().num_keys, keys.size());
  EXPECT_EQ(reader->geometry().hash, options.hash);
  for (const std::string& key : keys) ASSERT_TRUE(reader->MayMatch(key)) << key;
}

TEST(RibbonBoundTest, FallbackFprStaysNearTheRibbonPrediction) {
  const std::vector<std::string> keys = MakeKeys(KeyShape::kBigEndianCounter, 2, 200000);
  for (const double fpr : {0.01, 0.001}) {
    const RibbonOptions options = AtFpr(fpr, kMiB);
    const double ribbon_predicted = PlanRibbon(keys.size(), options)->predicted_fpr();
    const std::string filter = Build(options, keys);
    auto reader = BlockedBloomReader::Open(filter);
    ASSERT_TRUE(reader.ok()) << reader.status();
    const double predicted = reader->geometry().predicted_fpr();
    EXPECT_LE(predicted, ribbon_predicted * 1.01) << fpr;
    EXPECT_GT(predicted, ribbon_predicted * 0.7) << fpr;
    // Keys of another family are certainly absent.
    const std::vector<std::string> absent = MakeKeys(KeyShape::kBigEndianCounter, 3, 2000000);
    size_t passed = 0;
    for (const std::string& key : absent) passed += reader->MayMatch(key);
    const double measured = static_cast<double>(passed) / absent.size();
    // Within 20% of the prediction (sd ~1% at 1%, ~3% at 0.1%).
    EXPECT_NEAR(measured, predicted, 0.2 * predicted) << fpr;
  }
}

TEST(RibbonBoundTest, FallbackFromBitsPerKeyMatchesTheRibbonFprItBought) {
  const std::vector<std::string> keys = MakeKeys(KeyShape::kSharedPrefix, 4, 100000);
  RibbonOptions options;
  options.bits_per_key = 10.0;
  options.max_construction_bytes = kMiB;
  const double ribbon_predicted = PlanRibbon(keys.size(), options)->predicted_fpr();
  bool fell_back = false;
  const std::string filter = Build(options, keys, &fell_back);
  ASSERT_TRUE(fell_back);
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_LE(reader->geometry().predicted_fpr(), ribbon_predicted * 1.01);
  // A blocked filter needs ~40-50% more bits for the Ribbon filter's FPR.
  EXPECT_GT(reader->geometry().bits_per_key(), 12.0);
  EXPECT_LT(reader->geometry().bits_per_key(), 16.0);
  for (const std::string& key : keys) ASSERT_TRUE(reader->MayMatch(key)) << key;
}

TEST(RibbonBoundTest, WithinTheBoundTheFilterIsTheUnboundedOne) {
  const std::vector<std::string> keys = MakeKeys(KeyShape::kRandom16, 5, 100000);
  const size_t peak = RibbonConstructionBytes(*PlanRibbon(keys.size(), AtFpr(0.01, 0)));
  bool fell_back = true;
  const std::string unbounded = Build(AtFpr(0.01, 0), keys);
  EXPECT_EQ(Build(AtFpr(0.01, peak), keys, &fell_back), unbounded);
  EXPECT_FALSE(fell_back);
  EXPECT_EQ(Build(AtFpr(0.01, size_t{1} << 30), keys), unbounded);
  EXPECT_EQ(unbounded.substr(0, 4), "LRBF");
  EXPECT_TRUE(Build(AtFpr(0.01, peak - 1), keys, &fell_back).substr(0, 4) == "LBBF");
  EXPECT_TRUE(fell_back);
}

TEST(RibbonBoundTest, FellBackIsPerFinishAndCounted) {
  auto builder = RibbonBuilder::Create(AtFpr(0.01, kMiB));
  ASSERT_TRUE(builder.ok());
  builder->AddKeys(MakeKeys(KeyShape::kRandom16, 6, 100000));
  ASSERT_TRUE(builder->Finish().ok());
  EXPECT_TRUE(builder->fell_back());
  builder->AddKeys(MakeKeys(KeyShape::kRandom16, 6, 1000));
  absl::StatusOr<std::string> small = builder->Finish();
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(builder->fell_back());
  EXPECT_TRUE(RibbonReader::Open(*small).ok());
  EXPECT_EQ(builder->num_fallbacks(), 1u);
}

TEST(RibbonBoundTest, RibbonReaderRefusesTheFallbackSayingWhatItIs) {
  const std::string filter =
      Build(AtFpr(0.01, kMiB), MakeKeys(KeyShape::kRandom16, 7, 100000));
  auto reader = RibbonReader::Open(filter);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(reader.status().message().find("BlockedBloomReader"), std::string::npos)
      << reader.status();
}

TEST(RibbonBoundTest, BoundBelowOneMibIsRejectedNamingTheField) {
  for (const size_t bad : {size_t{1}, size_t{4096}, kMiB - 1}) {
    const RibbonOptions options = AtFpr(0.01, bad);
    const absl::Status status = ValidateRibbonOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("max_construction_bytes"), std::string::npos) << status;
    EXPECT_FALSE(RibbonBuilder::Create(options).ok());
    EXPECT_FALSE(NewRibbonPolicy(options).ok());
  }
  EXPECT_TRUE(ValidateRibbonOptions(AtFpr(0.01, 0)).ok());
  EXPECT_TRUE(ValidateRibbonOptions(AtFpr(0.01, kMiB)).ok());
}

TEST(RibbonBoundTest, PolicyReadsBothKindsAndDescribesTheFallback) {
  auto policy = *NewRibbonPolicy(AtFpr(0.01, kMiB));
  for (const size_t n : {size_t{1000}, size_t{100000}}) {
    const std::vector<std::string> keys = MakeKeys(KeyShape::kRandom16, 8, n);
    auto builder = policy->NewBuilder();
    for (const std::string& key : keys) builder->AddKey(key);
    absl::StatusOr<std::string> filter = builder->Finish();
    ASSERT_TRUE(filter.ok());
    auto reader = policy->NewReader(*filter);
    ASSERT_TRUE(reader.ok()) << reader.status();
    const std::string describe = (*reader)->Describe();
    if (n == 1000) {
      EXPECT_EQ(describe.rfind("ribbon v1", 0), 0u) << describe;
    } else {
      EXPECT_EQ(describe.rfind("blocked bloom v1 (the ribbon policy's fallback", 0), 0u)
          << describe;
    }
    for (const std::string& key : keys) ASSERT_TRUE((*reader)->KeyMayMatch(key)) << key;
    std::vector<uint64_t> hashes;
    for (const std::string& key : keys) hashes.push_back(KeyHash(key));
    std::unique_ptr<bool[]> out(new bool[hashes.size()]);
    (*reader)->HashesMayMatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
    for (size_t i = 0; i < hashes.size(); ++i) ASSERT_TRUE(out[i]) << i;
  }
}

TEST(RibbonBoundTest, TableWrittenUnderTinyBoundReadsBackEveryKey) {
  // ~75,000 distinct keys: a Ribbon band of ~1.8 MB, over the 1 MiB bound.
  const std::vector<testutil::Entry> entries = testutil::MakeEntries(150000, 9);
  TableOptions options;
  options.filter_policy = *NewRibbonPolicy(AtFpr(0.01, kMiB));
  const std::string bytes = testutil::BuildTable(entries, options);
  for (const bool default_policies : {true, false}) {
    TableReadOptions read_options;
    if (!default_policies) read_options.filter_policies = {options.filter_policy};
    auto table = Table::Open(NewMemRandomAccessFile(bytes), read_options);
    ASSERT_TRUE(table.ok()) << table.status();
    ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
    EXPECT_EQ((*table)->properties().filter_policy, kRibbonPolicyName);
    const FilterReader* filter = (*table)->whole_key_filter();
    ASSERT_NE(filter, nullptr);
    EXPECT_NE(filter->Describe().find("fallback"), std::string::npos) << filter->Describe();
    EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
    for (const testutil::Entry& e : entries) ASSERT_TRUE((*table)->KeyMayMatch(e.key)) << e.key;
    size_t passed = 0;
    const int absent = 100000;
    for (int i = 0; i < absent; ++i) passed += (*table)->KeyMayMatch(testutil::AbsentKey(i, 240000));
    EXPECT_LT(passed, absent * 0.013);
  }
}

}  // namespace
}  // namespace lsmbloom
