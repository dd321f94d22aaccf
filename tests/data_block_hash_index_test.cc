// Data blocks with a hash index (TableOptions::data_block_hash_index, table
// format 3): every answer as without it, whatever the block geometry, and a
// damaged index an error, never a wrong answer.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/table_surgery.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;
using Kind = LookupResult::Kind;

TableOptions IndexedOptions(size_t block_size, int restart_interval) {
  TableOptions options;
  options.data_block_hash_index = true;
  options.filter_policy = nullptr;  // Every lookup reaches a data block.
  options.block_size = block_size;
  options.restart_interval = restart_interval;
  return options;
}

std::unique_ptr<Table> OpenTable(std::string bytes, bool verify = true) {
  TableReadOptions read;
  read.verify_checksums = verify;
  auto table = Table::Open(NewMemRandomAccessFile(std::move(bytes)), read);
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? std::move(*table) : nullptr;
}

// Small and large blocks, short and long intervals, and blocks of more
// restarts than an index can name (interval 1, 16 KiB blocks), which are
// written without one: present keys (several versions, tombstones), absent
// keys inside every block's range, and a full scan all match the model.
TEST(DataBlockHashIndexTest, IndexedTablesAnswerEveryKeyAsTheModel) {
  const std::vector<Entry> entries = testutil::MakeEntries(4000, 7);
  for (const auto& [block_size, interval] :
       std::vector<std::pair<size_t, int>>{{4096, 16}, {512, 4}, {256, 1}, {64, 2}, {16384, 1}}) {
    SCOPED_TRACE(::testing::Message() << "block " << block_size << " interval " << interval);
    std::unique_ptr<Table> table =
        OpenTable(testutil::BuildTable(entries, IndexedOptions(block_size, interval)));
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->format_version(), 3u);
    EXPECT_EQ(table->properties().format_version, 3u);
    EXPECT_EQ(testutil::CountWrongAnswers(*table, entries), 0u);
    size_t wrong = 0;
    for (uint64_t i = 0; i < 4000; ++i) {
      // MakeEntries(_, 7) uses keys 3i + 1: the others are absent.
      for (const std::string& key : {testutil::TableKey(3 * i), testutil::AbsentKey(i, 4000)}) {
        absl::StatusOr<LookupResult> got = table->Get(key);
        wrong += !got.ok() || got->kind != Kind::kNotFound;
      }
    }
    EXPECT_EQ(wrong, 0u);
    std::unique_ptr<TableIterator> it = table->NewIterator();
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      ASSERT_LT(n, entries.size());
      ASSERT_EQ(it->entry().user_key, entries[n].key);
      ASSERT_EQ(it->entry().sequence, entries[n].seq);
    }
    EXPECT_TRUE(it->status().ok()) << it->status();
    EXPECT_EQ(n, entries.size());
  }
}

// Every string of up to `max_size` bytes over `alphabet`, in byte order.
std::vector<std::string> AllStrings(const std::string& alphabet, size_t max_size) {
  std::vector<std::string> out = {""};
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].size() == max_size) continue;
    for (char c : alphabet) out.push_back(out[i] + c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A point lookup's scan judges each entry from the bytes it shares with
// the previous key: keys that are prefixes of one another, and keys whose
// bytes after a shorter key equal that key's tag bytes (small sequence
// numbers and types are bytes 0x00-0x02), so that a key shares bytes of
// its predecessor's tag. Every lookup, of present and absent keys, in
// blocks with and without the hash index, answers as the model.
TEST(DataBlockHashIndexTest, KeysSharingPrefixesAndTagBytesAnswerAsTheModel) {
  const std::string alphabet("\x00\x01\x02\xff", 4);
  const std::vector<std::string> queries = AllStrings(alphabet + "a", 4);
  std::vector<Entry> entries;
  uint64_t n = 0;
  for (const std::string& key : AllStrings(alphabet, 3)) {
    if (key.empty() || testutil::SplitMix64(++n) % 3 == 0) continue;  // Some absent.
    const int versions = 1 + static_cast<int>(testutil::SplitMix64(n + 1000) % 3);
    for (int v = versions; v >= 1; --v) {  // Newest first, as tables order them.
      const bool tombstone = testutil::SplitMix64(n + 2000 + v) % 4 == 0;
      entries.push_back({key, static_cast<uint64_t>(v),
                         tombstone ? EntryType::kDeletion : EntryType::kValue,
                         tombstone ? "" : key + "=" + std::to_string(v)});
    }
  }
  for (const bool hash_index : {false, true}) {
    for (const auto& [block_size, interval] :
         std::vector<std::pair<size_t, int>>{{4096, 16}, {4096, 3}, {256, 2}, {64, 1}}) {
      SCOPED_TRACE(::testing::Message() << "hash index " << hash_index << ", block " << block_size
                                        << ", interval " << interval);
      TableOptions options = IndexedOptions(block_size, interval);
      options.data_block_hash_index = hash_index;
      std::unique_ptr<Table> table = OpenTable(testutil::BuildTable(entries, options));
      ASSERT_NE(table, nullptr);
      size_t wrong = 0;
      for (const std::string& key : queries) {
        absl::StatusOr<LookupResult> got = table->Get(key);
        wrong += !got.ok() || !testutil::SameAsModel(*got, testutil::ModelGet(entries, key));
      }
      EXPECT_EQ(wrong, 0u);
    }
  }
}

TEST(DataBlockHashIndexTest, OnlyTablesWithTheIndexAreFormat3) {
  const std::vector<Entry> entries = testutil::MakeEntries(500, 1);
  std::unique_ptr<Table> plain = OpenTable(testutil::BuildTable(entries, TableOptions()));
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->format_version(), 2u);
  std::unique_ptr<Table> indexed = OpenTable(testutil::BuildTable(entries, IndexedOptions(4096, 16)));
  ASSERT_NE(indexed, nullptr);
  EXPECT_EQ(indexed->format_version(), 3u);
}

