// Misuse is an error, never a silent loss: bad options, entries out of
// order, builders that cannot take what they are given, stats that a reset
// leaves behind.

#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(TableMisuseTest, BadFilterOptionsAreAnErrorNotATableWithoutAFilter) {
  BlockedBloomOptions options;
  options.bits_per_key = 0.01;
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> blocked = NewBlockedBloomPolicy(options);
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(blocked.status().message().find("bits_per_key"), std::string::npos) << blocked.status();

  absl::StatusOr<std::shared_ptr<const FilterPolicy>> classic = NewClassicBloomPolicy(0);
  ASSERT_FALSE(classic.ok());
  EXPECT_EQ(classic.status().code(), absl::StatusCode::kInvalidArgument);

  options.bits_per_key = 10;
  ASSERT_TRUE(NewBlockedBloomPolicy(options).ok());
  ASSERT_NE(*NewBlockedBloomPolicy(options), nullptr);
  EXPECT_NE(DefaultFilterPolicy(), nullptr);
}

TEST(TableMisuseTest, OutOfOrderEntryLatchesAndFinishPublishesNothing) {
  const std::string path = TempPath("out_of_order.sst");
  absl::StatusOr<std::unique_ptr<WritableFile>> file = NewPosixWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  TableBuilder builder(TableOptions(), *std::move(file));
  ASSERT_TRUE(builder.Add("b", 1, EntryType::kValue, "1").ok());
  const absl::Status rejected = builder.Add("a", 1, EntryType::kValue, "0");
  EXPECT_EQ(rejected.code(), absl::StatusCode::kInvalidArgument);
  // Every later call says the same: the table can no longer be complete.
  EXPECT_EQ(builder.Add("c", 1, EntryType::kValue, "2"), rejected);
  EXPECT_EQ(builder.Finish(), rejected);
  EXPECT_EQ(builder.Finish(), rejected);
  EXPECT_FALSE(Exists(path));
}

TEST(TableMisuseTest, SequenceNumberAbove56BitsLatchesAndLeavesNoReadableTable) {
  std::string bytes;
  TableBuilder builder(TableOptions(), NewMemWritableFile(&bytes));
  ASSERT_TRUE(builder.Add("a", 1, EntryType::kValue, "1").ok());
  const absl::Status rejected = builder.Add("b", kMaxSequenceNumber + 1, EntryType::kValue, "2");
  EXPECT_EQ(rejected.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rejected.message().find("sequence number"), std::string::npos) << rejected;
  EXPECT_EQ(builder.Finish(), rejected);
  EXPECT_FALSE(Table::Open(NewMemRandomAccessFile(bytes)).ok());
}

TEST(TableMisuseTest, RepeatedKeyAndSequenceIsRejectedAndLatched) {
  std::string bytes;
  TableBuilder builder(TableOptions(), NewMemWritableFile(&bytes));
  ASSERT_TRUE(builder.Add("a", 5, EntryType::kValue, "1").ok());
  EXPECT_FALSE(builder.Add("a", 5, EntryType::kValue, "1").ok());
  EXPECT_FALSE(builder.Finish().ok());
  EXPECT_EQ(builder.num_entries(), 1u);
}

// A builder that places keys only by key, as a user's policy may.
class KeysOnlyPolicy : public FilterPolicy {
 public:
  explicit KeysOnlyPolicy(bool give_builder) : give_builder_(give_builder) {}
  std::string Name() const override { return "test.KeysOnly"; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    struct Builder : FilterBuilder {
      void AddKey(std::string_view) override {}
      absl::StatusOr<std::string> Finish() override { return std::string(); }
    };
    if (!give_builder_) return nullptr;
    return std::make_unique<Builder>();
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view) const override {
    return absl::UnimplementedError("not for reading");
  }

 private:
  bool give_builder_;
};

