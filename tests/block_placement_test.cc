// Blocks bound to their place (table format version 2): a block swapped or
// moved within a table, or copied from another table of the same shape, is
// a DataLoss error naming the block, never a wrong answer; a foreign filter
// fails open. Also the unique id, golden bytes of the format, and reading
// version 1 tables.

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/inspect/inspect.h"
#include "lsmbloom/table/table.h"
#include "tests/table_surgery.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;
using testutil::Kind;
using testutil::Region;

// Fixed-width keys and values (compressible, but not to nothing), so that
// many data blocks come out the same size.
std::vector<Entry> UniformEntries(const std::string& value_tag = "v") {
  std::vector<Entry> entries;
  for (int i = 0; i < 5000; ++i) {
    char value[64];
    std::snprintf(value, sizeof(value), "%s-%08d-%08d-padding-padding", value_tag.c_str(), i,
                  i * 7919 % 100000);
    entries.push_back({testutil::TableKey(i), 5, EntryType::kValue, value});
  }
  return entries;
}

TableOptions WithCompression(Compression c) {
  TableOptions options;
  options.compression = c;
  return options;
}

const Compression kAllCompressions[] = {Compression::kNone, Compression::kSnappy,
                                        Compression::kZstd};

std::vector<Region> Regions(const std::string& file) {
  std::vector<Region> regions;
  EXPECT_TRUE(testutil::FindRegions(file, &regions));
  return regions;
}

// Checks every key: each either answers correctly or fails with DataLoss;
// returns the keys that failed. `where` names the case for messages.
std::set<std::string> FailingKeys(const Table& table, const std::vector<Entry>& entries,
                                  const std::string& where) {
  std::set<std::string> failed;
  for (const Entry& e : entries) {
    absl::StatusOr<LookupResult> got = table.Get(e.key);
    if (!got.ok()) {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << where << got.status();
      failed.insert(e.key);
      continue;
    }
    EXPECT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, e.key)))
        << where << ": silent wrong answer for " << e.key;
  }
  return failed;
}

TEST(BlockPlacementTest, SwappedSameSizeDataBlocksAreDataLossNamingEachBlock) {
  const std::vector<Entry> entries = UniformEntries();
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string good = testutil::BuildTable(entries, WithCompression(c));
    const std::vector<Region> data = testutil::RegionsNamed(Regions(good), "data");
    const auto pairs = testutil::SameSizePairs(data);
    ASSERT_FALSE(pairs.empty()) << data.size() << " data blocks, none of one size";
    int checked = 0;
    for (const auto& [i, j] : pairs) {
      if (++checked > 4) break;
      const Region& a = data[i];
      const Region& b = data[j];
      std::string bad = good;
      testutil::SwapRegions(&bad, a, b);
      auto table = Table::Open(NewMemRandomAccessFile(bad));
      ASSERT_TRUE(table.ok()) << table.status();
      const std::set<std::string> failed = FailingKeys(**table, entries, "swap");
      EXPECT_FALSE(failed.empty());
      // Exactly the keys of the two blocks fail, each naming its block.
      for (const Entry& e : entries) {
        absl::StatusOr<LookupResult> got = (*table)->Get(e.key);
        if (got.ok()) continue;
        const std::string msg(got.status().message());
        EXPECT_TRUE(msg.find("data block at offset " + std::to_string(a.begin) + " ") == 0 ||
                    msg.find("data block at offset " + std::to_string(b.begin) + " ") == 0)
            << msg;
      }
      // A scan stops with the error instead of yielding keys out of order.
      auto it = (*table)->NewIterator();
      size_t seen = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
      EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss);
      EXPECT_LT(seen, entries.size());
      // The verifier's check says which place each block was written for.
      absl::Status s = CheckDataBlock(**table, {a.begin, a.block_size()});
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
      EXPECT_NE(
          s.message().find("misplaced: intact, but written for offset " + std::to_string(b.begin)),
          std::string::npos)
          << s;
    }
  }
}

