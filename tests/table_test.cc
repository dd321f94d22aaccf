// Tables end to end: round trips, filter use, the policy interface, files.

#include "lsmbloom/table/table.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/table/table_builder.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;
using testutil::ModelGet;

TEST(LookupResultTest, ResetForgetsTheAnswerAndKeepsTheValuesCapacity) {
  LookupResult result;
  result.kind = LookupResult::Kind::kFound;
  result.sequence = 7;
  result.value.assign(1000, 'v');
  const size_t capacity = result.value.capacity();
  result.Reset();
  EXPECT_EQ(result.kind, LookupResult::Kind::kNotFound);
  EXPECT_EQ(result.sequence, 0u);
  EXPECT_TRUE(result.value.empty());
  EXPECT_EQ(result.value.capacity(), capacity);
}

TEST(TableTest, RoundTripOfManyEntriesWithDeletionsAndVersions) {
  const std::vector<Entry> entries = testutil::MakeEntries(120000, 11);
  for (Compression c : {Compression::kNone, Compression::kSnappy, Compression::kZstd}) {
    TableOptions options;
    options.compression = c;
    const std::string bytes = testutil::BuildTable(entries, options);
    auto table = Table::Open(NewMemRandomAccessFile(bytes));
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
    EXPECT_EQ((*table)->num_entries(), entries.size());
    size_t wrong = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0 && entries[i].key == entries[i - 1].key) continue;
      absl::StatusOr<LookupResult> got = (*table)->Get(entries[i].key);
      ASSERT_TRUE(got.ok()) << got.status();
      wrong += !testutil::SameAsModel(*got, ModelGet(entries, entries[i].key));
    }
    EXPECT_EQ(wrong, 0u) << "compression " << static_cast<int>(c);
    for (int i = 0; i < 20000; ++i) {
      absl::StatusOr<LookupResult> got = (*table)->Get(testutil::AbsentKey(i));
      ASSERT_TRUE(got.ok());
      ASSERT_EQ(got->kind, LookupResult::Kind::kNotFound);
    }
  }
}

// `len` bytes that differ by key and by position, so a value cut short,
// read from the wrong offset or from another key's block cannot match.
std::string PatternValue(uint64_t seed, size_t len) {
  std::string value(len, '\0');
  uint64_t x = seed;
  for (size_t i = 0; i < len; ++i) {
    if (i % 8 == 0) x = testutil::SplitMix64(x);
    value[i] = static_cast<char>(x >> (8 * (i % 8)));
  }
  return value;
}

// A scan from the first entry yields exactly `entries`, in order.
void ExpectScanYieldsExactly(const Table& table, const std::vector<Entry>& entries) {
  auto it = table.NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_LT(i, entries.size());
    const TableEntry e = it->entry();
    ASSERT_EQ(e.user_key, entries[i].key);
    ASSERT_EQ(e.sequence, entries[i].seq);
    ASSERT_EQ(e.type, entries[i].type);
    ASSERT_EQ(e.value.size(), entries[i].value.size()) << e.user_key;
    ASSERT_TRUE(e.value == entries[i].value) << e.user_key;  // No 100 KiB dump.
  }
  EXPECT_TRUE(it->status().ok()) << it->status();
  EXPECT_EQ(i, entries.size());
}

TEST(TableTest, GetIntoOneResultAnswersAsGetAndKeepsTheValuesCapacity) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 5);
  for (const bool filter : {true, false}) {
    TableOptions options;
    if (!filter) options.filter_policy = nullptr;
    auto table = Table::Open(NewMemRandomAccessFile(testutil::BuildTable(entries, options)));
    ASSERT_TRUE(table.ok()) << table.status();
    LookupResult into;
    size_t wrong = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      ASSERT_TRUE((*table)->Get(entries[i].key, &into).ok());
      wrong += !testutil::SameAsModel(into, ModelGet(entries, entries[i].key));
    }
    EXPECT_EQ(wrong, 0u) << filter;
    into.value.assign(1000, 'x');
    const size_t capacity = into.value.capacity();
    for (int i = 0; i < 2000; ++i) {
      // A found key first, so an absent key must clear what it left.
      ASSERT_TRUE((*table)->Get(entries[0].key, &into).ok());
      ASSERT_TRUE((*table)->Get(testutil::AbsentKey(i), &into).ok());
      ASSERT_EQ(into.kind, LookupResult::Kind::kNotFound) << filter;
      ASSERT_EQ(into.sequence, 0u);
      ASSERT_TRUE(into.value.empty());
    }
    EXPECT_EQ(into.value.capacity(), capacity) << "no allocation for shorter values";
  }
}

