// Kill -9 at chosen points: a child process writes in a loop and reports
// each write on a pipe once the store has acknowledged it; the parent picks
// a count N for each round (seeded), kills the child as soon as it has read
// the N-th acknowledgement (the child goes on writing meanwhile, so the kill
// lands inside whatever the child does next), reopens the store and checks
// that every
// acknowledged write is there, that every value present is whole (values
// are derived from their keys, so a damaged or mixed-up one shows), that
// unacknowledged writes are at most the one in flight per kill, and that
// the MANIFEST and every table it lists read back intact. The kills land
// in log appends, flushes and compactions alike (the memtable is small).
// The kill waits for the child's progress, not for a time: on a loaded
// machine (or under a sanitizer) a slow child is killed later, at the same
// count, so what the test proves does not depend on the machine.
//
// KVSTORE_CRASH_ROUNDS sets the number of kills (default 30, a few
// seconds).

#include <errno.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lsmbloom/inspect/inspect.h"
#include "manifest.h"
#include "store.h"
#include "xxhash.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;

// The value of `key`: 20 to 400 bytes from its hash, then the hash itself.
std::string ValueFor(std::string_view key) {
  const uint64_t h = XXH3_64bits(key.data(), key.size());
  std::string value(20 + h % 381, '\0');
  for (size_t i = 0; i < value.size(); ++i) value[i] = 'a' + (h >> (i % 60)) % 26;
  return absl::StrCat(value, ":", absl::Hex(h));
}

StoreOptions CrashOptions(WalSync::Mode mode) {
  StoreOptions options;
  options.wal_sync.mode = mode;
  // Small, so that flushes and compactions happen every few dozen writes.
  options.memtable_max_bytes = 16 << 10;
  options.target_file_size = 16 << 10;
  options.level1_max_bytes = 64 << 10;
  options.level_size_multiplier = 4;
  options.table_options.block_size = 1024;
  options.table_options.data_block_hash_index = true;  // Format 3 tables too.
  return options;
}

// The child: opens the store and writes keys "r<round>-<i>" until killed,
// writing each key to `ack_fd` once Put has returned OK.
[[noreturn]] void WriteUntilKilled(const std::string& dir, int round, WalSync::Mode mode,
                                   int ack_fd) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, CrashOptions(mode));
  if (!store.ok()) {
    std::fprintf(stderr, "child: %s\n", std::string(store.status().message()).c_str());
    _exit(3);
  }
  for (int i = 0;; ++i) {
    const std::string key = absl::StrCat("r", round, "-", i);
    absl::Status s = (*store)->Put(key, ValueFor(key));
    if (!s.ok()) {
      std::fprintf(stderr, "child: %s\n", std::string(s.message()).c_str());
      _exit(4);
    }
    const std::string line = key + "\n";  // One write(2) below PIPE_BUF: atomic.
    if (write(ack_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      _exit(5);
    }
  }
}

// Every table the MANIFEST lists reads back whole: each data block checks
// out and a full iteration ends without error.
void ExpectTablesIntact(const Store& store) {
  absl::StatusOr<Manifest> manifest = ReadManifest(store.dir());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  size_t live = 0;
  for (const auto& level : store.files()) {
    for (const lsmbloom::TableFile& f : level) {
      ++live;
      absl::StatusOr<std::vector<lsmbloom::BlockLocation>> blocks =
          lsmbloom::DataBlockLocations(*f.table);
      ASSERT_TRUE(blocks.ok()) << blocks.status();
      for (const auto& block : *blocks) {
        EXPECT_TRUE(lsmbloom::CheckDataBlock(*f.table, block).ok()) << f.file_number;
      }
      auto it = f.table->NewIterator();
      uint64_t entries = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next()) ++entries;
      EXPECT_TRUE(it->status().ok()) << it->status();
      EXPECT_EQ(entries, f.table->num_entries());
    }
  }
  EXPECT_EQ(manifest->files.size(), live);
}