TEST(BlockPlacementTest, BlockMovedOverAnotherIsDataLossForTheOverwrittenKeys) {
  const std::vector<Entry> entries = UniformEntries();
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string good = testutil::BuildTable(entries, WithCompression(c));
    const std::vector<Region> data = testutil::RegionsNamed(Regions(good), "data");
    const auto pairs = testutil::SameSizePairs(data);
    ASSERT_FALSE(pairs.empty());
    const Region& from = data[pairs[0].first];
    const Region& to = data[pairs[0].second];
    std::string bad = good;
    testutil::CopyRegion(&bad, to, good, from.begin);  // `from` now appears twice.
    auto table = Table::Open(NewMemRandomAccessFile(bad));
    ASSERT_TRUE(table.ok()) << table.status();
    const std::set<std::string> failed = FailingKeys(**table, entries, "move");
    EXPECT_FALSE(failed.empty());
    for (const std::string& key : failed) {
      const std::string msg(table.value()->Get(key).status().message());
      EXPECT_EQ(msg.find("data block at offset " + std::to_string(to.begin) + " "), 0u) << msg;
    }
    absl::Status s = CheckDataBlock(**table, {to.begin, to.block_size()});
    EXPECT_NE(s.message().find("written for offset " + std::to_string(from.begin)),
              std::string::npos)
        << s;
  }
}

// Two tables of one shape: the same entries, so every block sits at the
// same offset with the same bytes; only the unique ids (and so the
// trailers) differ. Copying any block with its trailer across must fail.
TEST(BlockPlacementTest, BlockFromAnotherTableAtTheSameOffsetIsRefused) {
  const std::vector<Entry> entries = UniformEntries();
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string mine = testutil::BuildTable(entries, WithCompression(c));
    const std::string other = testutil::BuildTable(entries, WithCompression(c));
    ASSERT_EQ(mine.size(), other.size());
    const std::vector<Region> regions = Regions(mine);
    const std::vector<Region> other_regions = Regions(other);
    ASSERT_EQ(regions.size(), other_regions.size());
    std::set<std::string> kinds;
    size_t data_blocks = 0;
    for (size_t r = 0; r < regions.size(); ++r) {
      const Region& region = regions[r];
      if (!region.has_trailer) continue;
      ASSERT_EQ(region.begin, other_regions[r].begin);
      ASSERT_EQ(region.end, other_regions[r].end);
      if (region.name == "data" && data_blocks++ % 10 != 3) continue;  // A sample.
      kinds.insert(region.name);
      std::string bad = mine;
      testutil::CopyRegion(&bad, region, other, region.begin);
      ASSERT_NE(bad, mine) << region.name << ": the trailers should differ";
      auto table = Table::Open(NewMemRandomAccessFile(bad));
      const std::string named = region.name == "metaindex" ? "meta-index" : region.name;
      const std::string expected = named + " block at offset " + std::to_string(region.begin);
      if (region.name == "data") {
        ASSERT_TRUE(table.ok()) << table.status();
        const std::set<std::string> failed = FailingKeys(**table, entries, "foreign data");
        EXPECT_FALSE(failed.empty());
        for (const std::string& key : failed) {
          EXPECT_EQ(table.value()->Get(key).status().message().find(expected), 0u);
        }
      } else if (region.name == "filter") {
        // Fails open: every answer right, without filtering, and says why.
        ASSERT_TRUE(table.ok()) << table.status();
        EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kDataLoss);
        EXPECT_EQ((*table)->filter_status().message().find(expected), 0u)
            << (*table)->filter_status();
        EXPECT_EQ((*table)->whole_key_filter(), nullptr);
        EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
      } else {
        // The index, meta-index and properties are read by Open.
        ASSERT_FALSE(table.ok()) << region.name;
        EXPECT_EQ(table.status().code(), absl::StatusCode::kDataLoss);
        EXPECT_EQ(table.status().message().find(expected), 0u) << table.status();
      }
    }
    EXPECT_EQ(kinds, (std::set<std::string>{"data", "filter", "properties", "metaindex", "index"}));
  }
}