TEST(TableTest, KeysSharingLongPrefixesZeroBytesAndEveryLengthFindTheirBlock) {
  // Tiny blocks: many separators that tie on their first bytes after the
  // common prefix, differ only in length or in trailing zero bytes.
  std::set<std::string> keys;
  const std::string common(20, 'p');
  for (int a = 0; a < 40; ++a) {
    std::string k = common + std::string(1, static_cast<char>('a' + a % 26));
    for (int len = 0; len < 12; ++len) {
      keys.insert(k);
      k.push_back(len % 3 == 0 ? '\0' : static_cast<char>('0' + a % 10));
    }
  }
  std::vector<Entry> entries;
  uint64_t seq = 1;
  for (const std::string& k : keys) {
    entries.push_back({k, seq++, EntryType::kValue, "v" + k});
  }
  TableOptions options;
  options.block_size = 64;
  const std::string bytes = testutil::BuildTable(entries, options);
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  // Absent neighbours: below, between and above, and the bare prefix.
  for (const std::string& k : keys) {
    for (const std::string& probe : {k + std::string(1, '\0') + "x", k.substr(0, k.size() - 1)}) {
      absl::StatusOr<LookupResult> got = (*table)->Get(probe);
      ASSERT_TRUE(got.ok());
      EXPECT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, probe))) << probe;
    }
  }
  for (const std::string& probe : {std::string(), common, std::string("\xff"), common + "\xff"}) {
    absl::StatusOr<LookupResult> got = (*table)->Get(probe);
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, probe))) << probe;
  }
}

TEST(TableTest, KeysOfHundredsOfBytesAreFoundAndScannedInOrder) {
  // Longer than a block iterator keeps in place: its key buffer grows, and
  // keeps the shared bytes of the previous key when it does.
  std::set<std::string> keys;
  for (int i = 0; i < 300; ++i) {
    const size_t shared = testutil::SplitMix64(i) % 400;
    std::string k = std::string(shared, 'k') + std::to_string(i * 7919 % 1000);
    k.append(testutil::SplitMix64(i + 1000) % 300, static_cast<char>('a' + i % 26));
    keys.insert(k);
  }
  std::vector<Entry> entries;
  uint64_t seq = 1;
  for (const std::string& k : keys) {
    entries.push_back({k, seq + 1, EntryType::kValue, "new" + std::to_string(seq)});
    entries.push_back({k, seq, EntryType::kValue, "old" + std::to_string(seq)});
    seq += 2;
  }
  for (const bool hash_index : {false, true}) {
    TableOptions options;
    options.block_size = 1024;
    options.restart_interval = 4;
    options.data_block_hash_index = hash_index;
    auto table = Table::Open(NewMemRandomAccessFile(testutil::BuildTable(entries, options)));
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u) << "hash index " << hash_index;
    for (const std::string& k : keys) {
      for (const std::string& probe : {k + "~", k.substr(0, k.size() - 1)}) {
        absl::StatusOr<LookupResult> got = (*table)->Get(probe);
        ASSERT_TRUE(got.ok());
        EXPECT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, probe)));
      }
    }
    std::unique_ptr<TableIterator> it = (*table)->NewIterator();
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      ASSERT_LT(n, entries.size());
      EXPECT_EQ(it->entry().user_key, entries[n].key);
      EXPECT_EQ(it->entry().sequence, entries[n].seq);
    }
    EXPECT_TRUE(it->status().ok());
    EXPECT_EQ(n, entries.size());
  }
}

