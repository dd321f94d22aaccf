// Tables carrying a Ribbon filter: written, reopened, every key found, absent
// keys filtered at about the Ribbon filter's rate, by default readers too; a
// reader given policies without Ribbon still answers correctly, unfiltered.

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/table/table.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;

std::shared_ptr<const FilterPolicy> RibbonAtOnePercent() {
  RibbonOptions options;
  options.target_fpr = 0.01;
  return *NewRibbonPolicy(options);
}

TEST(RibbonTableTest, RoundTripFindsEveryKeyAndFiltersAbsentOnes) {
  const std::vector<Entry> entries = testutil::MakeEntries(30000, 5);
  TableOptions options;
  options.filter_policy = RibbonAtOnePercent();
  const std::string bytes = testutil::BuildTable(entries, options);
  TableReadOptions read_options;
  read_options.filter_policies = {RibbonAtOnePercent()};
  auto table = Table::Open(NewMemRandomAccessFile(bytes), read_options);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
  const FilterReader* filter = (*table)->whole_key_filter();
  ASSERT_NE(filter, nullptr);
  EXPECT_NE(filter->Describe().find("ribbon"), std::string::npos) << filter->Describe();
  EXPECT_LT(filter->bits_per_key(), 7.2);
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  for (const Entry& e : entries) ASSERT_TRUE((*table)->KeyMayMatch(e.key)) << e.key;

  size_t passed = 0;
  const int absent = 100000;
  for (int i = 0; i < absent; ++i) passed += (*table)->KeyMayMatch(testutil::AbsentKey(i));
  // ~1% (sd 0.03% over 10^5 probes); well under the blocked filter's default.
  EXPECT_LT(passed, absent * 0.013);
  EXPECT_GT(passed, absent * 0.007);
}

TEST(RibbonTableTest, BatchedHashProbesThroughThePolicyMatchSingleOnes) {
  auto policy = RibbonAtOnePercent();
  auto builder = policy->NewBuilder();
  ASSERT_NE(builder->hash_spec(), nullptr);
  std::vector<uint64_t> hashes;
  for (int i = 0; i < 5000; ++i) {
    hashes.push_back(KeyHash("k" + std::to_string(i), *builder->hash_spec()));
    ASSERT_TRUE(builder->AddHash(hashes.back()).ok());
  }
  for (int i = 0; i < 5000; ++i) hashes.push_back(KeyHash("absent" + std::to_string(i)));
  const std::string filter = *builder->Finish();
  auto reader = policy->NewReader(filter);
  ASSERT_TRUE(reader.ok());
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  (*reader)->HashesMayMatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    ASSERT_EQ(out[i], (*reader)->HashMayMatch(hashes[i])) << i;
    if (i < 5000) {
      ASSERT_TRUE(out[i]) << i;
    }
  }
  EXPECT_TRUE((*reader)->KeyMayMatch("k1"));
}

TEST(RibbonTableTest, CorruptFilterIsRefusedWithTheReason) {
  auto policy = RibbonAtOnePercent();
  auto builder = policy->NewBuilder();
  builder->AddKey("a");
  std::string filter = *builder->Finish();
  filter[70] ^= 1;
  const auto reader = policy->NewReader(filter);
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(reader.status().message().find("checksum"), std::string::npos);
}

TEST(RibbonTableTest, DefaultReadOptionsFilterWithTheRibbonFilter) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 2);
  TableOptions options;
  options.filter_policy = RibbonAtOnePercent();
  const std::string bytes = testutil::BuildTable(entries, options);
  auto table = Table::Open(NewMemRandomAccessFile(bytes));  // Default: the built-in policies.
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
  const FilterReader* filter = (*table)->whole_key_filter();
  ASSERT_NE(filter, nullptr);
  EXPECT_NE(filter->Describe().find("ribbon"), std::string::npos) << filter->Describe();
  EXPECT_GT(filter->predicted_fpr(), 0.005);
  EXPECT_LT(filter->predicted_fpr(), 0.0101);
  for (const Entry& e : entries) ASSERT_TRUE((*table)->KeyMayMatch(e.key)) << e.key;
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  size_t passed = 0;
  const int absent = 50000;
  for (int i = 0; i < absent; ++i) passed += (*table)->KeyMayMatch(testutil::AbsentKey(i));
  // ~1% (500, sd 22): an unfiltered table would pass all 50000.
  EXPECT_LT(passed, absent * 0.014);
}

TEST(RibbonTableTest, BuiltinPoliciesIncludeRibbon) {
  bool found = false;
  for (const auto& policy : BuiltinFilterPolicies()) found |= policy->Name() == kRibbonPolicyName;
  EXPECT_TRUE(found);
}

TEST(RibbonTableTest, ReaderGivenPoliciesWithoutRibbonAnswersWithoutFiltering) {
  const std::vector<Entry> entries = testutil::MakeEntries(5000, 2);
  TableOptions options;
  options.filter_policy = RibbonAtOnePercent();
  const std::string bytes = testutil::BuildTable(entries, options);
  TableReadOptions read_options;
  read_options.filter_policies = {DefaultFilterPolicy()};  // Blocked Bloom only.
  auto table = Table::Open(NewMemRandomAccessFile(bytes), read_options);
  ASSERT_TRUE(table.ok());
  EXPECT_FALSE((*table)->filter_status().ok());
  EXPECT_NE((*table)->filter_status().message().find(kRibbonPolicyName), std::string::npos)
      << (*table)->filter_status();
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
}

TEST(RibbonTableTest, InvalidOptionsAreRefused) {
  RibbonOptions options;
  options.bits_per_key = 100;
  EXPECT_EQ(NewRibbonPolicy(options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lsmbloom
