// Lookups across levels: versions, tombstones, boundaries, batches, threads.

#include "lsmbloom/lookup/lookup.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <random>
#include <thread>

#include "gtest/gtest.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "tests/lsm_testutil.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;
using testutil::OpenTable;
using Kind = LookupResult::Kind;

Entry Put(const std::string& key, uint64_t seq, const std::string& value) {
  return Entry{key, seq, EntryType::kValue, value};
}
Entry Del(const std::string& key, uint64_t seq) {
  return Entry{key, seq, EntryType::kDeletion, ""};
}

using Lsm = testutil::ModelLsm;

// Options with the lookup counters off, as the benchmarks run.
LookupOptions CountersOff() {
  LookupOptions options;
  options.count_stats = false;
  return options;
}

LookupResult Expected(const Entry& e) {
  LookupResult r;
  r.sequence = e.seq;
  r.kind = Kind::kFound;
  r.value = e.value;
  return r;
}

void ExpectAnswer(const TableSet& set, const std::string& key, Kind kind,
                  const std::string& value = "") {
  absl::StatusOr<LookupResult> got = set.Get(key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->kind, kind) << key;
  if (kind == Kind::kFound) {
    EXPECT_EQ(got->value, value) << key;
  }
}

TEST(LookupTest, NewestVersionWinsAcrossOverlappingL0AndLevels) {
  Lsm lsm;
  lsm.AddFile(2, {Put("a", 1, "a-old"), Put("m", 2, "m-old"), Put("z", 3, "z-old")});
  lsm.AddFile(1, {Put("m", 10, "m-mid")});
  lsm.AddFile(0, {Put("a", 20, "a-l0-older"), Put("q", 21, "q")});
  lsm.AddFile(0, {Put("a", 30, "a-newest")});  // Newer file, overlapping.
  ExpectAnswer(lsm.set, "a", Kind::kFound, "a-newest");
  ExpectAnswer(lsm.set, "m", Kind::kFound, "m-mid");
  ExpectAnswer(lsm.set, "z", Kind::kFound, "z-old");
  ExpectAnswer(lsm.set, "q", Kind::kFound, "q");
  ExpectAnswer(lsm.set, "b", Kind::kNotFound);
}

TEST(LookupTest, TombstonesHideOlderValues) {
  Lsm lsm;
  lsm.AddFile(3, {Put("k", 1, "v1"), Put("x", 2, "x")});
  lsm.AddFile(1, {Del("k", 5)});
  ExpectAnswer(lsm.set, "k", Kind::kDeleted);
  lsm.AddFile(0, {Put("k", 9, "v2")});  // Re-put after the delete.
  ExpectAnswer(lsm.set, "k", Kind::kFound, "v2");
  lsm.AddFile(0, {Del("x", 12)});
  ExpectAnswer(lsm.set, "x", Kind::kDeleted);
}

TEST(LookupTest, KeysAtFileBoundariesAndEmptyLevels) {
  Lsm lsm;
  // Level 1 empty; level 2 has three adjacent files.
  lsm.AddFile(2, {Put("b", 1, "b"), Put("d", 1, "d")});
  lsm.AddFile(2, {Put("e", 1, "e"), Put("g", 1, "g")});
  lsm.AddFile(2, {Put("h", 1, "h"), Put("j", 1, "j")});
  for (const char* k : {"b", "d", "e", "g", "h", "j"}) ExpectAnswer(lsm.set, k, Kind::kFound, k);
  for (const char* k : {"a", "c", "dd", "f", "i", "k", ""})
    ExpectAnswer(lsm.set, k, Kind::kNotFound);
}

TEST(LookupTest, BoundsSharingLongPrefixesShortKeysAndZeroBytes) {
  // Candidate files are chosen by the first 8 bytes of keys and bounds, and
  // by the full keys when those are equal: both paths at every boundary.
  Lsm lsm;
  const std::string p = "prefix--";  // 8 bytes shared by the bounds below.
  lsm.AddFile(1, {Put(p + "a", 1, "1a"), Put(p + "c", 1, "1c")});
  lsm.AddFile(1, {Put(p + "d", 1, "1d"), Put(p + "f", 1, "1f")});
  lsm.AddFile(1, {Put("q", 1, "q"), Put(std::string("q\0\0", 3), 1, "q00")});
  lsm.AddFile(0, {Put("a", 2, "0a"), Put(std::string("a\0", 2), 2, "0a0")});
  for (const char* k : {"a", "c", "d", "f"}) {
    ExpectAnswer(lsm.set, p + k, Kind::kFound, std::string("1") + k);
  }
  for (const char* k : {"", "b", "cc", "e", "g"}) ExpectAnswer(lsm.set, p + k, Kind::kNotFound);
  ExpectAnswer(lsm.set, "prefix-", Kind::kNotFound);
  ExpectAnswer(lsm.set, "q", Kind::kFound, "q");
  ExpectAnswer(lsm.set, std::string("q\0\0", 3), Kind::kFound, "q00");
  ExpectAnswer(lsm.set, std::string("q\0", 2), Kind::kNotFound);
  ExpectAnswer(lsm.set, std::string("q\0\0\0", 4), Kind::kNotFound);
  ExpectAnswer(lsm.set, "a", Kind::kFound, "0a");
  ExpectAnswer(lsm.set, std::string("a\0", 2), Kind::kFound, "0a0");
  ExpectAnswer(lsm.set, std::string("a\0\0", 3), Kind::kNotFound);
}