TEST(TableTest, ValuesLargerThanABlockRoundTrip) {
  // Sizes cycle so that big values sit next to each other, next to small
  // ones and next to tombstones.
  constexpr int kTombstone = -1;
  const std::vector<int> kSizes = {10 << 10,  3, 64 << 10, kTombstone, 100 << 10,
                                   100 << 10, 0, 40,       kTombstone, 64 << 10};
  std::vector<Entry> entries;
  for (int i = 0; i < 120; ++i) {
    const int size = kSizes[i % kSizes.size()];
    Entry e{testutil::TableKey(i * 2), 100, EntryType::kValue, ""};
    if (size == kTombstone) {
      e.type = EntryType::kDeletion;
    } else if (i % 4 == 0) {
      e.value.assign(size, static_cast<char>('a' + i % 26));  // Compresses.
    } else {
      e.value = PatternValue(i, size);  // Does not.
    }
    entries.push_back(e);
    if (i % 10 == 3) {
      // A 100 KiB value under a tombstone: Get must report the deletion,
      // and the iterator must still yield both.
      entries.push_back({e.key, 50, EntryType::kValue, PatternValue(i + 1000, 100 << 10)});
    }
  }
  for (Compression c : {Compression::kNone, Compression::kSnappy, Compression::kZstd}) {
    TableOptions options;
    options.compression = c;
    ASSERT_EQ(options.block_size, 4096u);  // Every big value is bigger than a block.
    const std::string bytes = testutil::BuildTable(entries, options);
    auto table = Table::Open(NewMemRandomAccessFile(bytes));
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
    EXPECT_EQ((*table)->num_entries(), entries.size());
    EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u)
        << "compression " << static_cast<int>(c);
    for (int i = 0; i < 500; ++i) {
      absl::StatusOr<LookupResult> got = (*table)->Get(testutil::AbsentKey(i, 240));
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(got->kind, LookupResult::Kind::kNotFound);
    }
    // Before the first key and after the last.
    for (const char* key : {"", "a", "key", "key999999999999", "z"}) {
      absl::StatusOr<LookupResult> got = (*table)->Get(key);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(got->kind, LookupResult::Kind::kNotFound) << key;
    }
    ExpectScanYieldsExactly(**table, entries);
  }
}

TEST(TableTest, IteratorYieldsEveryEntryInOrderAndSeeks) {
  const std::vector<Entry> entries = testutil::MakeEntries(30000, 5);
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok());
  ExpectScanYieldsExactly(**table, entries);
  auto it = (*table)->NewIterator();
  it->Seek(entries[777].key);
  ASSERT_TRUE(it->Valid());
  // The first version of that key.
  size_t first = 777;
  while (first > 0 && entries[first - 1].key == entries[777].key) --first;
  EXPECT_EQ(it->entry().sequence, entries[first].seq);
  it->Seek("\xff\xff\xff");
  EXPECT_FALSE(it->Valid());
}

TEST(TableTest, FilterCutsDataBlockReadsForAbsentKeysToAboutTheFpr) {
  const std::vector<Entry> entries = testutil::MakeEntries(100000, 3);
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok());
  const int lookups = 200000;
  for (int i = 0; i < lookups; ++i) ASSERT_TRUE((*table)->Get(testutil::AbsentKey(i)).ok());
  const TableStats c = (*table)->stats();
  const double fpr = (*table)->whole_key_filter()->predicted_fpr();
  EXPECT_EQ(c.filters_checked, static_cast<uint64_t>(lookups));
  EXPECT_EQ(c.filter_true_positive, 0u);
  EXPECT_EQ(c.data_block_reads, c.filter_positive);
  // Binomial: 6 standard deviations around lookups * fpr.
  const double expected = lookups * fpr;
  EXPECT_NEAR(static_cast<double>(c.data_block_reads), expected, 6 * std::sqrt(expected) + 1);
  std::printf("absent lookups %d: %llu data-block reads (predicted %.0f)\n", lookups,
              static_cast<unsigned long long>(c.data_block_reads), expected);
}

TEST(TableTest, TableWithoutFilterStillAnswersCorrectly) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 9);
  TableOptions options;
  options.filter_policy = nullptr;
  const std::string bytes = testutil::BuildTable(entries, options);
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ((*table)->whole_key_filter(), nullptr);
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
}

TEST(TableTest, UnknownPolicyOpensWithoutFilteringAndSaysWhy) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 9);
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  TableReadOptions read_options;
  read_options.filter_policies = {*NewClassicBloomPolicy(10)};  // Not the writer's.
  auto table = Table::Open(NewMemRandomAccessFile(bytes), read_options);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE((*table)->filter_status().message().find("lsmbloom.BlockedBloom.v1"),
            std::string::npos);
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
}

TEST(TableTest, ClassicPolicyWorksThroughTheSameInterface) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 4);
  TableOptions options;
  options.filter_policy = *NewClassicBloomPolicy(10);
  const std::string bytes = testutil::BuildTable(entries, options);
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
  EXPECT_NE((*table)->whole_key_filter()->Describe().find("classic"), std::string::npos);
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
}

