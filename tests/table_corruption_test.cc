// Damaged table files: every outcome is a correct answer or a clear error,
// and no key is ever reported missing by a table that opened fine.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "tests/table_surgery.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;
using testutil::FindRegions;
using testutil::kTrailerSize;
using testutil::Region;

std::vector<Entry> SmallEntries() {
  std::vector<Entry> entries;
  for (int i = 0; i < 1500; ++i) {
    entries.push_back({testutil::TableKey(i * 2), 10,
                       i % 9 == 0 ? EntryType::kDeletion : EntryType::kValue,
                       i % 9 == 0 ? "" : "v" + std::to_string(i)});
  }
  return entries;
}

// Where to flip bits in `r`: both ends and the middle, the trailer's type
// byte and checksum, the footer's fixed fields, and a few random bytes.
std::vector<size_t> FlipOffsets(const Region& r, std::mt19937_64* rng) {
  std::set<size_t> at = {r.begin, r.begin + (r.end - r.begin) / 2, r.end - 1};
  if (r.has_trailer) {
    at.insert(r.end - kTrailerSize - 1);  // Last byte of the block itself.
    at.insert(r.end - kTrailerSize);      // Compression type.
    at.insert(r.end - kTrailerSize + 1);  // Checksum.
  }
  if (r.name == "footer") {
    // Unique id, version, the zero word, checksum, magic.
    for (size_t field : {32, 40, 44, 48, 56}) at.insert(r.begin + field);
  }
  for (int i = 0; i < 3; ++i) at.insert(r.begin + (*rng)() % (r.end - r.begin));
  return std::vector<size_t>(at.begin(), at.end());
}

// Opens `bytes` and checks every answer. Returns the number of silent wrong
// answers: a lookup that succeeded with a result other than the truth.
size_t SilentWrongAnswers(const std::string& bytes, const std::vector<Entry>& entries, bool* opened,
                          size_t* errors) {
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  *opened = table.ok();
  *errors = 0;
  if (!table.ok()) {
    EXPECT_FALSE(table.status().message().empty());
    return 0;
  }
  size_t wrong = 0;
  for (const Entry& e : entries) {
    absl::StatusOr<LookupResult> got = (*table)->Get(e.key);
    if (!got.ok()) {
      ++*errors;
      continue;
    }
    wrong += !testutil::SameAsModel(*got, testutil::ModelGet(entries, e.key));
  }
  for (int i = 0; i < 300; ++i) {
    absl::StatusOr<LookupResult> got = (*table)->Get(testutil::AbsentKey(i, 3000));
    if (!got.ok()) {
      ++*errors;
      continue;
    }
    wrong += got->kind != LookupResult::Kind::kNotFound;
  }
  return wrong;
}

// The table fuzzer moves blocks within one file, and a fuzzed index can
// name overlapping blocks: the copy then behaves as memmove (and ASan
// reports memcpy-param-overlap if it were a memcpy).
TEST(TableCorruptionTest, CopyRegionWithinOneFileMayOverlap) {
  std::string file = "0123456789";
  testutil::CopyRegion(&file, Region{"data", 2, 8, false}, file, 0);
  EXPECT_EQ(file, "0101234589");
}

TEST(TableCorruptionTest, ByteFlipsAnywhereNeverGiveSilentWrongAnswers) {
  const std::vector<Entry> entries = SmallEntries();
  const std::string good = testutil::BuildTable(entries, TableOptions());
  std::mt19937_64 rng(7);
  std::vector<size_t> offsets;
  for (size_t i = good.size() - 200; i < good.size(); ++i)
    offsets.push_back(i);  // Tail: footer, index, meta.
  for (int i = 0; i < 400; ++i) offsets.push_back(rng() % good.size());
  size_t opened_count = 0, with_errors = 0;
  for (size_t offset : offsets) {
    std::string bad = good;
    bad[offset] ^= static_cast<char>(1 << (rng() % 8));
    bool opened;
    size_t errors;
    EXPECT_EQ(SilentWrongAnswers(bad, entries, &opened, &errors), 0u)
        << "flip at offset " << offset << " of " << good.size();
    opened_count += opened;
    with_errors += errors > 0;
  }
  // Most flips land in data blocks: the table opens, and lookups there fail
  // loudly with DataLoss.
  EXPECT_GT(opened_count, offsets.size() / 2);
  EXPECT_GT(with_errors, 0u);
}