TEST(BlockPlacementTest, DataBlockFromAnOlderTableNeverReturnsOldValues) {
  // The motivating case: same keys and value sizes, older values.
  const std::vector<Entry> entries = UniformEntries("new");
  const std::vector<Entry> older = UniformEntries("old");
  const std::string mine = testutil::BuildTable(entries, TableOptions());
  const std::string old = testutil::BuildTable(older, TableOptions());
  const std::vector<Region> data = testutil::RegionsNamed(Regions(mine), "data");
  const std::vector<Region> old_data = testutil::RegionsNamed(Regions(old), "data");
  ASSERT_EQ(data.size(), old_data.size());
  for (size_t i = 0; i < data.size(); i += 7) {
    ASSERT_EQ(data[i].begin, old_data[i].begin);
    ASSERT_EQ(data[i].end, old_data[i].end);
    std::string bad = mine;
    testutil::CopyRegion(&bad, data[i], old, data[i].begin);
    auto table = Table::Open(NewMemRandomAccessFile(bad));
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_FALSE(FailingKeys(**table, entries, "old block " + std::to_string(i)).empty());
  }
}

TEST(BlockPlacementTest, FooterFromAnotherTableIsRefused) {
  const std::vector<Entry> entries = UniformEntries();
  const std::string mine = testutil::BuildTable(entries, TableOptions());
  const std::string other = testutil::BuildTable(entries, TableOptions());
  std::string bad = mine;
  bad.replace(bad.size() - testutil::kFooterSize, testutil::kFooterSize,
              other.substr(other.size() - testutil::kFooterSize));
  auto table = Table::Open(NewMemRandomAccessFile(bad));
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(table.status().message().find("index block at offset"), std::string::npos)
      << table.status();
}

TEST(BlockPlacementTest, FooterNotAtTheEndOfItsTableIsRefused) {
  // Two tables end to end: the last footer is intact but sits at another
  // offset than the one it was written for.
  const std::string a = testutil::BuildTable(UniformEntries(), TableOptions());
  auto table = Table::Open(NewMemRandomAccessFile(a + a));
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(table.status().message().find("table footer at offset"), std::string::npos)
      << table.status();
}

TEST(BlockPlacementTest, EveryTableGetsItsOwnNonZeroUniqueId) {
  std::set<uint64_t> ids;
  const std::vector<Entry> entries = testutil::MakeEntries(50, 1);
  for (int i = 0; i < 200; ++i) {
    const std::string bytes = testutil::BuildTable(entries, TableOptions());
    auto table = Table::Open(NewMemRandomAccessFile(bytes));
    ASSERT_TRUE(table.ok()) << table.status();
    const uint64_t id = (*table)->unique_id();
    EXPECT_NE(id, 0u);
    EXPECT_EQ(id, testutil::UniqueIdOf(bytes));
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(id));
    EXPECT_EQ((*table)->properties().unique_id, id);
    EXPECT_NE(bytes.find(hex), std::string::npos);  // Stored as 16 hex digits.
    EXPECT_EQ((*table)->format_version(), 2u);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 200u);
}

// ---------------------------------------------------------------- golden

// A table with an injected id is the same bytes on every build (but for
// the creation time in the properties block, which moves nothing: it is 10
// digits until the year 2286). No filter: its bytes belong to the filter
// format, pinned by filter_format_test, and would move the blocks after it.
std::string GoldenTable() {
  std::vector<Entry> entries;
  for (int i = 0; i < 200; ++i) {
    entries.push_back({testutil::TableKey(i), 9,
                       i % 11 == 0 ? EntryType::kDeletion : EntryType::kValue,
                       i % 11 == 0 ? "" : "value" + std::to_string(i)});
  }
  TableOptions options;
  options.block_size = 1024;
  options.filter_policy = nullptr;
  options.unique_id = 0x0123456789abcdefull;
  return testutil::BuildTable(entries, options);
}

// Pinned bytes, in hex. Changing any of them changes the format: bump the
// version and update docs/FORMAT.md.
constexpr char kGoldenFooter[] =
    "cd2522f8258b0100000000000000000000000000000000000000000000000000"
    "efcdab8967452301020000000000000089e184d1d731b372884c534d424c4231";
constexpr char kGoldenFirstDataTrailer[] = "002817766eb29b1901";
constexpr char kGoldenMetaIndexTrailer[] = "00e7c3640a84477f83";
constexpr char kGoldenIndexTrailer[] = "00ac95df473ba35775";

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[3];
  for (char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<uint8_t>(c));
    out += buf;
  }
  return out;
}