// A user-written policy, outside the library: an exact set of keys. It proves
// the table-to-policy plumbing with no Bloom math at all.
class ExactSetPolicy : public FilterPolicy {
 public:
  std::string Name() const override { return "test.ExactSet"; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    struct Builder : FilterBuilder {
      std::string out;
      void AddKey(std::string_view key) override {
        out += std::to_string(key.size()) + ":" + std::string(key) + ",";
      }
      absl::StatusOr<std::string> Finish() override { return out; }
    };
    return std::make_unique<Builder>();
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    struct Reader : FilterReader {
      std::set<std::string> keys;
      bool KeyMayMatch(std::string_view key) const override {
        return keys.count(std::string(key)) > 0;
      }
      std::string Describe() const override { return "exact set"; }
    };
    auto reader = std::make_unique<Reader>();
    while (!filter.empty()) {
      const size_t colon = filter.find(':');
      if (colon == std::string_view::npos) return absl::DataLossError("bad set");
      const size_t len = std::stoul(std::string(filter.substr(0, colon)));
      reader->keys.insert(std::string(filter.substr(colon + 1, len)));
      filter.remove_prefix(std::min(filter.size(), colon + 2 + len));
    }
    return std::unique_ptr<FilterReader>(std::move(reader));
  }
};

TEST(TableTest, UserWrittenPolicyPlugsInWithoutTouchingTheLibrary) {
  const std::vector<Entry> entries = testutil::MakeEntries(5000, 2);
  auto policy = std::make_shared<ExactSetPolicy>();
  TableOptions options;
  options.filter_policy = policy;
  const std::string bytes = testutil::BuildTable(entries, options);
  TableReadOptions read_options;
  read_options.filter_policies = {policy};
  auto table = Table::Open(NewMemRandomAccessFile(bytes), read_options);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
  EXPECT_EQ((*table)->properties().filter_policy, "test.ExactSet");
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  // An exact filter rules out every absent key: no data block is read.
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE((*table)->Get(testutil::AbsentKey(i)).ok());
  EXPECT_EQ((*table)->stats().data_block_reads, (*table)->stats().filter_true_positive);
  EXPECT_EQ((*table)->stats().filter_ruled_out, 1000u);
}

TEST(TableTest, TombstonesAreInTheFilter) {
  std::vector<Entry> entries = {{"a", 5, EntryType::kValue, "1"},
                                {"gone", 9, EntryType::kDeletion, ""},
                                {"z", 2, EntryType::kValue, "2"}};
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok());
  EXPECT_TRUE((*table)->KeyMayMatch("gone"));
  absl::StatusOr<LookupResult> got = (*table)->Get("gone");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->kind, LookupResult::Kind::kDeleted);
  EXPECT_EQ(got->sequence, 9u);
}

TEST(TableTest, PrefixFilterAnswersPrefixQueries) {
  std::vector<Entry> entries;
  for (int user = 0; user < 3000; ++user) {
    for (int item = 0; item < 3; ++item) {
      char key[32];
      std::snprintf(key, sizeof(key), "u%05d/item%d", user * 2, item);  // Even users.
      entries.push_back({key, 1, EntryType::kValue, "v"});
    }
  }
  TableOptions options;
  options.prefix_extractor = *NewFixedPrefixExtractor(6);  // "u01234"
  const std::string bytes = testutil::BuildTable(entries, options);
  TableReadOptions read_options;
  read_options.prefix_extractors = {*NewFixedPrefixExtractor(6)};
  auto table = Table::Open(NewMemRandomAccessFile(bytes), read_options);
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->properties().filter_prefix_extractor, "lsmbloom.FixedPrefix.6");
  int present_rejected = 0, absent_accepted = 0;
  for (int user = 0; user < 6000; ++user) {
    char prefix[16];
    std::snprintf(prefix, sizeof(prefix), "u%05d", user);
    const bool may = (*table)->PrefixMayMatch(prefix);
    if (user % 2 == 0) present_rejected += !may;
    if (user % 2 == 1) absent_accepted += may;
  }
  EXPECT_EQ(present_rejected, 0);
  EXPECT_LT(absent_accepted, 3000 * 0.03);  // ~1% FPR, generous bound.
  // Prefixes of another length than the extractor's are never ruled out.
  int other_shape_rejected = 0;
  for (int user = 0; user < 600; user += 2) {
    char longer[32];
    std::snprintf(longer, sizeof(longer), "u%05d/it", user);
    other_shape_rejected += !(*table)->PrefixMayMatch(longer);
    other_shape_rejected += !(*table)->PrefixMayMatch(std::string(longer, 3));
  }
  EXPECT_EQ(other_shape_rejected, 0);
  EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  // Without the extractor the reader cannot filter prefixes, so says maybe.
  auto plain = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE((*plain)->PrefixMayMatch("u00001"));
}

