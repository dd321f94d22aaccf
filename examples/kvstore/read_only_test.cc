// Opening a store read-only: it reads what a writer would (tables and the
// logs' unflushed writes), refuses every write, changes nothing in the
// directory, shares the directory with other readers and not with a
// writer. And the one rule on keys: never empty; values may be.

#include <filesystem>
#include <map>
#include <string>

#include "absl/strings/str_format.h"
#include "file_util.h"
#include "gtest/gtest.h"
#include "env.h"
#include "store.h"
#include "test_util.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;
using testing::Key;

// Every file in `dir` with its contents.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    absl::StatusOr<std::string> contents = ReadFileToString(Env::Default(), e.path().string());
    EXPECT_TRUE(contents.ok()) << contents.status();
    files[e.path().filename().string()] = contents.ok() ? *contents : "";
  }
  return files;
}

class ReadOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir();
    options_.wal_sync.mode = WalSync::Mode::kNever;
  }
  std::string dir_;
  StoreOptions options_;
};

TEST_F(ReadOnlyTest, ReadsTablesAndLogsRefusesWritesAndChangesNothing) {
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options_);
    ASSERT_TRUE(store.ok()) << store.status();
    for (int i = 0; i < 100; ++i) ASSERT_TRUE((*store)->Put(Key(i), "in a table").ok());
    ASSERT_TRUE((*store)->Flush().ok());
    ASSERT_TRUE((*store)->Put(Key(1), "in the log").ok());
    // Not closed: the last write is only in the log.
  }
  const auto before = Snapshot(dir_);
  StoreOptions read_only = options_;
  read_only.read_only = true;
  absl::StatusOr<std::unique_ptr<Store>> reader = Store::Open(dir_, read_only);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<std::unique_ptr<Store>> second = Store::Open(dir_, read_only);
  ASSERT_TRUE(second.ok()) << "readers share the store: " << second.status();
  EXPECT_TRUE(absl::IsUnavailable(Store::Open(dir_, options_).status()));

  absl::StatusOr<std::optional<std::string>> v = (*reader)->Get(Key(1));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "in the log");
  v = (*reader)->Get(Key(2));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, "in a table");
  int scanned = 0;
  ASSERT_TRUE((*reader)->Scan({}, [&](std::string_view, std::string_view) { return ++scanned; }).ok());
  EXPECT_EQ(scanned, 100);

  for (const absl::Status& s : {(*reader)->Put("k", "v"), (*reader)->Delete(Key(1)),
                                (*reader)->Flush(), (*reader)->CompactAll(),
                                (*reader)->CompactLevel(0)}) {
    EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
    EXPECT_NE(s.message().find("read-only"), std::string::npos) << s;
  }
  EXPECT_TRUE((*reader)->Close().ok());
  EXPECT_TRUE((*second)->Close().ok());
  EXPECT_EQ(Snapshot(dir_), before);

  // A writer excludes readers.
  absl::StatusOr<std::unique_ptr<Store>> writer = Store::Open(dir_, options_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  EXPECT_TRUE(absl::IsUnavailable(Store::Open(dir_, read_only).status()));
}

TEST_F(ReadOnlyTest, NoStoreIsNotFoundAndCreatesNothing) {
  fs::create_directories(dir_);
  StoreOptions read_only = options_;
  read_only.read_only = true;
  EXPECT_TRUE(absl::IsNotFound(Store::Open(dir_, read_only).status()));
  EXPECT_TRUE(fs::is_empty(dir_));
  EXPECT_TRUE(absl::IsNotFound(Store::Open(dir_ + "/missing", read_only).status()));
  EXPECT_FALSE(fs::exists(dir_ + "/missing"));
}

TEST_F(ReadOnlyTest, EmptyKeysAreRefusedAndEmptyValuesKept) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options_);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(absl::IsInvalidArgument((*store)->Put("", "v")));
  EXPECT_TRUE(absl::IsInvalidArgument((*store)->Delete("")));
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Put("", "2");
  EXPECT_TRUE(absl::IsInvalidArgument((*store)->Write(batch)));
  EXPECT_EQ((*store)->last_sequence(), 0u);  // Nothing of the batch applied.
  ASSERT_TRUE((*store)->Put("a", "").ok());
  absl::StatusOr<std::optional<std::string>> v = (*store)->Get("a");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, std::optional<std::string>(""));
}

}  // namespace
}  // namespace kvstore