TEST(TableCorruptionTest, FlipsInEveryRegionNeverGiveSilentWrongAnswers) {
  const std::vector<Entry> entries = SmallEntries();
  const std::string good = testutil::BuildTable(entries, TableOptions());
  std::vector<Region> regions;
  ASSERT_TRUE(FindRegions(good, &regions));
  // The regions must account for every byte, or a misparse could leave
  // part of the file untested.
  size_t covered = 0;
  for (const Region& r : regions) {
    ASSERT_EQ(r.begin, covered) << r.name;
    ASSERT_GT(r.end, r.begin) << r.name;
    covered = r.end;
  }
  ASSERT_EQ(covered, good.size());

  std::mt19937_64 rng(11);
  std::map<std::string, int> flips;
  int data_blocks = 0;
  for (const Region& r : regions) {
    data_blocks += r.name == "data";
    for (size_t offset : FlipOffsets(r, &rng)) {
      std::string bad = good;
      bad[offset] ^= static_cast<char>(1 << (rng() % 8));
      ++flips[r.name];
      bool opened;
      size_t errors;
      EXPECT_EQ(SilentWrongAnswers(bad, entries, &opened, &errors), 0u)
          << r.name << " flip at offset " << offset << " of " << good.size();
      if (r.name == "data") {
        // The block's checksum catches it: its keys fail loudly.
        EXPECT_TRUE(opened) << offset;
        EXPECT_GT(errors, 0u) << offset;
      } else if (r.name == "filter") {
        // Fails open: no filtering, every answer still right, and says why.
        EXPECT_TRUE(opened) << offset;
        EXPECT_EQ(errors, 0u) << offset;
        auto table = Table::Open(NewMemRandomAccessFile(bad));
        ASSERT_TRUE(table.ok()) << table.status();
        EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kDataLoss) << offset;
        EXPECT_EQ((*table)->whole_key_filter(), nullptr) << offset;
      } else if (r.name == "padding") {
        // Unread bytes: nothing changes.
        EXPECT_TRUE(opened) << offset;
        EXPECT_EQ(errors, 0u) << offset;
      } else {
        // The footer and the index and meta blocks are all verified by Open.
        EXPECT_FALSE(opened) << r.name << " flip at offset " << offset;
      }
    }
  }
  for (const char* name : {"data", "filter", "properties", "metaindex", "index", "footer"}) {
    EXPECT_GT(flips[name], 0) << name;
  }
  EXPECT_GT(data_blocks, 1);  // So the index's handles were followed, not just the first.
}

TEST(TableCorruptionTest, EveryTruncationIsRefusedAtOpen) {
  const std::vector<Entry> entries = SmallEntries();
  const std::string good = testutil::BuildTable(entries, TableOptions());
  for (size_t len = 0; len < good.size(); len += 1 + len / 16) {
    EXPECT_FALSE(Table::Open(NewMemRandomAccessFile(good.substr(0, len))).ok()) << len;
  }
  for (size_t len = good.size() - 80; len < good.size(); ++len) {
    EXPECT_FALSE(Table::Open(NewMemRandomAccessFile(good.substr(0, len))).ok()) << len;
  }
}

TEST(TableCorruptionTest, CorruptFilterFailsOpenToMaybeAndSaysWhy) {
  const std::vector<Entry> entries = SmallEntries();
  std::string bad = testutil::BuildTable(entries, TableOptions());
  const size_t filter_at = bad.find("LBBF");
  ASSERT_NE(filter_at, std::string::npos);
  bad[filter_at + 100] ^= 0x40;  // Inside the filter bits.
  auto table = Table::Open(NewMemRandomAccessFile(bad));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE((*table)->filter_status().message().find("checksum"), std::string::npos);
  EXPECT_EQ((*table)->whole_key_filter(), nullptr);
  EXPECT_TRUE((*table)->KeyMayMatch("anything"));
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
}

TEST(TableCorruptionTest, CorruptDataBlockIsADataLossErrorForItsKeys) {
  const std::vector<Entry> entries = SmallEntries();
  std::string bad = testutil::BuildTable(entries, TableOptions());
  bad[10] ^= 0x01;  // The first data block.
  auto table = Table::Open(NewMemRandomAccessFile(bad));
  ASSERT_TRUE(table.ok());
  absl::StatusOr<LookupResult> got = (*table)->Get(entries[0].key);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(got.status().message().find("data block"), std::string::npos);
  // Keys in later blocks still answer.
  absl::StatusOr<LookupResult> last = (*table)->Get(entries.back().key);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->kind, testutil::ModelGet(entries, entries.back().key).kind);
  // And the iterator stops with the error instead of skipping the block.
  auto it = (*table)->NewIterator();
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
}