TEST(TableTest, OutOfOrderAddIsRejectedAndNoTableWithoutItIsWritten) {
  struct Bad {
    const char* key;
    uint64_t seq;
  };
  const Bad bad[] = {{"a", 1},   // Key before the last.
                     {"b", 1},   // Same (key, seq) twice.
                     {"b", 2}};  // Newer after older.
  for (const Bad& b : bad) {
    SCOPED_TRACE(std::string(b.key) + "@" + std::to_string(b.seq));
    std::string bytes;
    TableBuilder builder(TableOptions(), NewMemWritableFile(&bytes));
    ASSERT_TRUE(builder.Add("b", 1, EntryType::kValue, "x").ok());
    const absl::Status s = builder.Add(b.key, b.seq, EntryType::kValue, "y");
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    // The entry is lost to this table, so the table must not be finished.
    EXPECT_EQ(builder.Add("c", 1, EntryType::kValue, "z"), s);
    EXPECT_EQ(builder.Finish(), s);
    EXPECT_FALSE(Table::Open(NewMemRandomAccessFile(bytes)).ok());
  }
}

TEST(TableTest, PosixFilesReadMappedByDefaultOrWithPread) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 6);
  const std::string path = ::testing::TempDir() + "/posix_table.sst";
  {
    auto file = NewPosixWritableFile(path);
    ASSERT_TRUE(file.ok()) << file.status();
    TableBuilder builder(TableOptions(), std::move(*file));
    for (const Entry& e : entries) ASSERT_TRUE(builder.Add(e.key, e.seq, e.type, e.value).ok());
    ASSERT_TRUE(builder.Finish().ok());
  }
  EXPECT_NE(::access((path + ".tmp").c_str(), F_OK), 0);  // Renamed away.
  std::string whole;
  {
    auto in = OpenPosixFile(path, FileAccess::kMmap);
    ASSERT_TRUE(in.ok());
    whole = std::string((*in)->MappedContents());
    ASSERT_GT(whole.size(), 200u);
  }
  for (FileAccess access : {FileAccess::kDefault, FileAccess::kMmap, FileAccess::kPread}) {
    auto file = OpenPosixFile(path, access);
    ASSERT_TRUE(file.ok());
    // The default maps the file on 64-bit systems, as LevelDB does.
    const bool mapped = access == FileAccess::kMmap ||
                        (access == FileAccess::kDefault && sizeof(void*) == 8);
    EXPECT_EQ(!(*file)->MappedContents().empty(), mapped) << static_cast<int>(access);
    // Mapped or not, Read fills the caller's buffer too: a caller that
    // reads scratch instead of the result still gets the bytes.
    char scratch[64] = {};
    std::string_view got;
    ASSERT_TRUE((*file)->Read(100, sizeof(scratch), scratch, &got).ok());
    EXPECT_EQ(std::string_view(scratch, sizeof(scratch)), got);
    EXPECT_EQ(got, std::string_view(whole).substr(100, sizeof(scratch)));
    auto table = Table::Open(std::move(*file));
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_TRUE((*table)->filter_status().ok());
    EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u) << static_cast<int>(access);
  }
  // The bool form: pread when false, mapped when true.
  EXPECT_TRUE((*OpenPosixFile(path, /*mmap=*/false))->MappedContents().empty());
  EXPECT_FALSE((*OpenPosixFile(path, /*mmap=*/true))->MappedContents().empty());
  std::remove(path.c_str());
}

TEST(TableTest, AbandonedBuildLeavesNoFile) {
  const std::string path = ::testing::TempDir() + "/abandoned.sst";
  std::remove(path.c_str());
  {
    auto file = NewPosixWritableFile(path);
    ASSERT_TRUE(file.ok());
    TableBuilder builder(TableOptions(), std::move(*file));
    ASSERT_TRUE(builder.Add("k", 1, EntryType::kValue, "v").ok());
    builder.Abandon();
  }
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_NE(::access((path + ".tmp").c_str(), F_OK), 0);
}

TEST(TableTest, FilterBitsAreCacheLineAlignedInTheFile) {
  const std::vector<Entry> entries = testutil::MakeEntries(3000, 1);
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  // The filter's header magic sits at a multiple of 64.
  const size_t at = bytes.find("LBBF");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(at % 64, 0u);
}

TEST(TableTest, BadFilesAreClearErrors) {
  EXPECT_EQ(Table::Open(NewMemRandomAccessFile("")).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Table::Open(NewMemRandomAccessFile(std::string(4096, 'x'))).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(OpenPosixFile("/nonexistent/file.sst").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(OpenPosixFile(::testing::TempDir()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lsmbloom
