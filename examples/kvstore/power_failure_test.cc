// Simulated power failures: the store runs on a FaultInjectionEnv
// (fault_injection_env.h), which stops the machine at a random file
// operation (seeded) while writes, flushes and compactions go on; then
// everything not synced is dropped, the store reopens, and what it holds
// is checked against the sequence of acknowledged writes:
//
//   - It must equal the state after some prefix of that sequence (plus, at
//     most, the one write in flight when the power failed): no holes, no
//     value nobody wrote, no resurrected key, and Open never fails.
//   - kAlways: the prefix holds every acknowledged write.
//   - kInterval: the prefix holds every write acknowledged before a log
//     sync that completed before the failure.
//   - Every mode: the prefix holds every write already in a table.
//
// Half of the failures drop every unsynced byte and directory change; the
// other half keep a random prefix of each (a file system may have written
// some back early). Each stop is counted by what the store was doing
// (StoreOptions::on_stage), and each stage must be hit.

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "fault_injection_env.h"
#include "gtest/gtest.h"
#include "store.h"
#include "write_batch.h"

namespace kvstore {
namespace {

// One acknowledged (or in-flight) write: its keys and their new values
// (nullopt: deleted).
using Write = std::vector<std::pair<std::string, std::optional<std::string>>>;
using State = std::map<std::string, std::string>;

StoreOptions PowerOptions(FaultInjectionEnv* env, WalSync::Mode mode, StoreStage* stage) {
  StoreOptions options;
  options.env = env;
  options.wal_sync.mode = mode;
  options.wal_sync.interval = absl::Milliseconds(2);
  // Small, so that a flush comes every few dozen writes and a compaction
  // every few flushes.
  options.memtable_max_bytes = 8 << 10;
  options.target_file_size = 8 << 10;
  options.level1_max_bytes = 32 << 10;
  options.level_size_multiplier = 4;
  options.table_options.block_size = 1024;
  // Where the power failed: the stages the failed operation unwinds
  // through afterwards do not count.
  options.on_stage = [env, stage](StoreStage s) {
    if (!env->stopped()) *stage = s;
  };
  return options;
}

Write RandomWrite(std::mt19937_64& rng, uint64_t serial) {
  Write write;
  const int keys = rng() % 10 == 0 ? 2 + rng() % 4 : 1;  // Sometimes a batch.
  for (int i = 0; i < keys; ++i) {
    std::string key = absl::StrFormat("k%03d", rng() % 300);
    if (rng() % 5 == 0) {
      write.emplace_back(std::move(key), std::nullopt);
    } else {
      std::string value = absl::StrCat(key, "@", serial, ":", std::string(rng() % 200, 'v'));
      write.emplace_back(std::move(key), std::move(value));
    }
  }
  return write;
}

absl::Status Apply(Store& store, const Write& write) {
  WriteBatch batch;
  for (const auto& [key, value] : write) {
    if (value.has_value()) {
      batch.Put(key, *value);
    } else {
      batch.Delete(key);
    }
  }
  return store.Write(batch);
}

State Contents(const Store& store) {
  State state;
  absl::Status s = store.Scan({}, [&](std::string_view key, std::string_view value) {
    state.emplace(std::string(key), std::string(value));
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  return state;
}

// Every k such that `before` with writes[0, k) applied equals `after`.
std::vector<size_t> MatchingPrefixes(const State& before, const std::vector<Write>& writes,
                                     const State& after) {
  State state = before;
  // Keys on which `state` and `after` differ.
  size_t differing = 0;
  auto differs = [&](const std::string& key) {
    auto a = state.find(key);
    auto b = after.find(key);
    if (a == state.end() || b == after.end()) return (a == state.end()) != (b == after.end());
    return a->second != b->second;
  };
  for (const auto& [key, value] : state) differing += differs(key);
  for (const auto& [key, value] : after) differing += state.count(key) == 0;
  std::vector<size_t> matches;
  if (differing == 0) matches.push_back(0);
  for (size_t k = 0; k < writes.size(); ++k) {
    for (const auto& [key, value] : writes[k]) {
      differing -= differs(key);
      if (value.has_value()) {
        state[key] = *value;
      } else {
        state.erase(key);
      }
      differing += differs(key);
    }
    if (differing == 0) matches.push_back(k + 1);
  }
  return matches;
}

// Waits until every byte of the newest log in `dir` is durable, as the
// kInterval thread must make it within its interval; true once it is,
// false if the machine stopped first. Fails the test after 10 s.
bool LogBecomesDurable(FaultInjectionEnv& env, const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = env.ListDir(dir);
  if (!names.ok()) return false;
  std::string log;
  for (const std::string& name : *names) {
    if (absl::EndsWith(name, ".log")) log = std::max(log, name);  // Numbers are zero-padded.
  }
  const std::string path = absl::StrCat(dir, "/", log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    absl::StatusOr<uint64_t> size = env.GetFileSize(path);
    absl::StatusOr<std::string> durable = env.DurableContents(path);
    if (!size.ok() || !durable.ok()) return false;  // Stopped.
    if (durable->size() == *size) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ADD_FAILURE() << path << " not durable 10 s after a write";
  return false;
}

// Runs `rounds` power failures under `mode`; returns how many stopped the
// store in each stage.
std::map<StoreStage, int> RunPowerFailures(WalSync::Mode mode, int rounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FaultInjectionEnv env;
  StoreStage stage = StoreStage::kIdle;
  const StoreOptions options = PowerOptions(&env, mode, &stage);
  std::map<StoreStage, int> stops;
  State state;  // What the store held after the last recovery.
  uint64_t serial = 0;
  int synced_writes_checked = 0;
  size_t lost_acknowledged = 0;  // Allowed only where the mode allows it.
  for (int round = 0; round < rounds; ++round) {
    // Every tenth round starts a new store, whose first log and directory
    // must be durable before the first write is acknowledged.
    const bool fresh = round % 10 == 0;
    const std::string dir = absl::StrCat("/db", round / 10);
    if (fresh) state.clear();
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options);
    EXPECT_TRUE(store.ok()) << "round " << round << ": " << store.status();
    if (!store.ok()) return stops;
    EXPECT_EQ(Contents(**store), state) << "round " << round;
    // The next few flushes, maybe a compaction; in a new store, often
    // before its first flush.
    env.StopAfter(rng() % (fresh ? 60 : 400));
    std::vector<Write> writes;   // Acknowledged, then the one in flight.
    std::vector<uint64_t> log_syncs_at_ack;
    size_t synced_by_wait = 0;
    size_t in_tables = 0;  // The writes[0, in_tables) are in tables.
    bool in_flight = false;
    while (!in_flight) {
      writes.push_back(RandomWrite(rng, ++serial));
      if (!Apply(**store, writes.back()).ok()) {
        in_flight = true;  // The power failed during this write.
        EXPECT_TRUE(env.stopped()) << "round " << round;
        break;
      }
      log_syncs_at_ack.push_back(env.SyncsOf(".log"));
      if ((*store)->memtable_entries() == 0) in_tables = writes.size();
      if (mode == WalSync::Mode::kInterval && rng() % 40 == 0 &&
          LogBecomesDurable(env, dir)) {
        // Now and then, wait for the background sync to make the log
        // durable; it must, and all that it holds must then survive.
        synced_by_wait = writes.size();
      }
    }
    ++stops[stage];
    const std::string stopped_at = absl::StrCat(StoreStageName(stage), ", ", env.stopped_at());
    const uint64_t log_syncs = env.SyncsOf(".log");
    store->reset();
    env.PowerFailure(rng, /*keep_some_unsynced=*/round % 2 == 1);

    // The writes a sync completed after: they must survive kInterval.
    size_t synced = 0;
    for (size_t i = 0; i < log_syncs_at_ack.size(); ++i) {
      if (log_syncs_at_ack[i] < log_syncs) synced = i + 1;
    }
    const size_t acked = writes.size() - (in_flight ? 1 : 0);
    size_t must_keep = in_tables;
    if (mode == WalSync::Mode::kAlways) must_keep = acked;
    if (mode == WalSync::Mode::kInterval) {
      must_keep = std::max({must_keep, synced, synced_by_wait});
    }
    synced_writes_checked += static_cast<int>(synced);

    store = Store::Open(dir, options);
    EXPECT_TRUE(store.ok()) << "round " << round << " (stopped in " << stopped_at
                            << "): " << store.status();
    if (!store.ok()) return stops;
    const State recovered = Contents(**store);
    const std::vector<size_t> prefixes = MatchingPrefixes(state, writes, recovered);
    EXPECT_FALSE(prefixes.empty())
        << "round " << round << ": what was recovered is no prefix of the writes ("
        << recovered.size() << " keys; " << writes.size() << " writes this round)";
    if (prefixes.empty()) return stops;
    EXPECT_GE(prefixes.back(), must_keep)
        << "round " << round << ": " << acked << " writes acknowledged, " << must_keep
        << " had to survive, only " << prefixes.back() << " did (stopped in " << stopped_at
        << ")";
    lost_acknowledged += acked - std::min(acked, prefixes.back());
    state = recovered;
    // Sometimes close (flushing what was replayed), sometimes not.
    if (rng() % 2 == 0) {
      EXPECT_TRUE((*store)->Close().ok());
    }
  }
  if (mode == WalSync::Mode::kInterval) {
    EXPECT_GT(synced_writes_checked, 0);
  }
  std::fprintf(stderr, "%s: %d power failures, stopped in:",
               mode == WalSync::Mode::kAlways     ? "always"
               : mode == WalSync::Mode::kInterval ? "interval"
                                                  : "never",
               rounds);
  for (const auto& [s, count] : stops) std::fprintf(stderr, " %s %d,", StoreStageName(s), count);
  std::fprintf(stderr, " %d writes a log sync covered, %zu acknowledged writes lost\n",
               synced_writes_checked, lost_acknowledged);
  return stops;
}

void ExpectEveryStageHit(const std::map<StoreStage, int>& stops) {
  for (StoreStage stage : {StoreStage::kLogAppend, StoreStage::kFlush, StoreStage::kCompaction}) {
    EXPECT_GT(stops.count(stage) ? stops.at(stage) : 0, 0) << StoreStageName(stage);
  }
}

TEST(PowerFailureTest, SyncAlwaysLosesNoAcknowledgedWrite) {
  ExpectEveryStageHit(RunPowerFailures(WalSync::Mode::kAlways, 200, 1));
}

TEST(PowerFailureTest, SyncIntervalLosesNoWriteALogSyncCovered) {
  ExpectEveryStageHit(RunPowerFailures(WalSync::Mode::kInterval, 80, 2));
}

TEST(PowerFailureTest, SyncNeverLosesOnlyASuffixNotYetInATable) {
  ExpectEveryStageHit(RunPowerFailures(WalSync::Mode::kNever, 80, 3));
}

}  // namespace
}  // namespace kvstore
