// lsmbloom's main path in one program: write three SSTables with a blocked
// Bloom filter, open them, put them in two levels of a TableSet, and look
// keys up with Get and MultiGet; then read the per-level filter counters.
//
// README.md shows the regions between "[START name]" and "[END name]";
// //tests:doc_examples_test fails if the README's copy and this file part.
// The program checks every answer and exits with status 1 on a wrong one.
//
//   bazel test //examples/quickstart:quickstart_test
//   bazel run //examples/quickstart:quickstart_test   (to see its output)
//
// Table files go to a new directory under $TEST_TMPDIR (or /tmp), removed
// at the end.

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"

namespace lsmbloom {
namespace quickstart {

int failures = 0;

// The program's own checks of the answers it gets.
void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "quickstart: WRONG: " << what << "\n";
    ++failures;
  }
}

struct Entry {
  std::string key;
  uint64_t seq;
  EntryType type;
  std::string value;
};

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%04d", i);
  return buf;
}

// [START add_table]
// Writes `entries` (keys ascending, a key's entries newest first) to a table
// file with a 10 bits/key blocked Bloom filter, opens it, adds it to `edit`.
absl::Status AddTable(const std::string& path, int level, uint64_t file_number,
                      const std::vector<Entry>& entries, VersionEdit* edit) {
  BlockedBloomOptions bloom;
  bloom.bits_per_key = 10;
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy = NewBlockedBloomPolicy(bloom);
  if (!policy.ok()) return policy.status();  // InvalidArgument: an option out of range.
  TableOptions options;
  options.filter_policy = *policy;
  options.data_block_hash_index = true;  // Table format 3: faster point lookups.

  absl::StatusOr<std::unique_ptr<WritableFile>> out = NewPosixWritableFile(path);
  if (!out.ok()) return out.status();
  TableBuilder builder(options, std::move(*out));
  for (const Entry& e : entries) {
    absl::Status added = builder.Add(e.key, e.seq, e.type, e.value);
    if (!added.ok()) return added;  // Out of order, say; Finish() would say it too.
  }
  absl::Status finished = builder.Finish();  // Syncs, then renames: never half-written.
  if (!finished.ok()) return finished;

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> in = OpenPosixFile(path, /*mmap=*/true);
  if (!in.ok()) return in.status();
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*in));
  if (!table.ok()) return table.status();  // DataLoss: a damaged footer, index, ...
  // A missing or damaged filter leaves the table correct but unfiltered:
  if (!(*table)->filter_status().ok()) std::cerr << (*table)->filter_status() << "\n";
  edit->added.push_back(TableFile{level, file_number, std::move(*table)});
  return absl::OkStatus();
}
// [END add_table]

absl::Status Run(const std::string& dir) {
  // [START build_levels]
  // Level 1: key0000-key0499 and key0500-key0999 at sequence numbers 1-1000.
  // Level 0: a newer file that deletes key0007 and overwrites key0042.
  std::vector<Entry> low, high;
  for (int i = 0; i < 1000; ++i) {
    (i < 500 ? low : high).push_back({Key(i), uint64_t(i) + 1, EntryType::kValue, "v1"});
  }
  std::vector<Entry> newest = {{"key0007", 1001, EntryType::kDeletion, ""},
                               {"key0042", 1002, EntryType::kValue, "v2"}};

  // A flush or compaction adds (and removes) its files in one atomic edit.
  VersionEdit edit;
  absl::Status s = AddTable(dir + "/1.sst", 1, 1, low, &edit);
  if (s.ok()) s = AddTable(dir + "/2.sst", 1, 2, high, &edit);
  if (s.ok()) s = AddTable(dir + "/3.sst", 0, 3, newest, &edit);
  if (!s.ok()) return s;
  TableSet tables;
  s = tables.Apply(edit);
  if (!s.ok()) return s;  // InvalidArgument: overlapping level-1 files, say.
  // [END build_levels]

  // [START lookups]
  absl::StatusOr<LookupResult> r = tables.Get("key0042");
  if (!r.ok()) return r.status();  // DataLoss: a damaged block, never a wrong answer.
  Check(r->kind == LookupResult::Kind::kFound && r->value == "v2", "key0042 is v2");
  r = tables.Get("key0007");  // Level 0's tombstone hides level 1's value.
  if (!r.ok()) return r.status();
  Check(r->kind == LookupResult::Kind::kDeleted, "key0007 is deleted");

  // A batch: the filters of all its keys' files are probed in one pass.
  std::vector<std::string_view> keys = {"key0001", "key0007", "key0042", "key0999", "key1000"};
  std::vector<absl::StatusOr<LookupResult>> results = tables.MultiGet(keys);
  for (size_t i = 0; i < keys.size(); ++i) {  // results[i] answers keys[i].
    if (!results[i].ok()) return results[i].status();
    if (results[i]->kind == LookupResult::Kind::kFound) {
      std::cout << keys[i] << " = " << results[i]->value << "\n";
    }
  }
  // [END lookups]
  Check(r->sequence == 1001, "key0007's tombstone is from level 0");

  // A loop that keeps one LookupResult allocates nothing per lookup.
  LookupResult result;
  int absent_found = 0;
  for (int i = 0; i < 1000; ++i) {
    absl::Status got = tables.Get(Key(i) + "x", &result);  // Absent, within the files' ranges.
    if (!got.ok()) return got;
    if (result.kind != LookupResult::Kind::kNotFound) ++absent_found;
  }
  Check(absent_found == 0, "no absent key is found");

  using Kind = LookupResult::Kind;
  const Kind expected[] = {Kind::kFound, Kind::kDeleted, Kind::kFound, Kind::kFound,
                           Kind::kNotFound};
  const char* values[] = {"v1", "", "v2", "v1", ""};
  for (size_t i = 0; i < keys.size(); ++i) {
    Check(results[i]->kind == expected[i] && results[i]->value == values[i],
          "MultiGet answers " + std::string(keys[i]));
  }

  // [START stats]
  LookupStats stats = tables.stats();  // Counters since the set was made.
  for (int level = 0; level < kNumLevels; ++level) {
    const LevelStats& l = stats.levels[level];
    if (l.files == 0) continue;
    std::cout << "level " << level << ": " << l.filters_checked << " filter checks, "
              << l.filters_ruled_out << " ruled out, FPR " << l.observed_fpr() << " observed, "
              << l.predicted_fpr_of_checks() << " predicted\n";
  }
  // [END stats]

  // 2 Gets, a MultiGet of 5 keys and 1000 Gets of absent keys.
  Check(stats.lookups == 1007, "1007 lookups counted");
  const LevelStats& l1 = stats.levels[1];
  Check(l1.files == 2 && l1.entries == 1000, "level 1 holds 2 files of 1000 entries");
  Check(l1.bits_per_key >= 9.5, "level 1's filters have about 10 bits/key");
  Check(l1.filters_ruled_out >= 950, "level 1's filters rule out most absent keys");
  Check(stats.false_positives_per_lookup() < 0.05, "few false positives");
  return absl::OkStatus();
}

}  // namespace quickstart
}  // namespace lsmbloom

int main() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/quickstart-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) {
    std::perror("quickstart: mkdtemp");
    return 1;
  }
  const absl::Status status = lsmbloom::quickstart::Run(dir);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (!status.ok()) {
    std::cerr << "quickstart: " << status << "\n";
    return 1;
  }
  if (lsmbloom::quickstart::failures > 0) return 1;
  std::cout << "quickstart: every answer as expected\n";
  return 0;
}
