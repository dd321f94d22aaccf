// Kill -9 at chosen points: a child process writes in a loop and reports
// each write on a pipe once the store has acknowledged it; the parent picks
// a count N for each round (seeded), kills the child once it has read the
// N-th acknowledgement, reopens the store and checks that every
// acknowledged write is there, that every value present is whole (values
// are derived from their keys, so a damaged or mixed-up one shows), that
// unacknowledged writes are at most the one in flight per kill, and that
// the MANIFEST and every table it lists read back intact.
//
// Where the kills land is measured, not hoped for: the child's store tells
// a word of shared memory what it is doing (StoreOptions::on_stage), which
// the parent reads once the child is dead. One round in four kills as soon
// as N is reached (wherever the child then is); in the others, the parent
// then stops the child (SIGSTOP) at random moments until it is stopped
// appending to the log, flushing or compacting, and kills it there. Each
// of the three must be where some kill landed.
// The kill waits for the child's progress, not for a time: on a loaded
// machine (or under a sanitizer) a slow child is killed later, at the same
// point, so what the test proves does not depend on the machine.
//
// A kill keeps the page cache, so this cannot tell the sync policies
// apart: power_failure_test does.
//
// KVSTORE_CRASH_ROUNDS sets the number of kills (default 30, a few
// seconds).

#include <errno.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
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

// What the child's store is doing, in memory it shares with the parent.
using SharedStage = std::atomic<int>;
static_assert(SharedStage::is_always_lock_free, "shared across processes");

SharedStage* NewSharedStage() {
  void* memory = mmap(nullptr, sizeof(SharedStage), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  return new (memory) SharedStage(static_cast<int>(StoreStage::kIdle));
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
// writing each key to `ack_fd` once Put has returned OK, and its store's
// stage to `stage`.
[[noreturn]] void WriteUntilKilled(const std::string& dir, int round, WalSync::Mode mode,
                                   int ack_fd, SharedStage* stage) {
  StoreOptions options = CrashOptions(mode);
  options.on_stage = [stage](StoreStage s) { stage->store(static_cast<int>(s)); };
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options);
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

// Reads what is in the pipe now, without waiting; false once the child
// has closed it (it is gone).
bool DrainAcks(int fd, std::string* acks) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      acks->append(buffer, n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return n < 0 && errno == EAGAIN;
    }
  }
}

// Stops the child (SIGSTOP) at moments drawn at random until it is
// stopped in `target`, and leaves it stopped there, so that the kill lands
// inside that stage and nowhere else. Each try samples where the child
// spends its time, without a busy loop taking the CPU the child needs.
// Gives up (the child runs on) after a minute or if the child is gone; the
// count of where kills landed then shows it.
void StopChildIn(pid_t child, int pipe_fd, StoreStage target, const SharedStage& stage,
                 std::mt19937_64& rng, std::string* acks) {
  fcntl(pipe_fd, F_SETFL, fcntl(pipe_fd, F_GETFL) | O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < deadline) {
    // The child blocks once the pipe is full: keep it empty.
    if (!DrainAcks(pipe_fd, acks)) return;
    usleep(static_cast<useconds_t>(rng() % 200));
    kill(child, SIGSTOP);
    int status = 0;
    if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status)) return;
    if (stage.load() == static_cast<int>(target)) return;
    kill(child, SIGCONT);
  }
}

void RunKills(const std::string& dir, WalSync::Mode mode, int rounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::string> acked;
  int kills_mid_write = 0;
  std::map<StoreStage, int> landed;
  SharedStage* stage = NewSharedStage();
  ASSERT_NE(stage, nullptr);
  for (int round = 0; round < rounds; ++round) {
    stage->store(static_cast<int>(StoreStage::kIdle));
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(pipe_fds[0]);
      WriteUntilKilled(dir, round, mode, pipe_fds[1], stage);
    }
    close(pipe_fds[1]);
    // The kill point: after the N-th acknowledged write of this round, so
    // kills land before a flush as well as during and after flushes and
    // compactions; then, in three rounds of four, once the child is in a
    // given stage.
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
    static constexpr StoreStage kTargets[] = {StoreStage::kLogAppend, StoreStage::kFlush,
                                              StoreStage::kCompaction};
    if (round % 4 != 0 && lines >= kill_after) {
      StopChildIn(child, pipe_fds[0], kTargets[round % 4 - 1], *stage, rng, &acks);
    }
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status))
        << "child exited on its own with status " << WEXITSTATUS(status);
    ++landed[static_cast<StoreStage>(stage->load())];
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) & ~O_NONBLOCK);
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
  std::fprintf(stderr, "%d kills, %zu acknowledged writes, %d torn log tails; kills landed in:",
               rounds, acked.size(), kills_mid_write);
  for (const auto& [where, count] : landed) {
    std::fprintf(stderr, " %s %d,", StoreStageName(where), count);
  }
  std::fprintf(stderr, "\n");
  EXPECT_GT(acked.size(), static_cast<size_t>(rounds));
  if (rounds >= 4) {
    for (StoreStage where :
         {StoreStage::kLogAppend, StoreStage::kFlush, StoreStage::kCompaction}) {
      EXPECT_GT(landed[where], 0) << "no kill landed in a " << StoreStageName(where);
    }
  }
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
