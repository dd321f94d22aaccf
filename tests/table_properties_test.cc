// TableProperties: the typed form of the properties block, its encoding and
// its checks.

#include "lsmbloom/table/table_properties.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using Props = TableProperties;

TableProperties Full() {
  TableProperties p;
  p.format_version = 2;
  p.creator = "lsmbloom";
  p.unique_id = 0x00c0ffee00c0ffeeull;
  p.creation_time = 1796321039;
  p.num_entries = 60;
  p.num_deletions = 12;
  p.num_data_blocks = 5;
  p.data_size = 1244;
  p.raw_key_size = 360;
  p.raw_value_size = 410;
  p.block_size = 256;
  p.restart_interval = 16;
  p.compression = Compression::kZstd;
  p.filter_policy = "lsmbloom.BlockedBloom.v1";
  p.filter_size = 192;
  p.filter_params = "blocked bloom v1: 6 probes";
  p.filter_keys_added = 60;
  p.filter_whole_key = true;
  p.filter_prefix_extractor = "lsmbloom.FixedPrefix.3";
  p.smallest_user_key = std::string("k\0a", 3);
  p.largest_user_key = "k\xff";
  return p;
}

TEST(TablePropertiesTest, EveryFieldSurvivesEncodeAndDecode) {
  const TableProperties p = Full();
  const std::map<std::string, std::string> encoded = EncodeTableProperties(p);
  absl::StatusOr<TableProperties> back = DecodeTableProperties(encoded);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeTableProperties(*back), encoded);
  EXPECT_EQ(back->unique_id, p.unique_id);
  EXPECT_EQ(back->creation_time, p.creation_time);
  EXPECT_EQ(back->num_deletions, 12u);
  EXPECT_EQ(back->restart_interval, 16);
  EXPECT_EQ(back->compression, Compression::kZstd);
  EXPECT_TRUE(back->filter_whole_key);
  EXPECT_EQ(back->smallest_user_key, p.smallest_user_key);
  EXPECT_EQ(back->largest_user_key, p.largest_user_key);
  EXPECT_TRUE(back->unknown.empty());
}

TEST(TablePropertiesTest, StoredFormIsTheDocumentedStrings) {
  const std::map<std::string, std::string> e = EncodeTableProperties(Full());
  EXPECT_EQ(e.size(), 21u);
  EXPECT_EQ(e.at("lsmbloom.unique_id"), "00c0ffee00c0ffee");
  EXPECT_EQ(e.at("lsmbloom.compression"), "zstd");
  EXPECT_EQ(e.at("lsmbloom.filter.whole_key"), "1");
  EXPECT_EQ(e.at("lsmbloom.num_entries"), "60");
  EXPECT_EQ(e.at("lsmbloom.creation_time"), "1796321039");
}

TEST(TablePropertiesTest, TableReadsBackWhatItsBuilderRecorded) {
  const std::vector<testutil::Entry> entries = testutil::MakeEntries(500, 7);
  TableOptions options;
  options.compression = Compression::kSnappy;
  options.block_size = 512;
  const std::string bytes = testutil::BuildTable(entries, options);
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok()) << table.status();
  const TableProperties& p = (*table)->properties();
  EXPECT_EQ(p.num_entries, entries.size());
  EXPECT_EQ(p.compression, Compression::kSnappy);
  EXPECT_EQ(p.block_size, 512u);
  EXPECT_EQ(p.unique_id, (*table)->unique_id());
  EXPECT_EQ(p.filter_policy, "lsmbloom.BlockedBloom.v1");
  EXPECT_TRUE(p.filter_whole_key);
  EXPECT_EQ(p.smallest_user_key, entries.front().key);
  EXPECT_EQ(p.largest_user_key, entries.back().key);
  EXPECT_TRUE(p.unknown.empty());
}

TEST(TablePropertiesTest, MissingPropertiesDecodeToDefaults) {
  // A format version 1 table has no unique id; an older writer may lack more.
  absl::StatusOr<TableProperties> p = DecodeTableProperties({{Props::kNumEntries, "3"}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->num_entries, 3u);
  EXPECT_EQ(p->unique_id, 0u);
  EXPECT_EQ(p->compression, Compression::kNone);
  EXPECT_TRUE(p->filter_policy.empty());
}

TEST(TablePropertiesTest, UnknownPropertiesAreKeptAndWrittenBackButNeverOverrideKnownOnes) {
  std::map<std::string, std::string> recorded = EncodeTableProperties(Full());
  recorded["lsmbloom.some_future_count"] = "7";
  recorded["acme.owner"] = "team-x";
  absl::StatusOr<TableProperties> p = DecodeTableProperties(recorded);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->unknown, (std::map<std::string, std::string>{{"acme.owner", "team-x"},
                                                            {"lsmbloom.some_future_count", "7"}}));
  EXPECT_EQ(EncodeTableProperties(*p), recorded);

  TableProperties q = Full();
  q.unknown[Props::kNumEntries] = "999";
  EXPECT_EQ(EncodeTableProperties(q).at(Props::kNumEntries), "60");
}

struct Damage {
  const char* name;
  const char* value;
};

TEST(TablePropertiesTest, EachDamagedPropertyIsDataLossNamingIt) {
  const std::vector<Damage> damages = {
      {Props::kNumEntries, "abc"},
      {Props::kNumEntries, "-1"},
      {Props::kNumEntries, " 60"},
      {Props::kNumEntries, ""},
      {Props::kNumEntries, "18446744073709551616"},  // 2^64.
      {Props::kNumDeletions, "61"},                  // More than the entries.
      {Props::kNumDataBlocks, "5x"},
      {Props::kDataSize, "+1244"},
      {Props::kRawKeySize, "1e3"},
      {Props::kRawValueSize, "0x10"},
      {Props::kBlockSize, "4096.0"},
      {Props::kRestartInterval, "2147483648"},  // Above INT_MAX.
      {Props::kFormatVersion, "4294967296"},    // Above 32 bits.
      {Props::kCreationTime, "-5"},
      {Props::kCompression, "lz4"},
      {Props::kCompression, "ZSTD"},
      {Props::kFilterSize, "big"},
      {Props::kFilterKeysAdded, "1 "},
      {Props::kFilterWholeKey, "yes"},
      {Props::kUniqueId, "00c0ffee00c0ffe"},   // 15 digits.
      {Props::kUniqueId, "00C0FFEE00C0FFEE"},  // Not as written.
      {Props::kUniqueId, "00c0ffee00c0ffeg"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(std::string(d.name) + " = '" + d.value + "'");
    std::map<std::string, std::string> recorded = EncodeTableProperties(Full());
    recorded[d.name] = d.value;
    absl::StatusOr<TableProperties> p = DecodeTableProperties(recorded);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(p.status().message().find(d.name), std::string::npos) << p.status();
  }
}

TEST(TablePropertiesTest, LargestValuesOfEachRangeDecode) {
  std::map<std::string, std::string> recorded = EncodeTableProperties(Full());
  recorded[Props::kNumEntries] = "18446744073709551615";
  recorded[Props::kRestartInterval] = "2147483647";
  recorded[Props::kUniqueId] = "ffffffffffffffff";
  absl::StatusOr<TableProperties> p = DecodeTableProperties(recorded);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->num_entries, ~uint64_t{0});
  EXPECT_EQ(p->restart_interval, 2147483647);
  EXPECT_EQ(p->unique_id, ~uint64_t{0});
}

}  // namespace
}  // namespace lsmbloom