TEST(TableMisuseTest, AddHashOnABuilderWithoutHashSpecIsAnErrorNotAnAbort) {
  std::unique_ptr<FilterBuilder> builder = KeysOnlyPolicy(true).NewBuilder();
  ASSERT_EQ(builder->hash_spec(), nullptr);
  const absl::Status s = builder->AddHash(42);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);

  std::unique_ptr<FilterBuilder> blocked = DefaultFilterPolicy()->NewBuilder();
  ASSERT_NE(blocked->hash_spec(), nullptr);
  EXPECT_TRUE(blocked->AddHash(KeyHash("k", *blocked->hash_spec())).ok());
}

TEST(TableMisuseTest, PolicyThatGivesNoBuilderIsAnErrorNotATableWithoutAFilter) {
  TableOptions options;
  options.filter_policy = std::make_shared<KeysOnlyPolicy>(false);
  std::string bytes;
  TableBuilder builder(options, NewMemWritableFile(&bytes));
  const absl::Status s = builder.Add("a", 1, EntryType::kValue, "1");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("test.KeysOnly"), std::string::npos) << s;
  EXPECT_EQ(builder.Finish(), s);
}

std::shared_ptr<const Table> OpenTable(const std::vector<testutil::Entry>& entries) {
  auto table = Table::Open(NewMemRandomAccessFile(testutil::BuildTable(entries, TableOptions())));
  EXPECT_TRUE(table.ok()) << table.status();
  return std::shared_ptr<const Table>(*std::move(table));
}

TEST(TableMisuseTest, ResetStatsLeavesNoCountOfEarlierLookupsAnywhere) {
  const std::vector<testutil::Entry> entries = testutil::MakeEntries(2000, 5);
  std::shared_ptr<const Table> table = OpenTable(entries);
  TableSet set;
  VersionEdit edit;
  edit.added.push_back(TableFile{1, 7, table});
  ASSERT_TRUE(set.Apply(edit).ok());
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(set.Get(testutil::AbsentKey(i, /*key_range=*/3000)).ok());
  }
  ASSERT_TRUE(set.Get(entries[10].key).ok());
  std::vector<std::string_view> keys = {entries[20].key, "absent"};
  set.MultiGet(keys);
  const LookupStats before = set.stats();
  EXPECT_EQ(before.lookups, 303u);
  EXPECT_GT(before.levels[1].filters_checked, 2u);
  EXPECT_GT(before.levels[1].filters_ruled_out, 0u);
  EXPECT_GE(before.levels[1].data_block_reads, 2u);
  // The set's lookups are counted in the set, not in the table they share.
  const TableStats table_before = table->stats();
  EXPECT_EQ(table_before.filters_checked, 0u);
  EXPECT_EQ(table_before.data_block_reads, 0u);

  set.ResetStats();
  const LookupStats after = set.stats();
  EXPECT_EQ(after.lookups, 0u);
  for (const LevelStats& l : after.levels) {
    EXPECT_EQ(l.filters_checked, 0u);
    EXPECT_EQ(l.filters_ruled_out, 0u);
    EXPECT_EQ(l.filters_positive, 0u);
    EXPECT_EQ(l.filters_true_positive, 0u);
    EXPECT_EQ(l.data_block_reads, 0u);
    EXPECT_EQ(l.files_range_skipped, 0u);
  }
  EXPECT_EQ(table->stats().filter_positive, 0u);
  EXPECT_EQ(table->stats().filter_true_positive, 0u);
  EXPECT_EQ(after.levels[1].files, 1u);  // The files themselves stay.
}

TEST(TableMisuseTest, TableStatsCountItsOwnGetOnly) {
  const std::vector<testutil::Entry> entries = testutil::MakeEntries(2000, 5);
  std::shared_ptr<const Table> table = OpenTable(entries);
  ASSERT_TRUE(table->Get(entries[10].key).ok());
  const TableStats s = table->stats();
  EXPECT_EQ(s.filters_checked, 1u);
  EXPECT_EQ(s.filter_positive, 1u);
  EXPECT_EQ(s.filter_true_positive, 1u);
  EXPECT_EQ(s.data_block_reads, 1u);
}

}  // namespace
}  // namespace lsmbloom
