// A fixed-seed, bounded stress run: random puts, deletes, flushes,
// compactions and lookups (Get and MultiGet) against an exact model.
// Compactions rebuild filters from the merged entries (never resize them).

#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/lookup/lookup.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

struct Version {
  uint64_t seq;
  std::optional<std::string> value;  // nullopt: tombstone.
};

class MiniLsm {
 public:
  void Put(const std::string& k, std::optional<std::string> v) { mem_[k] = {++seq_, std::move(v)}; }

  std::optional<std::string> Get(const std::string& k, bool* error) const {
    *error = false;
    auto it = mem_.find(k);
    if (it != mem_.end()) return it->second.value;
    absl::StatusOr<LookupResult> r = set_.Get(k);
    if (!r.ok()) {
      *error = true;
      return std::nullopt;
    }
    if (r->kind == LookupResult::Kind::kFound) return r->value;
    return std::nullopt;
  }

  // Get through the table set alone (safe beside a writer: the memtable
  // is the writer's).
  absl::StatusOr<LookupResult> GetTables(const std::string& k) const { return set_.Get(k); }

  // MultiGet through the table set for keys not in the memtable.
  std::vector<absl::StatusOr<LookupResult>> MultiGetTables(
      const std::vector<std::string_view>& keys) const {
    return set_.MultiGet(keys);
  }
  bool InMemtable(const std::string& k) const { return mem_.count(k) > 0; }

  // Writes the memtable to a new L0 file; compacts once L0 holds
  // `compact_at` files.
  void Flush(size_t compact_at) {
    if (mem_.empty()) return;
    std::vector<testutil::Entry> entries;
    for (const auto& [k, v] : mem_) {
      entries.push_back(
          {k, v.seq, v.value ? EntryType::kValue : EntryType::kDeletion, v.value.value_or("")});
    }
    mem_.clear();
    VersionEdit edit;
    edit.added.push_back({0, next_file_++, Build(entries)});
    ASSERT_TRUE(set_.Apply(edit).ok());
    if (set_.files()[0].size() >= compact_at) Compact();
  }

  // Merges every L0 and L1 file into new L1 files. L1 is the last level, so
  // tombstones (and all older versions) can go.
  void Compact() {
    std::map<std::string, testutil::Entry> newest;
    VersionEdit edit;
    const std::vector<std::vector<TableFile>> files = set_.files();
    for (int level : {0, 1}) {
      for (const TableFile& f : files[level]) {
        edit.removed.push_back({level, f.file_number});
        auto it = f.table->NewIterator();
        for (it->SeekToFirst(); it->Valid(); it->Next()) {
          const TableEntry e = it->entry();
          auto& slot = newest[std::string(e.user_key)];
          if (slot.key.empty() || slot.seq < e.sequence) {
            slot = {std::string(e.user_key), e.sequence, e.type, std::string(e.value)};
          }
        }
        ASSERT_TRUE(it->status().ok());
      }
    }
    std::vector<testutil::Entry> run;
    for (auto& [k, e] : newest) {
      if (e.type == EntryType::kDeletion) continue;
      run.push_back(std::move(e));
      if (run.size() == 3000) {
        edit.added.push_back({1, next_file_++, Build(run)});
        run.clear();
      }
    }
    if (!run.empty()) edit.added.push_back({1, next_file_++, Build(run)});
    ASSERT_TRUE(set_.Apply(edit).ok());
    ++compactions;
  }

  int compactions = 0;

 private:
  // Every other table has hash indexes in its data blocks (format 3), so
  // the set mixes both formats.
  std::shared_ptr<const Table> Build(const std::vector<testutil::Entry>& entries) const {
    TableOptions options;
    options.data_block_hash_index = next_file_ % 2 == 0;
    auto t = Table::Open(NewMemRandomAccessFile(testutil::BuildTable(entries, options)));
    EXPECT_TRUE(t.ok());
    return std::shared_ptr<const Table>(std::move(*t));
  }

  std::map<std::string, Version> mem_;
  uint64_t seq_ = 0;
  TableSet set_;
  uint64_t next_file_ = 1;
};

