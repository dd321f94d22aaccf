// Shared by the lookup tests: a model LSM, a TableSet of in-memory tables
// beside the newest entry of each key, to check every answer against.

#ifndef LSMBLOOM_TESTS_LSM_TESTUTIL_H_
#define LSMBLOOM_TESTS_LSM_TESTUTIL_H_

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/lookup/lookup.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace testutil {

// A table of `entries`, in any order (sorted here as a table holds them:
// by key, newest first), opened from memory; null after a test failure if
// it does not open.
inline std::shared_ptr<const Table> OpenTable(std::vector<Entry> entries,
                                              const TableOptions& options = TableOptions()) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.seq > b.seq;
  });
  auto table = Table::Open(NewMemRandomAccessFile(BuildTable(entries, options)));
  EXPECT_TRUE(table.ok()) << table.status();
  if (!table.ok()) return nullptr;
  return std::shared_ptr<const Table>(std::move(*table));
}

// What a lookup of `key` must answer, given the newest entry of each key.
inline LookupResult ExpectedAnswer(const std::map<std::string, Entry>& truth,
                                   const std::string& key) {
  LookupResult r;
  auto it = truth.find(key);
  if (it == truth.end()) return r;
  r.sequence = it->second.seq;
  r.kind = it->second.type == EntryType::kDeletion ? LookupResult::Kind::kDeleted
                                                   : LookupResult::Kind::kFound;
  r.value = it->second.value;
  return r;
}

// A model LSM: files laid out by level, plus the truth for each key.
struct ModelLsm {
  TableSet set;
  std::map<std::string, Entry> truth;  // Newest entry per key.
  uint64_t next_file = 1;

  explicit ModelLsm(const LookupOptions& options = LookupOptions()) : set(options) {}

  // Adds a table of `entries` to `level` and returns it (null after a test
  // failure if it could not).
  std::shared_ptr<const Table> AddFile(int level, std::vector<Entry> entries,
                                       const TableOptions& options = TableOptions()) {
    for (const Entry& e : entries) {
      auto it = truth.find(e.key);
      if (it == truth.end() || it->second.seq < e.seq) truth[e.key] = e;
    }
    std::shared_ptr<const Table> table = OpenTable(std::move(entries), options);
    if (table == nullptr) return nullptr;
    VersionEdit edit;
    edit.added.push_back({level, next_file++, table});
    const absl::Status applied = set.Apply(edit);
    EXPECT_TRUE(applied.ok()) << applied;
    return applied.ok() ? table : nullptr;
  }

  // What a lookup of `key` must answer.
  LookupResult Expected(const std::string& key) const { return ExpectedAnswer(truth, key); }
};

}  // namespace testutil
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_LSM_TESTUTIL_H_
