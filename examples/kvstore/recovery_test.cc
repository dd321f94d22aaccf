// The store's write-ahead log end to end: writes survive a store that is
// never closed, a torn tail loses only the torn write and is reported,
// damage in the middle fails Open, a batch is all or nothing, and a
// flushed log is deleted once the MANIFEST no longer needs it.

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/str_format.h"
#include "filenames.h"
#include "gtest/gtest.h"
#include "manifest.h"
#include "store.h"
#include "test_util.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;

using testing::Key;

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir();
    options_.wal_sync.mode = WalSync::Mode::kNever;  // Kills, not power loss.
  }

  std::unique_ptr<Store> OpenStore() { return testing::OpenStore(dir_, options_); }

  std::set<uint64_t> Logs() const {
    std::set<uint64_t> logs;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const ParsedFileName parsed = ParseFileName(e.path().filename().string());
      if (parsed.kind == FileKind::kLog) logs.insert(parsed.number);
    }
    return logs;
  }

  // The one log's path; fails the test if there is not exactly one.
  std::string OnlyLog() const {
    const std::set<uint64_t> logs = Logs();
    EXPECT_EQ(logs.size(), 1u);
    return logs.empty() ? "" : LogFileName(dir_, *logs.begin());
  }

  static std::optional<std::string> GetOrDie(const Store& store, const std::string& key) {
    absl::StatusOr<std::optional<std::string>> v = store.Get(key);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::nullopt;
  }

  std::string dir_;
  StoreOptions options_;
};

TEST_F(RecoveryTest, WritesSurviveAStoreThatIsNeverClosed) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(store->Put(Key(i), "v" + Key(i)).ok());
    ASSERT_TRUE(store->Delete(Key(7)).ok());
    // Destroyed without Close(): nothing flushed, as after kill -9.
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->memtable_entries(), 100u);
  EXPECT_EQ(store->last_sequence(), 101u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(GetOrDie(*store, Key(i)), i == 7 ? std::nullopt : std::optional("v" + Key(i)));
  }
  ASSERT_EQ(store->recovery_notes().size(), 1u);
  EXPECT_NE(store->recovery_notes()[0].find("replayed 101 write batches"), std::string::npos)
      << store->recovery_notes()[0];
}

TEST_F(RecoveryTest, TornTailLosesOnlyTheTornWriteAndIsReported) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Put(Key(i), "value").ok());
  }
  const std::string log = OnlyLog();
  fs::resize_file(log, fs::file_size(log) - 3);
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(GetOrDie(*store, Key(8)), "value");
    EXPECT_EQ(GetOrDie(*store, Key(9)), std::nullopt);
    ASSERT_EQ(store->recovery_notes().size(), 1u);
    EXPECT_NE(store->recovery_notes()[0].find("dropped a torn tail"), std::string::npos)
        << store->recovery_notes()[0];
    // Writes after the repair append to the intact prefix.
    ASSERT_TRUE(store->Put(Key(9), "again").ok());
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(GetOrDie(*store, Key(9)), "again");
  EXPECT_EQ(store->memtable_entries(), 10u);
}

TEST_F(RecoveryTest, DamageInTheMiddleOfTheLogFailsOpen) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Put(Key(i), "value").ok());
  }
  const std::string log = OnlyLog();
  std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(60);  // Inside the second record of ten.
  f.put('\xff');
  f.close();
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options_);
  EXPECT_TRUE(absl::IsDataLoss(store.status())) << store.status();
  EXPECT_NE(store.status().message().find(".log"), std::string::npos);
}

TEST_F(RecoveryTest, ABatchIsReplayedWholeOrNotAtAll) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Put("before", "1").ok());
    WriteBatch batch;
    for (int i = 0; i < 50; ++i) batch.Put(Key(i), "batch");
    ASSERT_TRUE(store->Write(batch).ok());
    EXPECT_EQ(store->last_sequence(), 51u);
  }
  const std::string log = OnlyLog();
  fs::resize_file(log, fs::file_size(log) - 1);
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(GetOrDie(*store, "before"), "1");
  for (int i = 0; i < 50; ++i) EXPECT_EQ(GetOrDie(*store, Key(i)), std::nullopt);
}

TEST_F(RecoveryTest, FlushStartsANewLogAndDeletesTheOldOne) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("a", "1").ok());
  const std::set<uint64_t> before = Logs();
  ASSERT_EQ(before.size(), 1u);
  ASSERT_TRUE(store->Flush().ok());
  const std::set<uint64_t> after = Logs();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_GT(*after.begin(), *before.begin());
  absl::StatusOr<Manifest> manifest = ReadManifest(dir_);
  ASSERT_TRUE(manifest.ok());
  EXPECT_EQ(manifest->log_number, *after.begin());
  ASSERT_TRUE(store->Put("b", "2").ok());
  store.reset();  // Unclosed: "b" is only in the new log.
  store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(GetOrDie(*store, "a"), "1");
  EXPECT_EQ(GetOrDie(*store, "b"), "2");
  EXPECT_EQ(store->memtable_entries(), 1u);  // "a" came from the table.
}

TEST_F(RecoveryTest, LogLeftByAnUnfinishedFlushIsReplayedAndFolded) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Put("a", "1").ok());
  }
  // As if a flush had created its new log and died before the MANIFEST.
  const std::string old_log = OnlyLog();
  const uint64_t next = *Logs().begin() + 1;
  fs::copy_file(old_log, LogFileName(dir_, next));
  fs::resize_file(old_log, fs::file_size(old_log));                 // Old log unchanged.
  std::ofstream(LogFileName(dir_, next), std::ios::trunc).close();  // New log: empty.
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(GetOrDie(*store, "a"), "1");
  // Two logs replayed: the store flushed them into a table and kept one.
  EXPECT_EQ(Logs().size(), 1u);
  EXPECT_EQ(store->files()[0].size(), 1u);
}

TEST_F(RecoveryTest, CloseLeavesAnEmptyLogAndReopenReusesIt) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Put("a", "1").ok());
    ASSERT_TRUE(store->Close().ok());
  }
  const std::set<uint64_t> logs = Logs();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_EQ(fs::file_size(LogFileName(dir_, *logs.begin())), 0u);
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Logs(), logs);
  EXPECT_TRUE(store->recovery_notes().empty());
}

}  // namespace
}  // namespace kvstore