TEST(StressTest, RandomOperationsMatchAnExactModel) {
  std::mt19937_64 rng(20261202);
  MiniLsm lsm;
  std::map<std::string, std::string> model;
  const int kKeySpace = 20000;
  size_t checked = 0, wrong = 0;
  for (int op = 0; op < 150000; ++op) {
    const std::string key = testutil::TableKey(rng() % kKeySpace);
    const int what = rng() % 100;
    if (what < 45) {
      const std::string value = "v" + std::to_string(op);
      lsm.Put(key, value);
      model[key] = value;
    } else if (what < 55) {
      lsm.Put(key, std::nullopt);
      model.erase(key);
    } else if (what < 99) {
      bool error;
      const std::optional<std::string> got = lsm.Get(key, &error);
      ASSERT_FALSE(error);
      auto it = model.find(key);
      wrong += it == model.end() ? got.has_value() : (!got || *got != it->second);
      ++checked;
    } else {
      // A batch through MultiGet, for keys the memtable does not shadow.
      std::vector<std::string> keys;
      for (int i = 0; i < 64; ++i) {
        const std::string k = testutil::TableKey(rng() % kKeySpace);
        if (!lsm.InMemtable(k)) keys.push_back(k);
      }
      std::vector<std::string_view> views(keys.begin(), keys.end());
      auto results = lsm.MultiGetTables(views);
      for (size_t i = 0; i < keys.size(); ++i) {
        ASSERT_TRUE(results[i].ok());
        auto it = model.find(keys[i]);
        const bool found = results[i]->kind == LookupResult::Kind::kFound;
        wrong += it == model.end() ? found : (!found || results[i]->value != it->second);
        ++checked;
      }
    }
    // Flushes at random moments (one op in 2500 on average), and
    // compactions after a random number (2 to 5) of L0 files.
    if (rng() % 2500 == 0) lsm.Flush(2 + rng() % 4);
  }
  EXPECT_EQ(wrong, 0u) << "of " << checked << " checked answers";
  EXPECT_GT(lsm.compactions, 5);
}

// Readers look up keys written once and flushed (their value never
// changes, their file does: flushes and compactions move them between
// versions) through Get and MultiGet while the writer puts, deletes,
// flushes and compacts other keys. Run under TSan in CI.
TEST(StressTest, LookupsOfSettledKeysStayCorrectWhileFlushesAndCompactionsRun) {
  MiniLsm lsm;
  const int kSettled = 4000;
  for (int i = 0; i < kSettled; ++i) lsm.Put(testutil::TableKey(2 * i), "settled" + std::to_string(i));
  lsm.Flush(100);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> wrong{0}, errors{0}, lookups{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(t + 1);
      std::vector<std::string> keys;
      std::vector<std::string_view> views;
      while (!stop.load()) {
        keys.clear();
        for (int i = 0; i < 16; ++i) keys.push_back(testutil::TableKey(2 * (rng() % kSettled)));
        // Unsettled keys too: their answers change, but never fail.
        keys.push_back(testutil::TableKey(2 * (rng() % kSettled) + 1));
        views.assign(keys.begin(), keys.end());
        auto results = lsm.MultiGetTables(views);
        for (size_t i = 0; i < keys.size(); ++i) {
          if (!results[i].ok()) {
            ++errors;
            continue;
          }
          if (i + 1 == keys.size()) continue;
          const uint64_t id = std::stoull(keys[i].substr(3)) / 2;
          const std::string want = "settled" + std::to_string(id);
          wrong += results[i]->kind != LookupResult::Kind::kFound || results[i]->value != want;
        }
        const int id = static_cast<int>(rng() % kSettled);
        const absl::StatusOr<LookupResult> got = lsm.GetTables(testutil::TableKey(2 * id));
        if (!got.ok()) {
          ++errors;
        } else {
          wrong += got->kind != LookupResult::Kind::kFound ||
                   got->value != "settled" + std::to_string(id);
        }
        ++lookups;
      }
    });
  }
  std::mt19937_64 rng(7);
  for (int op = 0; op < 20000; ++op) {
    const std::string key = testutil::TableKey(2 * (rng() % kSettled) + 1);
    if (rng() % 4 == 0) {
      lsm.Put(key, std::nullopt);
    } else {
      lsm.Put(key, "v" + std::to_string(op));
    }
    if (op % 1000 == 999) lsm.Flush(3);
  }
  while (lookups.load() < 200) std::this_thread::yield();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_GE(lsm.compactions, 5);
}

}  // namespace
}  // namespace lsmbloom