TEST(LookupTest, FilesOutsideTheKeyRangeAreCountedAsSkippedUntilReset) {
  Lsm lsm;
  lsm.AddFile(0, {Put("a", 1, "a"), Put("b", 1, "b")});
  lsm.AddFile(0, {Put("m", 2, "m"), Put("n", 2, "n")});
  lsm.AddFile(0, {Put("x", 3, "x"), Put("y", 3, "y")});
  lsm.AddFile(2, {Put("c", 1, "c"), Put("d", 1, "d")});
  ExpectAnswer(lsm.set, "m", Kind::kFound, "m");  // Two L0 files out of range.
  ExpectAnswer(lsm.set, "zz", Kind::kNotFound);   // All three, and level 2.
  const LookupStats s = lsm.set.stats();
  EXPECT_EQ(s.levels[0].files_range_skipped, 5u);
  EXPECT_EQ(s.levels[2].files_range_skipped, 1u);
  EXPECT_EQ(s.levels[1].files_range_skipped, 0u);  // Empty levels are not counted.
  lsm.set.ResetStats();
  const LookupStats reset = lsm.set.stats();
  EXPECT_EQ(reset.lookups, 0u);
  for (const LevelStats& l : reset.levels) {
    EXPECT_EQ(l.files_range_skipped, 0u);
    EXPECT_EQ(l.filters_checked, 0u);
  }
}

TEST(LookupTest, CountersOffGiveTheSameAnswersAndCountNothing) {
  Lsm lsm(CountersOff());
  lsm.AddFile(0, {Put("a", 1, "a"), Put("m", 1, "m")});
  lsm.AddFile(1, {Put("b", 1, "b"), Del("c", 2)});
  ExpectAnswer(lsm.set, "a", Kind::kFound, "a");
  ExpectAnswer(lsm.set, "b", Kind::kFound, "b");
  ExpectAnswer(lsm.set, "c", Kind::kDeleted);
  ExpectAnswer(lsm.set, "zz", Kind::kNotFound);
  const LookupStats s = lsm.set.stats();
  EXPECT_EQ(s.lookups, 0u);
  EXPECT_EQ(s.levels[0].files, 1u);
  for (const LevelStats& l : s.levels) {
    EXPECT_EQ(l.filters_checked, 0u);
    EXPECT_EQ(l.files_range_skipped, 0u);
  }
}

TEST(LookupTest, OverlappingFilesInOneLevelAreRejected) {
  Lsm lsm;
  lsm.AddFile(1, {Put("a", 1, "1"), Put("f", 1, "1")});
  VersionEdit edit;
  edit.added.push_back({1, 99, OpenTable({Put("c", 2, "2")})});
  const absl::Status s = lsm.set.Apply(edit);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("overlap"), std::string::npos);
  ExpectAnswer(lsm.set, "c", Kind::kNotFound);  // The set did not change.
  VersionEdit bad_remove;
  bad_remove.removed.push_back({1, 12345});
  EXPECT_FALSE(lsm.set.Apply(bad_remove).ok());
  VersionEdit duplicate;  // File number 1 is in level 1 already.
  duplicate.added.push_back({2, 1, OpenTable({Put("x", 3, "3")})});
  EXPECT_NE(lsm.set.Apply(duplicate).message().find("already"), std::string::npos);
}

TEST(LookupTest, UntrustedFilterFileStillAnswersCorrectly) {
  Lsm lsm;
  std::vector<Entry> entries;
  for (int i = 0; i < 2000; ++i) entries.push_back(Put(testutil::TableKey(i), 5, "v"));
  std::string bytes = testutil::BuildTable(entries, TableOptions());
  bytes[bytes.find("LBBF") + 200] ^= 1;  // Corrupt the filter bits.
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok());
  ASSERT_FALSE((*table)->filter_status().ok());
  VersionEdit edit;
  edit.added.push_back({1, 1, std::shared_ptr<const Table>(std::move(*table))});
  ASSERT_TRUE(lsm.set.Apply(edit).ok());
  for (int i = 0; i < 2000; ++i) ExpectAnswer(lsm.set, testutil::TableKey(i), Kind::kFound, "v");
  EXPECT_EQ(lsm.set.stats().levels[1].filters_checked, 0u);
}

// A random LSM: several L0 files, then sorted levels, with overwrites and
// tombstones, checked against the model.
void BuildRandomLsm(Lsm& lsm, int keys, uint64_t seed) {
  std::mt19937_64 rng(seed);
  uint64_t seq = 1;
  // Level 2: 8 files of consecutive ranges.
  for (int f = 0; f < 8; ++f) {
    std::vector<Entry> e;
    for (int i = f * keys / 8; i < (f + 1) * keys / 8; ++i) {
      e.push_back(Put(testutil::TableKey(i * 2), seq++, "l2-" + std::to_string(i)));
    }
    lsm.AddFile(2, e);
  }
  // Level 1: 3 files over parts of the range, some overwrites and deletes.
  for (int f = 0; f < 3; ++f) {
    std::vector<Entry> e;
    const int lo = f * keys / 3, hi = lo + keys / 6;
    for (int i = lo; i < hi; i += 3) {
      e.push_back(rng() % 4 == 0 ? Del(testutil::TableKey(i * 2), seq++)
                                 : Put(testutil::TableKey(i * 2), seq++, "l1-" + std::to_string(i)));
    }
    lsm.AddFile(1, e);
  }
  // Level 0: 4 overlapping files of random keys.
  for (int f = 0; f < 4; ++f) {
    std::map<std::string, Entry> e;
    for (int i = 0; i < keys / 20; ++i) {
      const std::string k = testutil::TableKey((rng() % keys) * 2);
      e[k] = rng() % 5 == 0 ? Del(k, seq++) : Put(k, seq++, "l0-" + std::to_string(f));
    }
    std::vector<Entry> v;
    for (auto& [k, x] : e) v.push_back(x);
    lsm.AddFile(0, v);
  }
}