// Every trailer of `file` is what docs/FORMAT.md says it is.
void ExpectTrailersAsDocumented(const std::string& file, uint64_t unique_id) {
  std::set<std::string> kinds;
  for (const Region& r : Regions(file)) {
    if (!r.has_trailer) continue;
    kinds.insert(r.name);
    const Kind kind = r.name == "data"         ? Kind::kData
                      : r.name == "filter"     ? Kind::kFilter
                      : r.name == "properties" ? Kind::kProperties
                      : r.name == "metaindex"  ? Kind::kMetaIndex
                                               : Kind::kIndex;
    const size_t trailer = r.end - testutil::kTrailerSize;
    EXPECT_EQ(testutil::GetFixed64(file.data() + trailer + 1),
              testutil::V2Checksum(testutil::BlockOf(file, r), r.begin, kind,
                                  static_cast<uint8_t>(file[trailer]), unique_id))
        << r.name << " at " << r.begin;
  }
  EXPECT_GE(kinds.size(), 4u);
}

TEST(BlockPlacementTest, EveryTrailerIsAsDocumentedWithEveryCompression) {
  for (Compression c : kAllCompressions) {
    TableOptions options = WithCompression(c);
    options.unique_id = 0xfeedfacecafef00dull;
    ExpectTrailersAsDocumented(testutil::BuildTable(UniformEntries(), options), options.unique_id);
  }
}

TEST(BlockPlacementTest, GoldenFooterAndTrailers) {
  const std::string file = GoldenTable();
  const std::vector<Region> regions = Regions(file);
  const Region& footer = regions.back();
  // docs/FORMAT.md, footer v2: handles (meta-index, index) zero padded to
  // 32 bytes, the unique id, version 2, zero, checksum seeded with the
  // footer's offset, magic.
  EXPECT_EQ(Hex(std::string_view(file).substr(footer.begin)), kGoldenFooter);
  EXPECT_EQ(testutil::UniqueIdOf(file), 0x0123456789abcdefull);
  EXPECT_EQ(testutil::GetFixed32(file.data() + footer.begin + 40), 2u);
  EXPECT_EQ(testutil::GetFixed64(file.data() + footer.begin + 48),
            XXH3_64bits_withSeed(file.data() + footer.begin, 48, footer.begin));
  ExpectTrailersAsDocumented(file, 0x0123456789abcdefull);
  // And pinned: the first data block's, the meta-index's and the index's.
  const std::vector<Region> data = testutil::RegionsNamed(regions, "data");
  auto trailer_hex = [&](const Region& r) {
    return Hex(std::string_view(file).substr(r.end - testutil::kTrailerSize, 9));
  };
  EXPECT_EQ(trailer_hex(data[0]), kGoldenFirstDataTrailer);
  EXPECT_EQ(trailer_hex(testutil::RegionsNamed(regions, "metaindex")[0]), kGoldenMetaIndexTrailer);
  EXPECT_EQ(trailer_hex(testutil::RegionsNamed(regions, "index")[0]), kGoldenIndexTrailer);
}

// ---------------------------------------------------------------- version 1

std::string ReadTestData(const std::string& name) {
  std::ifstream in("tests/testdata/" + name, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

TEST(BlockPlacementTest, Version1TablesAreStillReadWithoutAnId) {
  // Written by the version 1 builder (tests/fuzz/make_seeds.cc's small
  // table): 60 entries "k00000".. at sequence 10, every 5th a deletion.
  const std::string v1 = ReadTestData("small_table.v1");
  ASSERT_FALSE(v1.empty());
  auto table = Table::Open(NewMemRandomAccessFile(v1));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ((*table)->format_version(), 1u);
  EXPECT_EQ((*table)->unique_id(), 0u);
  EXPECT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
  std::vector<Entry> entries;
  for (int i = 0; i < 60; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%05d", i);
    entries.push_back({key, 10, i % 5 == 0 ? EntryType::kDeletion : EntryType::kValue,
                       i % 5 == 0 ? "" : "value" + std::to_string(i)});
  }
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  // Its checksums still catch damage.
  std::string bad = v1;
  bad[5] ^= 1;
  auto damaged = Table::Open(NewMemRandomAccessFile(bad));
  ASSERT_TRUE(damaged.ok());
  EXPECT_EQ((*damaged)->Get("k00001").status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace lsmbloom