TEST(TableCorruptionTest, SkippingADamagedBlockLosesOnlyThatBlocksEntries) {
  const std::vector<Entry> entries = SmallEntries();
  const std::string good = testutil::BuildTable(entries, TableOptions());
  std::vector<Region> regions, data;
  ASSERT_TRUE(FindRegions(good, &regions));
  for (const Region& r : regions) {
    if (r.name == "data") data.push_back(r);
  }
  ASSERT_GE(data.size(), 3u);
  std::string bad = good;
  const Region& damaged = data[1];
  bad[damaged.begin + 5] ^= 0x01;
  auto table = Table::Open(NewMemRandomAccessFile(bad));
  ASSERT_TRUE(table.ok());

  // Each intact block's keys, read from the intact table block by block,
  // are what a salvage must still yield.
  std::vector<std::string> seen;
  size_t skips = 0;
  auto it = (*table)->NewIterator();
  EXPECT_FALSE(it->SkipDamagedBlock()) << "nothing to skip before an error";
  for (it->SeekToFirst();;) {
    if (it->Valid()) {
      seen.emplace_back(it->entry().user_key);
      it->Next();
      continue;
    }
    if (it->status().ok()) break;
    EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(it->status().message().find("offset " + std::to_string(damaged.begin)),
              std::string::npos)
        << it->status();
    ASSERT_TRUE(it->SkipDamagedBlock());
    ++skips;
  }
  EXPECT_EQ(skips, 1u);
  // Everything but the damaged block's entries, in order.
  auto intact = Table::Open(NewMemRandomAccessFile(good));
  ASSERT_TRUE(intact.ok());
  std::vector<std::string> expected;
  auto all = (*intact)->NewIterator();
  for (all->SeekToFirst(); all->Valid(); all->Next()) expected.emplace_back(all->entry().user_key);
  std::vector<std::string> missing;
  std::set_difference(expected.begin(), expected.end(), seen.begin(), seen.end(),
                      std::back_inserter(missing));
  const size_t lost = missing.size();
  EXPECT_GT(lost, 0u);
  EXPECT_LT(lost, expected.size() / 2);
  EXPECT_EQ(seen.size() + lost, expected.size());
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  // The lost keys are exactly those an unfiltered Get says are damaged.
  for (const std::string& key : missing) {
    EXPECT_EQ((*table)->Get(key).status().code(), absl::StatusCode::kDataLoss) << key;
  }
}

TEST(TableCorruptionTest, ADataBlockThatFailedItsChecksumFailsItOnEveryRead) {
  const std::vector<Entry> entries = SmallEntries();
  std::string bad = testutil::BuildTable(entries, TableOptions());
  bad[10] ^= 0x01;  // The first data block.
  auto table = Table::Open(NewMemRandomAccessFile(bad));
  ASSERT_TRUE(table.ok());
  for (int read = 0; read < 3; ++read) {
    EXPECT_EQ((*table)->Get(entries[0].key).status().code(), absl::StatusCode::kDataLoss)
        << "read " << read;
  }
}

TEST(TableCorruptionTest, PreadTablesVerifyEveryReadSoDamageOnDiskLaterIsCaught) {
  const std::vector<Entry> entries = SmallEntries();
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/pread_table.sst";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  ASSERT_EQ(std::fclose(f), 0);
  auto file = OpenPosixFile(path, /*mmap=*/false);
  ASSERT_TRUE(file.ok()) << file.status();
  auto table = Table::Open(std::move(*file));
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_TRUE((*table)->Get(entries[0].key).ok());  // Read and verified once.

  f = std::fopen(path.c_str(), "r+b");  // Now damage that block on disk.
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fseek(f, 10, SEEK_SET), 0);
  const int damaged = static_cast<unsigned char>(bytes[10] ^ 0x01);
  ASSERT_EQ(std::fputc(damaged, f), damaged);
  ASSERT_EQ(std::fclose(f), 0);
  EXPECT_EQ((*table)->Get(entries[0].key).status().code(), absl::StatusCode::kDataLoss);
  std::remove(path.c_str());
}

TEST(TableCorruptionTest, GarbageIsNotATable) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    std::string garbage(rng() % 5000, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    EXPECT_FALSE(Table::Open(NewMemRandomAccessFile(garbage)).ok());
  }
}

}  // namespace
}  // namespace lsmbloom