// MultiGet over `probes` in batches of 777, every answer checked.
void ExpectMultiGetMatchesModel(const Lsm& lsm, const std::vector<std::string>& probes) {
  for (size_t start = 0; start < probes.size(); start += 777) {
    std::vector<std::string_view> batch;
    for (size_t i = start; i < std::min(probes.size(), start + 777); ++i)
      batch.push_back(probes[i]);
    auto results = lsm.set.MultiGet(batch);
    ASSERT_EQ(results.size(), batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      ASSERT_TRUE(results[i].ok());
      ASSERT_TRUE(testutil::SameAsModel(*results[i], lsm.Expected(std::string(batch[i]))))
          << batch[i];
    }
  }
}

TEST(LookupTest, RandomLsmMatchesModelAndMultiGetMatchesGet) {
  Lsm lsm;
  const int keys = 40000;
  BuildRandomLsm(lsm, keys, 1);
  std::vector<std::string> probes;
  for (int i = 0; i < keys * 2 + 10; i += 1)
    probes.push_back(testutil::TableKey(i));  // Odd: absent.
  size_t wrong = 0;
  for (const std::string& k : probes) {
    absl::StatusOr<LookupResult> got = lsm.set.Get(k);
    ASSERT_TRUE(got.ok());
    wrong += !testutil::SameAsModel(*got, lsm.Expected(k));
  }
  EXPECT_EQ(wrong, 0u);
  ExpectMultiGetMatchesModel(lsm, probes);
}

