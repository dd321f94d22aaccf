// The inspection library (lsmbloom/inspect/inspect.h) against tables written by
// TableBuilder: the block dump agrees with the index, the properties and
// the entries; recompressing a block as the writer would gives its stored
// size; the filter view places every key the filter holds; and files cut
// short or appended to say so.

#include "lsmbloom/inspect/inspect.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string Write(const std::string& name, const std::vector<Entry>& entries,
                  const TableOptions& options) {
  const std::string path = TempPath(name);
  auto file = NewPosixWritableFile(path);
  EXPECT_TRUE(file.ok()) << file.status();
  TableBuilder builder(options, std::move(*file));
  for (const Entry& e : entries) EXPECT_TRUE(builder.Add(e.key, e.seq, e.type, e.value).ok());
  EXPECT_TRUE(builder.Finish().ok());
  return path;
}

TEST(InspectTest, DataBlocksAgreeWithTheIndexPropertiesAndEntries) {
  TableOptions options;
  options.compression = Compression::kSnappy;
  options.block_size = 1024;
  const std::vector<Entry> entries = testutil::MakeEntries(5000, 1);
  absl::StatusOr<InspectedTable> t = InspectedTable::Open(Write("dump.sst", entries, options));
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<std::vector<DataBlockInfo>> blocks = DescribeDataBlocks(*t);
  absl::StatusOr<std::vector<IndexEntry>> index = ReadIndex(*t);
  ASSERT_TRUE(blocks.ok() && index.ok());
  ASSERT_EQ(blocks->size(), t->properties().num_data_blocks);
  ASSERT_EQ(index->size(), blocks->size());
  uint64_t n = 0, stored = 0, key_bytes = 0, compressed = 0;
  for (size_t i = 0; i < blocks->size(); ++i) {
    const DataBlockInfo& b = (*blocks)[i];
    ASSERT_TRUE(b.status.ok()) << b.status;
    EXPECT_EQ(b.location.offset, (*index)[i].block.offset);
    EXPECT_EQ(b.first_key, entries[n].key);
    EXPECT_EQ(b.first_sequence, entries[n].seq);
    n += b.entries;
    EXPECT_EQ(b.last_key, entries[n - 1].key);
    EXPECT_LE(b.last_key, (*index)[i].separator);
    EXPECT_GE(b.restarts, (b.entries + 15) / 16);
    stored += b.location.size + 9;
    key_bytes += b.key_bytes;
    // What the writer would store for these bytes is what it stored.
    absl::StatusOr<std::string> raw = ReadDataBlockContents(*t, b.location);
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ(raw->size(), b.raw_size);
    EXPECT_EQ(StoredSizeWith(*raw, b.compression), b.location.size);
    EXPECT_EQ(StoredSizeWith(*raw, Compression::kNone), b.raw_size);
    compressed += b.compression == Compression::kSnappy;
  }
  EXPECT_EQ(n, entries.size());
  EXPECT_EQ(stored, t->properties().data_size);
  EXPECT_EQ(key_bytes, t->properties().raw_key_size);
  EXPECT_GT(compressed, 0u);

  absl::StatusOr<std::vector<MetaIndexEntry>> meta = ReadMetaIndex(*t);
  ASSERT_TRUE(meta.ok());
  std::set<std::string> names;
  for (const MetaIndexEntry& e : *meta) names.insert(e.name);
  EXPECT_EQ(names,
            (std::set<std::string>{"filter.lsmbloom.BlockedBloom.v1", "lsmbloom.properties"}));
}

// Each data block of a table written with hash indexes (compressed too)
// reads with its index: two buckets per distinct user key of the block.
TEST(InspectTest, DataBlocksOfIndexedTablesShowTheirHashIndexes) {
  TableOptions options;
  options.data_block_hash_index = true;
  options.compression = Compression::kSnappy;
  const std::vector<Entry> entries = testutil::MakeEntries(3000, 3);
  absl::StatusOr<InspectedTable> t = InspectedTable::Open(Write("indexed.sst", entries, options));
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<std::vector<DataBlockInfo>> blocks = DescribeDataBlocks(*t);
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  size_t n = 0;
  for (const DataBlockInfo& b : *blocks) {
    ASSERT_TRUE(b.status.ok()) << b.status;
    std::set<std::string> keys;
    for (size_t i = n; i < n + b.entries; ++i) keys.insert(entries[i].key);
    EXPECT_EQ(b.hash_buckets, 2 * keys.size());
    n += b.entries;
  }
  EXPECT_EQ(n, entries.size());
}

