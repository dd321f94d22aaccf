// A failed sync stops the store from acknowledging writes: on Linux a
// writeback error is reported once and the pages it hit may be gone, so a
// store that retried the sync, or never saw a background sync fail, would
// acknowledge writes after a hole in its log. FaultInjectionEnv fails a
// sync that way (a later sync succeeds without the lost bytes).

#include <chrono>
#include <random>
#include <thread>

#include "absl/strings/match.h"
#include "fault_injection_env.h"
#include "gtest/gtest.h"
#include "store.h"

namespace kvstore {
namespace {

constexpr char kDir[] = "/db";

StoreOptions Options(FaultInjectionEnv* env, WalSync::Mode mode) {
  StoreOptions options;
  options.env = env;
  options.wal_sync.mode = mode;
  options.wal_sync.interval = absl::Milliseconds(1);
  return options;
}

std::unique_ptr<Store> Open(FaultInjectionEnv* env, WalSync::Mode mode) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(kDir, Options(env, mode));
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

// The error names the failed call and the cause.
void ExpectNamesSyncFailure(const absl::Status& s) {
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "fdatasync")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Input/output error")) << s;
}

// The background sync runs every millisecond: give it 10 s.
void WaitForWriteError(const Store& store) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (store.write_error().ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(SyncErrorTest, UnderSyncAlwaysAFailedLogSyncFailsThatWriteAndEveryLaterOne) {
  FaultInjectionEnv env;
  std::unique_ptr<Store> store = Open(&env, WalSync::Mode::kAlways);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("a", "1").ok());
  env.FailNextSync(".log");
  ExpectNamesSyncFailure(store->Put("b", "2"));
  // The next sync would succeed: the store must not try it.
  ExpectNamesSyncFailure(store->Put("c", "3"));
  ExpectNamesSyncFailure(store->Delete("a"));
  ExpectNamesSyncFailure(store->write_error());
  EXPECT_EQ(*store->Get("c"), std::nullopt);
  EXPECT_EQ(*store->Get("a"), "1");
}

TEST(SyncErrorTest, UnderSyncIntervalAFailedBackgroundSyncFailsTheNextWrite) {
  FaultInjectionEnv env;
  std::unique_ptr<Store> store = Open(&env, WalSync::Mode::kInterval);
  ASSERT_NE(store, nullptr);
  env.FailNextSync(".log");
  ASSERT_TRUE(store->Put("a", "1").ok());  // Acknowledged before its sync.
  // The background thread runs into the failure; it is kept, not
  // swallowed.
  WaitForWriteError(*store);
  ExpectNamesSyncFailure(store->write_error());
  ExpectNamesSyncFailure(store->Put("b", "2"));
  ExpectNamesSyncFailure(store->Put("c", "3"));
  EXPECT_EQ(*store->Get("b"), std::nullopt);
}

// Under kInterval the lost bytes were acknowledged: what is left of them
// is the memtable, and Close writes it to a table, synced.
TEST(SyncErrorTest, AfterAFailedBackgroundSyncCloseStillKeepsEveryAcknowledgedWrite) {
  FaultInjectionEnv env;
  std::unique_ptr<Store> store = Open(&env, WalSync::Mode::kInterval);
  ASSERT_NE(store, nullptr);
  env.FailNextSync(".log");
  int acked = 0;
  while (acked < 100 && store->Put(absl::StrCat("k", acked), "v").ok()) ++acked;
  EXPECT_GT(acked, 0);
  WaitForWriteError(*store);
  ExpectNamesSyncFailure(store->Put("late", "v"));
  ASSERT_TRUE(store->Close().ok());
  store.reset();
  std::mt19937_64 rng(1);
  env.PowerFailure(rng, /*keep_some_unsynced=*/false);
  store = Open(&env, WalSync::Mode::kInterval);
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < acked; ++i) EXPECT_EQ(*store->Get(absl::StrCat("k", i)), "v") << i;
  EXPECT_TRUE(store->write_error().ok());  // A new log, synced from the start.
}

// A MANIFEST whose rename may be on disk while writes go to a log it calls
// obsolete: no write may be acknowledged until a MANIFEST is rewritten.
TEST(SyncErrorTest, AFailedManifestUpdateStopsWritesAndCloseKeepsThem) {
  FaultInjectionEnv env;
  std::unique_ptr<Store> store = Open(&env, WalSync::Mode::kAlways);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("a", "1").ok());
  env.FailNextSync("MANIFEST.tmp");
  EXPECT_FALSE(store->Flush().ok());
  const absl::Status s = store->Put("b", "2");
  EXPECT_TRUE(absl::StrContains(s.message(), "MANIFEST update failed")) << s;
  EXPECT_FALSE(store->write_error().ok());
  ASSERT_TRUE(store->Close().ok());
  store.reset();
  std::mt19937_64 rng(1);
  env.PowerFailure(rng, /*keep_some_unsynced=*/false);
  store = Open(&env, WalSync::Mode::kAlways);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->Get("a"), "1");
  EXPECT_EQ(*store->Get("b"), std::nullopt);
}

// What the fault injection does, on its own: a failed sync's bytes read
// back until a power failure, and a later sync does not bring them back.
TEST(SyncErrorTest, TheEnvLosesTheBytesOfAFailedSyncAsLinuxDoes) {
  FaultInjectionEnv env;
  ASSERT_TRUE(env.EnsureDir(kDir, true).ok());
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> file = env.NewWritableFile("/db/f");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("kept").ok());
  ASSERT_TRUE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Append("lost").ok());
  env.FailNextSync("/db/f");
  EXPECT_FALSE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Append("late").ok());
  EXPECT_TRUE((*file)->Sync().ok());  // "Succeeds".
  EXPECT_EQ(*ReadFileToString(&env, "/db/f"), "keptlostlate");
  EXPECT_EQ(*env.DurableContents("/db/f"), std::string("kept\0\0\0\0late", 12));
}

}  // namespace
}  // namespace kvstore