// The most writes before a round's kill. Under kAlways every write syncs
// (milliseconds each), so its rounds are shorter; across rounds the store
// still grows through flushes and compactions (some 200 bytes a write).
size_t MaxWritesPerRound(WalSync::Mode mode) { return mode == WalSync::Mode::kAlways ? 40 : 200; }

void RunKills(const std::string& dir, WalSync::Mode mode, int rounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::string> acked;
  int kills_mid_write = 0;
  for (int round = 0; round < rounds; ++round) {
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(pipe_fds[0]);
      WriteUntilKilled(dir, round, mode, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    // The kill point: after the N-th acknowledged write of this round, so
    // kills land before a flush as well as during and after flushes and
    // compactions.
    const size_t kill_after = 1 + rng() % MaxWritesPerRound(mode);
    std::string acks;
    char buffer[4096];
    ssize_t n;
    size_t lines = 0;
    while (lines < kill_after) {
      n = read(pipe_fds[0], buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // The child is gone: its status says why, below.
      acks.append(buffer, n);
      lines += std::count(buffer, buffer + n, '\n');
    }
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status))
        << "child exited on its own with status " << WEXITSTATUS(status);
    // Acknowledgements written between the N-th and the kill.
    while ((n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0) acks.append(buffer, n);
    close(pipe_fds[0]);
    for (absl::string_view key : absl::StrSplit(acks, '\n', absl::SkipEmpty())) {
      acked.insert(std::string(key));
    }

    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, CrashOptions(mode));
    ASSERT_TRUE(store.ok()) << "round " << round << ": " << store.status();
    for (const std::string& note : (*store)->recovery_notes()) {
      kills_mid_write += note.find("torn tail") != std::string::npos;
    }
    for (const std::string& key : acked) {
      absl::StatusOr<std::optional<std::string>> value = (*store)->Get(key);
      ASSERT_TRUE(value.ok()) << value.status();
      ASSERT_EQ(*value, ValueFor(key)) << "acknowledged write lost: round " << round;
    }
    size_t unacked = 0, present = 0;
    absl::Status s = (*store)->Scan({}, [&](std::string_view key, std::string_view value) {
      ++present;
      EXPECT_EQ(value, ValueFor(key)) << "damaged value for " << key;
      unacked += acked.count(std::string(key)) == 0;
      return true;
    });
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(present, acked.size() + unacked);
    // Only a write in flight at a kill can be in without its ack.
    EXPECT_LE(unacked, static_cast<size_t>(round + 1));
    ExpectTablesIntact(**store);
    // Sometimes close (flushing the replayed writes), sometimes not, so the
    // next child starts from a log of either kind.
    if (rng() % 2 == 0) {
      ASSERT_TRUE((*store)->Close().ok());
    }
  }
  std::fprintf(stderr, "%d kills, %zu acknowledged writes, %d torn log tails\n", rounds,
               acked.size(), kills_mid_write);
  EXPECT_GT(acked.size(), static_cast<size_t>(rounds));
}

int Rounds() {
  int rounds = 30;
  const char* env = std::getenv("KVSTORE_CRASH_ROUNDS");
  if (env != nullptr && !absl::SimpleAtoi(env, &rounds)) rounds = 30;
  return rounds;
}

std::string FreshDir(const std::string& name) {
  const std::string dir = (fs::path(::testing::TempDir()) / name).string();
  fs::remove_all(dir);
  return dir;
}

TEST(CrashTest, KillNineUnderSyncAlwaysLosesNoAcknowledgedWrite) {
  RunKills(FreshDir("always"), WalSync::Mode::kAlways, Rounds(), 1);
}

// A killed process's writes are in the OS already: without syncs it loses
// nothing either.
TEST(CrashTest, KillNineUnderSyncNeverLosesNoAcknowledgedWrite) {
  RunKills(FreshDir("never"), WalSync::Mode::kNever, Rounds(), 2);
}

}  // namespace
}  // namespace kvstore