// Without counters, a Get whose filters all said "no" returns without
// walking its candidates: its answer, into a result that held a found
// key's value just before, must be the model's all the same.
TEST(LookupTest, GetWithCountersOffMatchesModelIntoOneReusedResult) {
  Lsm lsm(CountersOff());
  const int keys = 40000;
  BuildRandomLsm(lsm, keys, 2);
  LookupResult result;
  size_t wrong = 0, not_found = 0;
  for (int i = 0; i < keys * 2 + 10; ++i) {
    const std::string k = testutil::TableKey(i);  // Odd: absent.
    ASSERT_TRUE(lsm.set.Get(k, &result).ok());
    wrong += !testutil::SameAsModel(result, lsm.Expected(k));
    wrong += result.kind == Kind::kNotFound && !result.value.empty();  // No stale value.
    not_found += result.kind == Kind::kNotFound;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(not_found, static_cast<size_t>(keys / 2));  // The absent half, at least.
}

// Without counters, MultiGet leaves a key every filter ruled out as it made
// it: the answers must not change.
TEST(LookupTest, MultiGetWithCountersOffMatchesModel) {
  Lsm lsm(CountersOff());
  const int keys = 40000;
  BuildRandomLsm(lsm, keys, 2);
  std::vector<std::string> probes;
  for (int i = 0; i < keys * 2 + 10; ++i) probes.push_back(testutil::TableKey(i));  // Odd: absent.
  ExpectMultiGetMatchesModel(lsm, probes);
  // An empty key whose view has no data at all.
  const std::vector<std::string_view> empty = {std::string_view(), probes[0]};
  const auto results = lsm.set.MultiGet(empty);
  ASSERT_TRUE(results[0].ok());
  EXPECT_EQ(results[0]->kind, Kind::kNotFound);
  ASSERT_TRUE(results[1].ok());
  EXPECT_TRUE(testutil::SameAsModel(*results[1], lsm.Expected(probes[0])));
}

// Past the file count for which a version precomputes every key range's
// candidates (256), lookups search each level instead: a version of 330
// files answers as the model, by Get and by MultiGet.
TEST(LookupTest, VersionsOfManyFilesAnswerAsTheModel) {
  Lsm lsm;
  uint64_t seq = 1;
  for (int f = 0; f < 300; ++f) {  // Level 2: three keys a file.
    std::vector<Entry> e;
    for (int i = 3 * f; i < 3 * f + 3; ++i) e.push_back(Put(testutil::TableKey(2 * i), seq++, "l2"));
    lsm.AddFile(2, e);
  }
  for (int f = 0; f < 25; ++f) {  // Level 1: overwrites and deletes.
    std::vector<Entry> e;
    for (int i = 36 * f; i < 36 * f + 30; i += 5) {
      e.push_back(i % 2 == 0 ? Put(testutil::TableKey(2 * i), seq++, "l1")
                             : Del(testutil::TableKey(2 * i), seq++));
    }
    lsm.AddFile(1, e);
  }
  std::mt19937_64 rng(8);
  for (int f = 0; f < 5; ++f) {  // Level 0: random keys.
    std::map<std::string, Entry> e;
    for (int i = 0; i < 40; ++i) {
      const std::string k = testutil::TableKey(2 * (rng() % 900));
      e[k] = Put(k, seq++, "l0-" + std::to_string(f));
    }
    std::vector<Entry> v;
    for (auto& [k, x] : e) v.push_back(x);
    lsm.AddFile(0, v);
  }
  ASSERT_GT(lsm.next_file - 1, 256u);
  std::vector<std::string> probes;
  for (int i = 0; i < 1810; ++i) probes.push_back(testutil::TableKey(i));
  std::vector<std::string_view> batch(probes.begin(), probes.end());
  auto multi = lsm.set.MultiGet(batch);
  size_t wrong = 0;
  for (size_t i = 0; i < probes.size(); ++i) {
    absl::StatusOr<LookupResult> got = lsm.set.Get(probes[i]);
    ASSERT_TRUE(got.ok() && multi[i].ok());
    wrong += !testutil::SameAsModel(*got, lsm.Expected(probes[i]));
    wrong += !testutil::SameAsModel(*multi[i], lsm.Expected(probes[i]));
  }
  EXPECT_EQ(wrong, 0u);
}

// One LookupResult reused over a random LSM's keys (found, deleted and
// absent, in random order) answers as the model each time, with nothing of
// an earlier answer left in a later one, and keeps its value's bytes.
TEST(LookupTest, GetIntoOneResultAnswersAsModelAndReusesItsValue) {
  Lsm lsm;
  const int keys = 20000;
  BuildRandomLsm(lsm, keys, 2);
  std::vector<std::string> probes;
  for (int i = 0; i < keys * 2 + 10; ++i) probes.push_back(testutil::TableKey(i));
  std::shuffle(probes.begin(), probes.end(), std::mt19937_64(5));
  LookupResult result;
  result.value.reserve(64);  // Longer than any value here.
  const char* const bytes = result.value.data();
  size_t wrong = 0, stale = 0;
  for (const std::string& k : probes) {
    ASSERT_TRUE(lsm.set.Get(k, &result).ok()) << k;
    wrong += !testutil::SameAsModel(result, lsm.Expected(k));
    stale += result.kind == Kind::kNotFound && (!result.value.empty() || result.sequence != 0);
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(stale, 0u);
  EXPECT_EQ(result.value.data(), bytes);  // Never reallocated.
}

// MultiGet locates and prefetches data blocks from bytes no checksum has
// vouched for yet: whatever a flipped byte does to them, a batch answers
// exactly what the same Gets answer, errors included, and never wrongly.
TEST(LookupTest, MultiGetOverCorruptTablesAnswersAsGetAndNeverWrongly) {
  std::vector<Entry> entries;
  for (int i = 0; i < 3000; ++i) {
    entries.push_back(Put(testutil::TableKey(i * 2), i + 1, "v" + std::to_string(i)));
  }
  const std::string good = testutil::BuildTable(entries, TableOptions());
  std::vector<std::string> probes;
  for (int i = 0; i < 6000; ++i) probes.push_back(testutil::TableKey(i));  // Odd: absent.
  const std::vector<std::string_view> views(probes.begin(), probes.end());
  std::mt19937_64 rng(17);
  size_t opened = 0, errors = 0;
  for (int flip = 0; flip < 150; ++flip) {
    std::string bad = good;
    // Mostly data blocks (the file's first 90%), where prefetching reads.
    bad[rng() % (good.size() * 9 / 10)] ^= static_cast<char>(1 << (rng() % 8));
    auto table = Table::Open(NewMemRandomAccessFile(bad));
    if (!table.ok()) continue;
    ++opened;
    TableSet set;
    VersionEdit edit;
    edit.added.push_back({1, 1, std::shared_ptr<const Table>(std::move(*table))});
    ASSERT_TRUE(set.Apply(edit).ok());
    const auto batch = set.MultiGet(views);
    for (size_t i = 0; i < probes.size(); ++i) {
      const absl::StatusOr<LookupResult> one = set.Get(probes[i]);
      ASSERT_EQ(batch[i].ok(), one.ok()) << probes[i] << " flip " << flip;
      if (!one.ok()) {
        EXPECT_EQ(batch[i].status().code(), absl::StatusCode::kDataLoss);
        // The error names the file as well as the block's offset.
        EXPECT_EQ(one.status().message().rfind("level 1 file 1: data block at offset ", 0), 0u)
            << one.status();
        EXPECT_EQ(batch[i].status().message().rfind("level 1 file 1: data block at offset ", 0), 0u)
            << batch[i].status();
        ++errors;
        continue;
      }
      const LookupResult want = i % 2 == 0 ? Expected(entries[i / 2]) : LookupResult();
      ASSERT_TRUE(testutil::SameAsModel(*batch[i], want)) << probes[i] << " flip " << flip;
      ASSERT_TRUE(testutil::SameAsModel(*one, want)) << probes[i] << " flip " << flip;
    }
  }
  EXPECT_GT(opened, 100u);
  EXPECT_GT(errors, 0u);  // Some flips must have hit data blocks.
}

TEST(LookupTest, ATableReplacedByAnotherValidTableIsRefusedWhereItIsAdded) {
  // Two generations of one file: the older is a valid table, and read in
  // place of the newer it would answer with stale values and resurrect
  // deleted keys.
  const std::shared_ptr<const Table> older = OpenTable({Put("k", 1, "old"), Put("x", 2, "x")});
  const std::shared_ptr<const Table> newer = OpenTable({Put("k", 3, "new"), Del("x", 4)});
  ASSERT_NE(older->unique_id(), newer->unique_id());

  TableSet set;
  VersionEdit swapped;
  swapped.added.push_back({2, 7, older, newer->unique_id(), newer->file_size()});
  const absl::Status refused = set.Apply(swapped);
  EXPECT_EQ(refused.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.message().find("level 2 file 7"), std::string_view::npos) << refused;
  EXPECT_NE(refused.message().find("unique id"), std::string_view::npos) << refused;
  EXPECT_TRUE(set.files()[2].empty()) << "a refused edit changes nothing";

  // Same id but another size (the file was cut or grew): refused too.
  VersionEdit resized;
  resized.added.push_back({2, 7, newer, newer->unique_id(), newer->file_size() + 1});
  const absl::Status size_refused = set.Apply(resized);
  EXPECT_EQ(size_refused.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(size_refused.message().find("bytes, expected"), std::string_view::npos)
      << size_refused;

  // The table the caller recorded is accepted, and 0 checks nothing.
  VersionEdit right;
  right.added.push_back({2, 7, newer, newer->unique_id(), newer->file_size()});
  right.added.push_back({3, 8, older});
  ASSERT_TRUE(set.Apply(right).ok());
  ExpectAnswer(set, "k", Kind::kFound, "new");
  ExpectAnswer(set, "x", Kind::kDeleted);
}

TEST(LookupTest, MultiGetCountsExactlyWhatTheSameGetsCount) {
  Lsm lsm;
  const int keys = 20000;
  BuildRandomLsm(lsm, keys, 2);
  std::vector<std::string> probes;
  for (int i = 0; i < keys * 2 + 10; ++i) probes.push_back(testutil::TableKey(i));
  probes.push_back("");          // Below every file.
  probes.push_back("\xff\xff");  // Above every file.
  for (const std::string& k : probes) ASSERT_TRUE(lsm.set.Get(k).ok());
  const LookupStats by_get = lsm.set.stats();
  lsm.set.ResetStats();
  const std::vector<std::string_view> views(probes.begin(), probes.end());
  for (const auto& r : lsm.set.MultiGet(views)) ASSERT_TRUE(r.ok());
  const LookupStats by_multiget = lsm.set.stats();
  EXPECT_EQ(by_multiget.lookups, by_get.lookups);
  for (int l = 0; l < kNumLevels; ++l) {
    const LevelStats& a = by_get.levels[l];
    const LevelStats& b = by_multiget.levels[l];
    EXPECT_EQ(b.filters_checked, a.filters_checked) << "level " << l;
    EXPECT_EQ(b.filters_ruled_out, a.filters_ruled_out) << "level " << l;
    EXPECT_EQ(b.filters_positive, a.filters_positive) << "level " << l;
    EXPECT_EQ(b.filters_true_positive, a.filters_true_positive) << "level " << l;
    EXPECT_EQ(b.data_block_reads, a.data_block_reads) << "level " << l;
    EXPECT_EQ(b.files_range_skipped, a.files_range_skipped) << "level " << l;
    // Equal but for the rounding of each flush (per Get, per batch) to 2^-32.
    EXPECT_NEAR(b.expected_false_positives, a.expected_false_positives, 1e-4) << "level " << l;
  }
  EXPECT_GT(by_get.levels[0].filters_ruled_out, 0u);
  EXPECT_GT(by_get.levels[0].expected_false_positives, 0);
}

TEST(LookupTest, PredictionOfTheChecksWeighsEachFileByHowOftenLookupsConsultedIt) {
  // Level 1: a large file, and a three-key file above it whose filter
  // predicts almost no false positives. Lookups only ever consult the
  // large one, so the mean over the level's files understates what they
  // should see; the prediction of the checks does not.
  Lsm lsm;
  std::vector<Entry> large, tiny;
  for (int i = 0; i < 30000; ++i) large.push_back(Put(testutil::TableKey(2 * i), 1, "v"));
  for (int i = 0; i < 3; ++i) tiny.push_back(Put(testutil::TableKey(100000 + i), 1, "v"));
  lsm.AddFile(1, large);
  lsm.AddFile(1, tiny);
  const double large_fpr = lsm.set.files()[1][0].table->whole_key_filter()->predicted_fpr();
  ASSERT_GT(large_fpr, 0.005);

  lsm.set.ResetStats();
  for (int i = 0; i < 29999; ++i) ASSERT_TRUE(lsm.set.Get(testutil::TableKey(2 * i + 1)).ok());
  LevelStats l = lsm.set.stats().levels[1];
  EXPECT_EQ(l.negative_checks(), 29999u);
  EXPECT_NEAR(l.predicted_fpr_of_checks(), large_fpr, 1e-9);
  EXPECT_LT(l.predicted_fpr, 0.75 * large_fpr);  // The mean of the two files.
  EXPECT_NEAR(static_cast<double>(l.false_positives()), l.expected_false_positives,
              6 * std::sqrt(l.expected_false_positives));
  // Per lookup, over the levels: only level 1 has files here.
  EXPECT_NEAR(lsm.set.stats().expected_false_positives_per_lookup(), large_fpr, 1e-9);

  // Keys the file has are no trial of its false-positive rate.
  lsm.set.ResetStats();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(lsm.set.Get(testutil::TableKey(2 * i)).ok());
  l = lsm.set.stats().levels[1];
  EXPECT_EQ(l.filters_checked, 1000u);
  EXPECT_EQ(l.negative_checks(), 0u);
  EXPECT_NEAR(l.expected_false_positives, 0, 1e-6);
  // With nothing to weigh, the prediction is the level's mean.
  EXPECT_GT(l.predicted_fpr, 0);
  EXPECT_EQ(l.predicted_fpr_of_checks(), l.predicted_fpr);
}

TEST(LookupTest, CountersShowFiltersSkippingFilesAtAboutThePredictedRate) {
  Lsm lsm;
  BuildRandomLsm(lsm, 40000, 2);
  lsm.set.ResetStats();
  for (int i = 0; i < 40000; ++i) ASSERT_TRUE(lsm.set.Get(testutil::TableKey(i * 2 + 1)).ok());
  const LookupStats s = lsm.set.stats();
  EXPECT_EQ(s.lookups, 40000u);
  for (int level : {0, 1, 2}) {
    const LevelStats& l = s.levels[level];
    EXPECT_GT(l.files, 0u);
    EXPECT_GT(l.filters_checked, 0u) << level;
    EXPECT_EQ(l.filters_true_positive, 0u);  // Every probe key is absent.
    EXPECT_EQ(l.data_block_reads, l.filters_positive) << level;
    // Within 6 sigma of the prediction.
    const double expect = l.predicted_fpr * l.filters_checked;
    EXPECT_NEAR(static_cast<double>(l.filters_positive), expect, 6 * std::sqrt(expect) + 2)
        << "level " << level;
    EXPECT_GT(l.filter_bytes, 0u);
  }
  EXPECT_EQ(s.total_filter_bytes,
            s.levels[0].filter_bytes + s.levels[1].filter_bytes + s.levels[2].filter_bytes);
}

TableOptions WithBitsPerKey(double bits) {
  BlockedBloomOptions filter;
  filter.bits_per_key = bits;
  TableOptions options;
  options.filter_policy = *NewBlockedBloomPolicy(filter);
  return options;
}

TEST(LookupTest, StatsShowEachLevelsBitsPerKeyAndFalsePositiveReadsAsPredicted) {
  Lsm lsm;
  std::vector<Entry> l0a, l0b, l1, l2;
  for (int i = 0; i < 60000; ++i) {
    const std::string key = testutil::TableKey(2 * i);
    l2.push_back(Put(key, 1, "v"));
    if (i % 3 == 0) l1.push_back(Put(key, 2, "v"));
    if (i % 12 == 0 || i == 59999) l0a.push_back(Put(key, 3, "v"));
    if (i % 12 == 6 || i == 0) l0b.push_back(Put(key, 4, "v"));
  }
  lsm.AddFile(2, l2, WithBitsPerKey(12));
  lsm.AddFile(1, l1, WithBitsPerKey(4));
  lsm.AddFile(0, l0a, WithBitsPerKey(16));
  lsm.AddFile(0, l0b, WithBitsPerKey(16));
  lsm.set.ResetStats();
  for (int i = 0; i < 60000; ++i) ASSERT_TRUE(lsm.set.Get(testutil::TableKey(2 * i + 1)).ok());
  const LookupStats s = lsm.set.stats();
  // Filters round up to whole 64-byte blocks: a little above what was asked.
  EXPECT_NEAR(s.levels[0].bits_per_key, 16, 0.2);
  EXPECT_NEAR(s.levels[1].bits_per_key, 4, 0.05);
  EXPECT_NEAR(s.levels[2].bits_per_key, 12, 0.05);
  EXPECT_EQ(s.levels[2].entries, 60000u);
  // Every key is absent and in every file's range: all filters are checked.
  const double predicted = s.PredictedFalsePositiveReads();
  EXPECT_NEAR(predicted,
              2 * s.levels[0].predicted_fpr + s.levels[1].predicted_fpr + s.levels[2].predicted_fpr,
              1e-12);
  const double expected_count = predicted * 60000;
  EXPECT_NEAR(s.false_positives_per_lookup() * 60000, expected_count,
              6 * std::sqrt(expected_count));
  // The shape as the budget sees it: level 0's files each count.
  const std::vector<LevelFilterShape> shapes = FilterShapesOf(s);
  ASSERT_EQ(shapes.size(), static_cast<size_t>(kNumLevels));
  EXPECT_EQ(shapes[0].checks, 2);
  EXPECT_EQ(shapes[1].checks, 1);
  EXPECT_EQ(shapes[1].num_keys, 20000u);
  EXPECT_EQ(shapes[3].checks, 0);
}

TEST(LookupTest, FiltersOffAndLastLevelSkipGiveTheSameAnswers) {
  LookupOptions off;
  off.use_filters = false;
  LookupOptions hits;
  hits.skip_last_level_filters = true;
  Lsm a, b(off), c(hits);
  BuildRandomLsm(a, 10000, 3);
  BuildRandomLsm(b, 10000, 3);
  BuildRandomLsm(c, 10000, 3);
  for (int i = 0; i < 20000; ++i) {
    const std::string k = testutil::TableKey(i);
    auto x = a.set.Get(k), y = b.set.Get(k), z = c.set.Get(k);
    ASSERT_TRUE(x.ok() && y.ok() && z.ok());
    ASSERT_TRUE(testutil::SameAsModel(*y, *x) && testutil::SameAsModel(*z, *x)) << k;
  }
  EXPECT_EQ(b.set.stats().levels[2].filters_checked, 0u);
  EXPECT_EQ(c.set.stats().levels[2].filters_checked, 0u);
  EXPECT_GT(c.set.stats().levels[1].filters_checked, 0u);
}

TEST(LookupTest, ConcurrentReadersWhileFilesAreSwapped) {
  // Level 1 alternates between one file holding keys [0, n) and two files
  // holding the same entries split in half: a "compaction" that changes
  // files but never answers. Readers must always see every key.
  const int n = 4000;
  std::vector<Entry> all, lo, hi;
  for (int i = 0; i < n; ++i) {
    Entry e = Put(testutil::TableKey(i * 2), 7, "v" + std::to_string(i));
    all.push_back(e);
    (i < n / 2 ? lo : hi).push_back(e);
  }
  TableSet set;
  VersionEdit init;
  init.added.push_back({1, 1, OpenTable(all)});
  ASSERT_TRUE(set.Apply(init).ok());
  init = VersionEdit();  // The set holds the only reference now.
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> wrong{0}, lookups{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      while (!stop.load()) {
        const int i = rng() % n;
        auto got = set.Get(testutil::TableKey(i * 2));
        if (!got.ok() || got->kind != Kind::kFound || got->value != "v" + std::to_string(i)) {
          ++wrong;
        }
        auto absent = set.Get(testutil::TableKey(i * 2 + 1));
        if (!absent.ok() || absent->kind != Kind::kNotFound) ++wrong;
        lookups += 2;
      }
    });
  }
  uint64_t file = 2;
  bool split = false;
  std::weak_ptr<const Table> released;
  // Failures are asserted only after the readers are joined: an ASSERT here
  // would return with joinable threads and abort the whole test binary.
  int apply_failures = 0;
  absl::Status first_apply_error;
  for (int round = 0; round < 200; ++round) {
    VersionEdit edit;
    if (!split) {
      edit.removed.push_back({1, file - 1});
      edit.added.push_back({1, file, OpenTable(lo)});
      edit.added.push_back({1, file + 1, OpenTable(hi)});
      file += 2;
    } else {
      edit.removed.push_back({1, file - 2});
      edit.removed.push_back({1, file - 1});
      edit.added.push_back({1, file++, OpenTable(all)});
    }
    if (round == 0) released = set.files()[1][0].table;
    const absl::Status s = set.Apply(edit);
    if (!s.ok() && apply_failures++ == 0) first_apply_error = s;
    split = !split;
  }
  stop = true;
  for (auto& r : readers) r.join();
  EXPECT_EQ(apply_failures, 0) << first_apply_error;
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(lookups.load(), 0u);
  // The first table was removed 200 versions ago and no reader holds it.
  EXPECT_TRUE(released.expired());
}

TEST(LookupTest, ConcurrentGetAndMultiGetWhileL0AndLevelsChange) {
  // Edits change files but never answers: level 2 holds a stale older value
  // for every key, level 1 the current one (in one file, or the same entries
  // split in two), and each L0 file repeats current values for a window of
  // keys. Whatever version a reader sees, a present key has exactly "v<i>"
  // (a lookup that missed level 1 would return the stale value) and an
  // absent key is not found.
  const int n = 3000;
  auto present = [](int i) { return testutil::TableKey(i * 2); };
  auto absent = [](int i) { return testutil::TableKey(i * 2 + 1); };  // Between present keys.
  auto value = [](int i) { return "v" + std::to_string(i); };
  std::vector<Entry> stale, all, lo, hi;
  for (int i = 0; i < n; ++i) {
    stale.push_back(Put(present(i), 1, "stale" + std::to_string(i)));
    Entry e = Put(present(i), 7, value(i));
    all.push_back(e);
    (i < n / 2 ? lo : hi).push_back(e);
  }
  // Current values of keys [first, first + n/4), newer than level 1.
  auto l0_window = [&](int first, uint64_t seq) {
    std::vector<Entry> e;
    for (int i = first; i < std::min(n, first + n / 4); ++i)
      e.push_back(Put(present(i), seq, value(i)));
    return e;
  };

  TableSet set;
  uint64_t next_file = 1;
  std::vector<uint64_t> level1;  // Its file numbers: one file, or lo and hi.
  std::deque<uint64_t> l0;       // Oldest first.
  // Weak references only: the writer must not keep any table alive itself.
  std::map<uint64_t, std::weak_ptr<const Table>> tables;  // By file number.
  std::vector<std::weak_ptr<const Table>> removed;
  auto add = [&](VersionEdit& edit, int level, std::vector<Entry> entries) {
    std::shared_ptr<const Table> table = OpenTable(std::move(entries));
    tables[next_file] = table;
    edit.added.push_back({level, next_file, std::move(table)});
    return next_file++;
  };
  {
    VersionEdit init;  // Scoped: the set must hold the only references.
    add(init, 2, stale);
    level1 = {add(init, 1, all)};
    l0.push_back(add(init, 0, l0_window(0, 100)));
    ASSERT_TRUE(set.Apply(init).ok());
  }

  // Thread 0 uses Get, threads 1 and 2 MultiGet, on random batches of
  // present and absent keys (duplicates allowed, any order).
  std::atomic<bool> stop{false};
  std::atomic<int> readers_started{0};
  std::atomic<uint64_t> get_wrong{0}, gets{0}, multiget_wrong{0}, multiget_keys{0};
  auto right = [&](const absl::StatusOr<LookupResult>& got, int i, bool is_present) {
    if (!got.ok()) return false;
    return is_present ? got->kind == Kind::kFound && got->value == value(i)
                      : got->kind == Kind::kNotFound;
  };
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      std::vector<std::string> keys;
      std::vector<std::pair<int, bool>> truth;  // (i, present) per key.
      bool counted_start = false;
      while (!stop.load()) {
        keys.clear();
        truth.clear();
        const size_t batch = 1 + rng() % 64;
        for (size_t j = 0; j < batch; ++j) {
          const int i = static_cast<int>(rng() % n);
          const bool is_present = rng() % 2 == 0;
          keys.push_back(is_present ? present(i) : absent(i));
          truth.push_back({i, is_present});
        }
        if (t == 0) {
          for (size_t j = 0; j < batch; ++j) {
            if (!right(set.Get(keys[j]), truth[j].first, truth[j].second)) ++get_wrong;
          }
          gets += batch;
        } else {
          const std::vector<std::string_view> views(keys.begin(), keys.end());
          const auto results = set.MultiGet(views);
          if (results.size() != batch) {
            multiget_wrong += batch;
          } else {
            for (size_t j = 0; j < batch; ++j) {
              if (!right(results[j], truth[j].first, truth[j].second)) ++multiget_wrong;
            }
          }
          multiget_keys += batch;
        }
        if (!counted_start) {
          counted_start = true;
          ++readers_started;
        }
      }
    });
  }
  // Edits start only once every reader is running, so they do overlap.
  while (readers_started.load() < 3) std::this_thread::yield();

  // Cycles of: add an L0 file, split or merge level 1, remove the oldest L0
  // file (so L0 holds one or two overlapping files). Failures are asserted
  // after the join: an ASSERT here would leave joinable threads behind.
  std::mt19937_64 rng(7);
  int apply_failures = 0;
  absl::Status first_apply_error;
  std::shared_ptr<const Table> held;  // Stands in for a reader mid-lookup.
  std::weak_ptr<const Table> held_weak;
  for (int round = 0; round < 150; ++round) {
    VersionEdit edit;
    std::vector<uint64_t> new_level1;
    switch (round % 3) {
      case 0:
        l0.push_back(add(edit, 0, l0_window(static_cast<int>(rng() % n), 100 + round)));
        break;
      case 1:
        for (uint64_t f : level1) edit.removed.push_back({1, f});
        if (level1.size() == 1) {
          new_level1 = {add(edit, 1, lo), add(edit, 1, hi)};
        } else {
          new_level1 = {add(edit, 1, all)};
        }
        if (round == 1) {
          held = tables[level1[0]].lock();
          held_weak = held;
        }
        break;
      case 2:
        edit.removed.push_back({0, l0.front()});
        break;
    }
    const absl::Status s = set.Apply(edit);
    if (!s.ok()) {
      if (apply_failures++ == 0) first_apply_error = s;
      continue;
    }
    for (const VersionEdit::Removed& r : edit.removed) removed.push_back(tables[r.file_number]);
    if (round % 3 == 1) level1 = new_level1;
    if (round % 3 == 2) l0.pop_front();
    if (round == 1) {
      // Out of the set, yet alive and answering while someone holds it.
      {
        const std::vector<std::vector<TableFile>> files = set.files();  // Scoped copy.
        for (const TableFile& f : files[1]) EXPECT_NE(f.table, held);
      }
      EXPECT_FALSE(held_weak.expired());
      for (int i : {0, n / 2, n - 1}) {
        auto got = held->Get(present(i));
        EXPECT_TRUE(got.ok() && got->kind == Kind::kFound && got->value == value(i)) << i;
        auto miss = held->Get(absent(i));
        EXPECT_TRUE(miss.ok() && miss->kind == Kind::kNotFound) << i;
      }
    }
  }
  stop = true;
  for (auto& r : readers) r.join();
  EXPECT_EQ(apply_failures, 0) << first_apply_error;
  EXPECT_EQ(get_wrong.load(), 0u);
  EXPECT_EQ(multiget_wrong.load(), 0u);
  EXPECT_GT(gets.load(), 0u);
  EXPECT_GT(multiget_keys.load(), 0u);

  // No lookup is in flight now, so every removed table has been freed,
  // except the one still held here until it is let go.
  EXPECT_EQ(removed.size(), 125u);  // 50 L0 files, 25 merged and 50 split level-1 files.
  size_t still_alive = 0;
  for (const auto& w : removed) still_alive += !w.expired();
  EXPECT_EQ(still_alive, 1u);
  EXPECT_FALSE(held_weak.expired());
  held.reset();
  EXPECT_TRUE(held_weak.expired());

  // And the final version still answers every key.
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(right(set.Get(present(i)), i, true)) << i;
    ASSERT_TRUE(right(set.Get(absent(i)), i, false)) << i;
  }
}

}  // namespace
}  // namespace lsmbloom