TEST(InspectTest, FilterViewPlacesEveryFilterKeyAndCountsItsBits) {
  TableOptions options;
  options.prefix_extractor = *NewFixedPrefixExtractor(5);
  absl::StatusOr<InspectedTable> t =
      InspectedTable::Open(Write("view.sst", testutil::MakeEntries(3000, 2), options));
  ASSERT_TRUE(t.ok()) << t.status();
  const FilterView& f = t->filter();
  ASSERT_NE(f.blocked(), nullptr);
  EXPECT_EQ(f.policy(), kBlockedBloomPolicyName);
  EXPECT_EQ(f.blocked_format_version(), 1);
  EXPECT_TRUE(f.prefixes_reproducible());
  ASSERT_NE(t->prefix_extractor(), nullptr);
  const uint64_t num_blocks = f.blocked()->geometry().num_blocks;
  uint64_t keys = 0, prefixes = 0;
  FilterKeys replay(*t);
  std::unique_ptr<TableIterator> it = t->table().NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    replay.Add(it->entry().user_key, [&](std::string_view key, bool is_prefix) {
      (is_prefix ? prefixes : keys)++;
      EXPECT_LT(f.BlockOfKey(key), num_blocks);
      EXPECT_TRUE(f.reader()->KeyMayMatch(key));
    });
  }
  EXPECT_EQ(keys + prefixes, f.keys_added());
  EXPECT_GT(prefixes, 0u);
  uint64_t bits = 0;
  for (uint64_t b = 0; b < num_blocks; ++b) {
    EXPECT_LE(f.BitsSetInBlock(b), 512);
    bits += static_cast<uint64_t>(f.BitsSetInBlock(b));
  }
  EXPECT_GT(bits, num_blocks * 512 / 5);
}

// The view opens a Ribbon filter as it opens a blocked one: its reader and
// format version, and no blocked reader.
TEST(InspectTest, FilterViewOpensARibbonFilterAsItsKind) {
  RibbonOptions ribbon;
  ribbon.bits_per_key = 8;
  TableOptions options;
  options.filter_policy = *NewRibbonPolicy(ribbon);
  const std::vector<Entry> entries = testutil::MakeEntries(3000, 4);
  absl::StatusOr<InspectedTable> t = InspectedTable::Open(Write("ribbon.sst", entries, options));
  ASSERT_TRUE(t.ok()) << t.status();
  const FilterView& f = t->filter();
  EXPECT_EQ(f.policy(), kRibbonPolicyName);
  EXPECT_EQ(f.blocked(), nullptr);
  ASSERT_NE(f.ribbon(), nullptr);
  EXPECT_EQ(f.ribbon_format_version(), 1);
  for (const Entry& e : entries) ASSERT_TRUE(f.ribbon()->MayMatch(e.key)) << e.key;
}

// A Ribbon policy's builder over its construction bound writes a blocked
// Bloom filter: the view opens it as that, under the Ribbon policy's name.
TEST(InspectTest, FilterViewOpensARibbonFallbackAsBlocked) {
  RibbonOptions ribbon;
  ribbon.max_construction_bytes = size_t{1} << 20;  // ~42,000 keys' band.
  TableOptions options;
  options.filter_policy = *NewRibbonPolicy(ribbon);
  const std::vector<Entry> entries = testutil::MakeEntries(120000, 4);
  absl::StatusOr<InspectedTable> t =
      InspectedTable::Open(Write("ribbon_fallback.sst", entries, options));
  ASSERT_TRUE(t.ok()) << t.status();
  const FilterView& f = t->filter();
  EXPECT_EQ(f.policy(), kRibbonPolicyName);
  EXPECT_TRUE(f.status().ok()) << f.status();
  EXPECT_EQ(f.ribbon(), nullptr);
  ASSERT_NE(f.blocked(), nullptr);
  EXPECT_EQ(f.blocked_format_version(), 1);
  for (const Entry& e : entries) ASSERT_TRUE(f.blocked()->MayMatch(e.key)) << e.key;
}

TEST(InspectTest, BuiltinPoliciesAndExtractorsByName) {
  EXPECT_TRUE(absl::IsInvalidArgument(NewFixedPrefixExtractor(0).status()));
  ASSERT_NE(BuiltinPrefixExtractor("lsmbloom.FixedPrefix.7"), nullptr);
  EXPECT_EQ(BuiltinPrefixExtractor("lsmbloom.FixedPrefix.0"), nullptr);
  EXPECT_EQ(BuiltinPrefixExtractor("lsmbloom.FixedPrefix.7")->Name(), "lsmbloom.FixedPrefix.7");
  EXPECT_EQ(BuiltinPrefixExtractor("lsmbloom.FixedPrefix.x"), nullptr);
  EXPECT_EQ(BuiltinPrefixExtractor("my.Extractor"), nullptr);
  ASSERT_NE(BuiltinFilterPolicy(kBlockedBloomPolicyName), nullptr);
  EXPECT_EQ(BuiltinFilterPolicy("no.such.Policy"), nullptr);
  EXPECT_STREQ(CompressionName(Compression::kZstd), "zstd");
}

TEST(InspectTest, AFileCutShortOrAppendedToSaysSoInsteadOfBadMagic) {
  const std::string path = Write("whole.sst", testutil::MakeEntries(100, 3), TableOptions());
  std::ifstream in(path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto open_as = [&](const std::string& bytes) {
    const std::string p = TempPath("changed.sst");
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    return InspectedTable::Open(p).status();
  };
  for (size_t cut = 1; cut <= 8; ++cut) {
    const absl::Status s = open_as(good.substr(0, good.size() - cut));
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(s.message().find("looks truncated: it ends " + std::to_string(cut) + " byte"),
              std::string::npos)
        << s;
  }
  EXPECT_NE(open_as(good + std::string(64, '\0')).message().find("followed by 64 extra bytes"),
            std::string::npos);
  // Cut further, the footer is gone: nothing says it was a table.
  EXPECT_NE(open_as(good.substr(0, good.size() - 9)).message().find("bad magic"),
            std::string::npos);
  EXPECT_TRUE(open_as(good).ok());
}

}  // namespace
}  // namespace lsmbloom
