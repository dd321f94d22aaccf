// Shared by the table, corruption and lookup tests: entry sets with
// versions and tombstones, and an exact model to check answers against.

#ifndef LSMBLOOM_TESTS_TABLE_TESTUTIL_H_
#define LSMBLOOM_TESTS_TABLE_TESTUTIL_H_

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace testutil {

struct Entry {
  std::string key;
  uint64_t seq;
  EntryType type;
  std::string value;
};

inline std::string TableKey(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

// Keys that sort among the TableKey()s of MakeEntries(n) for n up to about
// 100,000 (so the index cannot rule them out) but never equal one.
inline std::string AbsentKey(uint64_t i, uint64_t key_range = 150000) {
  return TableKey(SplitMix64(i) % key_range) + "~absent";
}

// `n` entries in table order: distinct keys (every 3rd), some with 2-3
// versions, every 7th newest version a tombstone, values 0-300 bytes.
inline std::vector<Entry> MakeEntries(size_t n, uint64_t seed) {
  std::vector<Entry> out;
  uint64_t i = 0;
  while (out.size() < n) {
    const std::string key = TableKey(i * 3 + seed % 3);
    const int versions = 1 + static_cast<int>(SplitMix64(i ^ seed) % 3);
    for (int v = 0; v < versions && out.size() < n; ++v) {
      Entry e;
      e.key = key;
      e.seq = 1000 + 10 * (versions - v) + (i % 7);  // Descending per key.
      const bool tombstone = v == 0 && (SplitMix64(i + seed) % 7 == 0);
      e.type = tombstone ? EntryType::kDeletion : EntryType::kValue;
      if (!tombstone) {
        const size_t len = SplitMix64(i * 31 + v) % 301;
        e.value.assign(len, static_cast<char>('a' + (i + v) % 26));
        e.value += std::to_string(i);
      }
      out.push_back(std::move(e));
    }
    ++i;
  }
  return out;
}

inline std::string BuildTable(const std::vector<Entry>& entries, const TableOptions& options) {
  std::string bytes;
  TableBuilder builder(options, NewMemWritableFile(&bytes));
  for (const Entry& e : entries) {
    absl::Status s = builder.Add(e.key, e.seq, e.type, e.value);
    if (!s.ok()) {
      std::fprintf(stderr, "BuildTable: %s\n", std::string(s.message()).c_str());
      std::abort();
    }
  }
  if (!builder.Finish().ok()) std::abort();
  return bytes;
}

// The newest entry for `key` in `entries` (table order), as Get reports it.
inline LookupResult ModelGet(const std::vector<Entry>& entries, const std::string& key) {
  LookupResult r;
  auto it = std::lower_bound(entries.begin(), entries.end(), key,
                             [](const Entry& e, const std::string& k) { return e.key < k; });
  if (it == entries.end() || it->key != key) return r;
  r.sequence = it->seq;
  r.kind =
      it->type == EntryType::kDeletion ? LookupResult::Kind::kDeleted : LookupResult::Kind::kFound;
  if (r.kind == LookupResult::Kind::kFound) r.value = it->value;
  return r;
}

inline bool SameAsModel(const LookupResult& got, const LookupResult& want) {
  return got.kind == want.kind && (got.kind == LookupResult::Kind::kNotFound ||
                                   (got.sequence == want.sequence && got.value == want.value));
}

// Lookups of every distinct key whose answer differs from the model. An
// error counts as wrong too: use this only on uncorrupted tables.
inline size_t CountWrongAnswers(const Table& table, const std::vector<Entry>& entries) {
  size_t wrong = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].key == entries[i - 1].key) continue;
    absl::StatusOr<LookupResult> got = table.Get(entries[i].key);
    wrong += !got.ok() || !SameAsModel(*got, ModelGet(entries, entries[i].key));
  }
  return wrong;
}

}  // namespace testutil
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_TABLE_TESTUTIL_H_