// The index's bytes are under the block checksum: a flipped bucket is a
// checksum error. Unverified, a bucket naming a restart the block lacks is
// still an error, never an answer.
TEST(DataBlockHashIndexTest, DamagedBucketsAreErrorsNeverWrongAnswers) {
  const std::vector<Entry> entries = testutil::MakeEntries(300, 1);
  const std::string good = testutil::BuildTable(entries, IndexedOptions(4096, 16));
  std::vector<testutil::Region> regions;
  ASSERT_TRUE(testutil::FindRegions(good, &regions));
  const std::vector<testutil::Region> data = testutil::RegionsNamed(regions, "data");
  ASSERT_FALSE(data.empty());

  // Every bucket of every data block names restart 252: past the restarts
  // of 4 KiB blocks of interval 16.
  std::string bad = good;
  for (const testutil::Region& r : data) {
    const size_t end = r.begin + r.block_size();
    ASSERT_NE(testutil::GetFixed32(bad.data() + end - 4) & 0x80000000u, 0u);
    const size_t buckets = static_cast<uint8_t>(bad[end - 6]) | size_t{static_cast<uint8_t>(bad[end - 5])} << 8;
    ASSERT_GT(buckets, 0u);
    for (size_t b = end - 6 - buckets; b < end - 6; ++b) bad[b] = static_cast<char>(252);
  }
  for (bool verify : {true, false}) {
    SCOPED_TRACE(verify ? "verified" : "unverified");
    std::unique_ptr<Table> table = OpenTable(bad, verify);
    ASSERT_NE(table, nullptr);
    size_t errors = 0, lookups = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0 && entries[i].key == entries[i - 1].key) continue;
      absl::StatusOr<LookupResult> got = table->Get(entries[i].key);
      ++lookups;
      errors += !got.ok() && absl::IsDataLoss(got.status());
    }
    EXPECT_EQ(errors, lookups);
  }
}

// A format 2 table knows no index: a data block whose restart count has
// the index's bit set is damage there, even with its checksum made good.
TEST(DataBlockHashIndexTest, IndexFlagInAFormat2TableIsDamage) {
  const std::vector<Entry> entries = testutil::MakeEntries(300, 1);
  std::string bytes = testutil::BuildTable(entries, TableOptions());
  std::vector<testutil::Region> regions;
  ASSERT_TRUE(testutil::FindRegions(bytes, &regions));
  const testutil::Region first = testutil::RegionsNamed(regions, "data").front();
  const size_t count_at = first.begin + first.block_size() - 4;
  bytes[count_at + 3] = static_cast<char>(static_cast<uint8_t>(bytes[count_at + 3]) | 0x80);
  testutil::FixTrailer(&bytes, first, testutil::Kind::kData);
  std::unique_ptr<Table> table = OpenTable(bytes);
  ASSERT_NE(table, nullptr);
  absl::StatusOr<LookupResult> got = table->Get(entries.front().key);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(absl::IsDataLoss(got.status())) << got.status();
}

}  // namespace
}  // namespace lsmbloom
