// The store against an exact model, across flushes, compactions and
// reopens; tombstones; leftovers; errors.

#include "store.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;
using lsmbloom::EntryType;
using lsmbloom::TableFile;

struct Entry {
  std::string key;
  uint64_t sequence;
  EntryType type;
  std::string value;
};

using testing::Key;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir(); }

  // Small everything, so a few thousand writes reach several levels.
  static StoreOptions SmallOptions() {
    StoreOptions options;
    options.wal_sync.mode = WalSync::Mode::kNever;  // Thousands of writes.
    options.memtable_max_bytes = 250 * 103;         // 250 entries of k%05d and "v".
    options.target_file_size = 8 << 10;
    options.level1_max_bytes = 24 << 10;
    options.level_size_multiplier = 3;
    options.table_options.block_size = 1024;
    return options;
  }

  // Nothing happens unless the test asks for it.
  static StoreOptions ManualOptions() {
    StoreOptions options;
    options.wal_sync.mode = WalSync::Mode::kNever;
    options.memtable_max_bytes = size_t{1} << 30;
    options.l0_compaction_trigger = 1000;
    options.level1_max_bytes = uint64_t{1} << 40;
    return options;
  }

  std::unique_ptr<Store> OpenStore(const StoreOptions& options) {
    return testing::OpenStore(dir_, options);
  }

  // The table files in the directory, by number.
  std::set<uint64_t> FilesOnDisk() const {
    std::set<uint64_t> numbers;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() == ".sst") numbers.insert(std::stoull(name));
    }
    return numbers;
  }

  static std::set<uint64_t> LiveFiles(const Store& store) {
    std::set<uint64_t> numbers;
    for (const auto& level : store.files()) {
      for (const TableFile& f : level) numbers.insert(f.file_number);
    }
    return numbers;
  }

  void WriteFile(const std::string& name, const std::string& contents) const {
    std::ofstream(fs::path(dir_) / name, std::ios::binary) << contents;
  }

  std::string dir_;
};

std::optional<std::string> GetOrDie(const Store& store, const std::string& key) {
  absl::StatusOr<std::optional<std::string>> value = store.Get(key);
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *value : std::nullopt;
}

void ExpectMatchesModel(const Store& store, const std::map<std::string, std::string>& model,
                        int num_keys) {
  for (int i = 0; i < num_keys + 50; ++i) {  // The last 50 were never written.
    const std::string key = Key(i);
    auto it = model.find(key);
    const std::optional<std::string> got = GetOrDie(store, key);
    if (it == model.end()) {
      EXPECT_FALSE(got.has_value()) << key << " should be absent";
    } else {
      EXPECT_EQ(got, it->second) << key;
    }
  }
}

std::vector<Entry> EntriesOf(const std::vector<TableFile>& files) {
  std::vector<Entry> entries;
  for (const TableFile& f : files) {
    auto it = f.table->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const lsmbloom::TableEntry e = it->entry();
      entries.push_back({std::string(e.user_key), e.sequence, e.type, std::string(e.value)});
    }
    EXPECT_TRUE(it->status().ok()) << it->status();
  }
  return entries;
}

const Entry* FindEntry(const std::vector<Entry>& entries, const std::string& key) {
  for (const Entry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

uint64_t LevelBytes(const std::vector<TableFile>& files) {
  uint64_t bytes = 0;
  for (const TableFile& f : files) bytes += f.table->file_size();
  return bytes;
}

TEST_F(StoreTest, RandomOperationsMatchModelAcrossFlushesCompactionsAndReopens) {
  const StoreOptions options = SmallOptions();
  constexpr int kKeys = 4000;
  constexpr int kOps = 30000;
  std::mt19937_64 rng(20240601);
  std::map<std::string, std::string> model;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  int deepest = 0;
  for (int op = 1; op <= kOps; ++op) {
    const std::string key = Key(static_cast<int>(rng() % kKeys));
    const int what = static_cast<int>(rng() % 100);
    if (what < 55) {
      std::string value(rng() % 120, static_cast<char>('a' + rng() % 26));
      value += std::to_string(op);
      ASSERT_TRUE(store->Put(key, value).ok());
      model[key] = value;
    } else if (what < 75) {
      ASSERT_TRUE(store->Delete(key).ok());
      model.erase(key);
    } else {
      auto it = model.find(key);
      const std::optional<std::string> got = GetOrDie(*store, key);
      if (it == model.end()) {
        ASSERT_FALSE(got.has_value()) << key << " at op " << op;
      } else {
        ASSERT_EQ(got, it->second) << key << " at op " << op;
      }
    }
    if (op % 7500 == 0) {
      ExpectMatchesModel(*store, model, kKeys);
      const auto levels = store->files();
      for (int level = 0; level < lsmbloom::kNumLevels; ++level) {
        if (!levels[level].empty()) deepest = std::max(deepest, level);
      }
      // Every budgeted level is back within its budget after each write.
      uint64_t budget = options.level1_max_bytes;
      for (int level = 1; level < lsmbloom::kNumLevels - 1; ++level) {
        EXPECT_LE(LevelBytes(levels[level]), budget) << "level " << level;
        budget *= options.level_size_multiplier;
      }
      EXPECT_LT(levels[0].size(), static_cast<size_t>(options.l0_compaction_trigger));
      ASSERT_TRUE(store->Close().ok());
      store = OpenStore(options);
      ASSERT_NE(store, nullptr);
      ExpectMatchesModel(*store, model, kKeys);
      EXPECT_EQ(FilesOnDisk(), LiveFiles(*store)) << "compaction leaked or lost files";
    }
  }
  EXPECT_GE(deepest, 3) << "size budgets never pushed data past level 2";
}

// Tables read with direct reads through a small block cache, while
// compactions replace them: every answer as the model's, before and after
// a reopen (a cache that served a removed table's block would show here).
TEST_F(StoreTest, DirectReadsThroughABlockCacheMatchTheModelAcrossCompactions) {
  StoreOptions options = SmallOptions();
  options.direct_reads = true;
  options.block_cache = *lsmbloom::BlockCache::Create(lsmbloom::BlockCacheOptions{32 << 10, 1});
  {
    std::filesystem::create_directories(dir_);
    const std::string probe = dir_ + "/direct_probe";
    std::ofstream(probe) << std::string(8192, 'x');
    absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> f =
        lsmbloom::OpenPosixFile(probe, lsmbloom::FileAccess::kDirect);
    std::remove(probe.c_str());
    if (!f.ok()) GTEST_SKIP() << "direct reads unavailable here: " << f.status();
  }
  constexpr int kKeys = 2000;
  std::mt19937_64 rng(20261206);
  std::map<std::string, std::string> model;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  for (int op = 1; op <= 12000; ++op) {
    const std::string key = Key(static_cast<int>(rng() % kKeys));
    if (rng() % 4 != 0) {
      const std::string value = std::string(rng() % 100, 'v') + std::to_string(op);
      ASSERT_TRUE(store->Put(key, value).ok());
      model[key] = value;
    } else {
      ASSERT_TRUE(store->Delete(key).ok());
      model.erase(key);
    }
    if (op % 3000 == 0) ExpectMatchesModel(*store, model, kKeys);
  }
  ASSERT_TRUE(store->Close().ok());
  store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  ExpectMatchesModel(*store, model, kKeys);
  const lsmbloom::BlockCacheStats cache = options.block_cache->stats();
  EXPECT_GT(cache.hits, 0u);
  EXPECT_LE(cache.usage_bytes, cache.capacity_bytes);
}

TEST_F(StoreTest, ReopenKeepsDataAndContinuesSequenceNumbers) {
  const StoreOptions options = ManualOptions();
  {
    std::unique_ptr<Store> store = OpenStore(options);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Put("a", "1").ok());
    ASSERT_TRUE(store->Put("b", "2").ok());
    ASSERT_TRUE(store->Delete("b").ok());
    ASSERT_TRUE(store->Flush().ok());
    ASSERT_TRUE(store->Put("c", "3").ok());  // Only in the memtable: Close flushes it.
    EXPECT_EQ(store->last_sequence(), 4u);
    ASSERT_TRUE(store->Close().ok());
  }
  {
    std::unique_ptr<Store> store = OpenStore(options);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->last_sequence(), 4u);
    EXPECT_EQ(GetOrDie(*store, "a"), "1");
    EXPECT_EQ(GetOrDie(*store, "b"), std::nullopt);
    EXPECT_EQ(GetOrDie(*store, "c"), "3");
    // Compaction picks the newest version by sequence number: this is
    // right only if the reopened store did not reuse old numbers.
    ASSERT_TRUE(store->Put("a", "new").ok());
    ASSERT_TRUE(store->Flush().ok());
    ASSERT_TRUE(store->CompactLevel(0).ok());
    EXPECT_TRUE(store->files()[0].empty());
    EXPECT_EQ(GetOrDie(*store, "a"), "new");
    ASSERT_TRUE(store->Put("b", "back").ok());
    ASSERT_TRUE(store->Close().ok());
  }
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->last_sequence(), 6u);
  EXPECT_EQ(GetOrDie(*store, "a"), "new");
  EXPECT_EQ(GetOrDie(*store, "b"), "back");
  EXPECT_EQ(GetOrDie(*store, "c"), "3");
}

TEST_F(StoreTest, WithoutCloseUnflushedWritesComeBackFromTheLogAndLeftoversGo) {
  const StoreOptions options = ManualOptions();
  {
    std::unique_ptr<Store> store = OpenStore(options);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Put("x", "1").ok());
    ASSERT_TRUE(store->Flush().ok());
    ASSERT_TRUE(store->Put("y", "2").ok());
  }  // Destroyed without Close(), as if the process had died.
  // What an interrupted flush or compaction leaves, and a file not ours.
  WriteFile("000777.sst", "half a table");
  WriteFile("000778.sst.tmp", "");
  WriteFile("MANIFEST.tmp", "junk");
  WriteFile("notes.txt", "keep me");

  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(GetOrDie(*store, "x"), "1");
  EXPECT_EQ(GetOrDie(*store, "y"), "2");  // From the write-ahead log.
  EXPECT_EQ(FilesOnDisk(), LiveFiles(*store));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "000778.sst.tmp"));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "MANIFEST.tmp"));
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "notes.txt"));
  // New files reuse the leftover's number without trouble.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(store->Put(Key(i), "v").ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  EXPECT_EQ(GetOrDie(*store, Key(2)), "v");
}

TEST_F(StoreTest, TombstonesShadowOlderValuesBelowUntilNothingIsBelow) {
  std::unique_ptr<Store> store = OpenStore(ManualOptions());
  ASSERT_NE(store, nullptr);
  for (char c = 'a'; c <= 'z'; ++c) {
    ASSERT_TRUE(store->Put(std::string(1, c), std::string("old-") + c).ok());
  }
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->CompactLevel(0).ok());
  ASSERT_TRUE(store->CompactLevel(1).ok());
  ASSERT_EQ(store->files()[2].size(), 1u);  // a..z, down in level 2.

  ASSERT_TRUE(store->Delete("m").ok());
  ASSERT_TRUE(store->Delete("zz").ok());  // Never written; past level 2's range.
  ASSERT_TRUE(store->Put("n", "new-n").ok());
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(GetOrDie(*store, "m"), std::nullopt);
  EXPECT_EQ(GetOrDie(*store, "n"), "new-n");

  ASSERT_TRUE(store->CompactLevel(0).ok());
  ASSERT_TRUE(store->files()[0].empty());
  const std::vector<Entry> l1 = EntriesOf(store->files()[1]);
  // Level 2 still has m's old value, so m's tombstone must survive; no
  // file below covers zz, so its tombstone can go.
  const Entry* m = FindEntry(l1, "m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->type, EntryType::kDeletion);
  EXPECT_EQ(FindEntry(l1, "zz"), nullptr);
  EXPECT_EQ(GetOrDie(*store, "m"), std::nullopt);
  EXPECT_EQ(GetOrDie(*store, "a"), "old-a");

  // The tombstone persists and keeps shadowing after a reopen.
  ASSERT_TRUE(store->Close().ok());
  store = OpenStore(ManualOptions());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(GetOrDie(*store, "m"), std::nullopt);

  // Merged into the last level with data, tombstone and old value both go.
  ASSERT_TRUE(store->CompactLevel(1).ok());
  ASSERT_TRUE(store->files()[1].empty());
  const std::vector<Entry> l2 = EntriesOf(store->files()[2]);
  EXPECT_EQ(FindEntry(l2, "m"), nullptr);
  EXPECT_EQ(l2.size(), 25u);  // a..z but m, one version each.
  EXPECT_EQ(FindEntry(l2, "n")->value, "new-n");
  EXPECT_EQ(GetOrDie(*store, "m"), std::nullopt);
  EXPECT_EQ(GetOrDie(*store, "n"), "new-n");
}

TEST_F(StoreTest, L0CompactionReducesFilesAndKeepsAnswers) {
  StoreOptions options = ManualOptions();
  options.l0_compaction_trigger = 4;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  std::map<std::string, std::string> model;
  constexpr int kKeys = 1000;
  for (int round = 0; round < 4; ++round) {
    // Overlapping key sets, so the merge has versions to reconcile.
    for (int i = 0; i < 500; ++i) {
      const std::string key = Key((i * (round + 1) + round * 97) % kKeys);
      const std::string value = absl::StrFormat("round%d-%d", round, i);
      ASSERT_TRUE(store->Put(key, value).ok());
      model[key] = value;
    }
    for (int i = round; i < kKeys; i += 7) {
      ASSERT_TRUE(store->Delete(Key(i)).ok());
      model.erase(Key(i));
    }
    ASSERT_TRUE(store->Flush().ok());
    if (round < 3) {
      EXPECT_EQ(store->files()[0].size(), static_cast<size_t>(round + 1));
    }
  }
  const auto levels = store->files();
  EXPECT_TRUE(levels[0].empty());
  ASSERT_EQ(levels[1].size(), 1u);  // Four files became one.
  // Nothing is below level 1, so only live keys remain, once each.
  EXPECT_EQ(levels[1][0].table->num_entries(), model.size());
  EXPECT_EQ(FilesOnDisk(), LiveFiles(*store));
  ExpectMatchesModel(*store, model, kKeys);
}

TEST_F(StoreTest, CompactionSplitsOutputNearTargetFileSize) {
  StoreOptions options = ManualOptions();
  options.target_file_size = 16 << 10;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(store->Put(Key(i), std::string(100, 'v') + std::to_string(i)).ok());
  }
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->CompactLevel(0).ok());
  const auto levels = store->files();
  const std::vector<TableFile>& l1 = levels[1];
  EXPECT_GE(l1.size(), 20u);
  for (const TableFile& f : l1) {
    // A file ends with the block that crosses the target, plus its filter,
    // index and footer.
    EXPECT_LT(f.table->file_size(), options.target_file_size + (8 << 10));
  }
  for (int i = 0; i < 5000; i += 37) {
    EXPECT_EQ(GetOrDie(*store, Key(i)), std::string(100, 'v') + std::to_string(i));
  }
}

TEST_F(StoreTest, BinaryKeysSortAsTheTablesDo) {
  // The memtable, the merge and the tables must agree on byte order,
  // high bytes included, or a flush or compaction would fail or misplace.
  // (The smallest key is one zero byte: the store refuses empty keys.)
  const std::vector<std::string> keys = {
      std::string(1, '\0'), std::string("a\0b", 3), "\x7f", "\x80", "\xff", "\xff\xff", "z"};
  std::unique_ptr<Store> store = OpenStore(ManualOptions());
  ASSERT_NE(store, nullptr);
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(store->Put(keys[i], std::string("v\0", 2) + std::to_string(i)).ok());
  }
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->Delete("\x80").ok());
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_TRUE(store->CompactLevel(0).ok());
  ASSERT_TRUE(store->CompactLevel(1).ok());
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::optional<std::string> got = GetOrDie(*store, keys[i]);
    if (keys[i] == "\x80") {
      EXPECT_EQ(got, std::nullopt);
    } else {
      EXPECT_EQ(got, std::string("v\0", 2) + std::to_string(i)) << i;
    }
  }
}

TEST_F(StoreTest, FiltersRuleOutAbsentKeys) {
  StoreOptions options = SmallOptions();
  options.memtable_max_bytes = 2000 * 100;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(store->Put(Key(i), "v").ok());
  ASSERT_TRUE(store->Flush().ok());
  for (const auto& level : store->files()) {
    for (const TableFile& f : level) EXPECT_TRUE(f.table->filter_status().ok());
  }
  store->ResetLookupStats();
  for (int i = 0; i < 5000; ++i) {
    EXPECT_EQ(GetOrDie(*store, Key(i) + "-absent"), std::nullopt);  // In range, absent.
  }
  uint64_t checked = 0, ruled_out = 0;
  for (const lsmbloom::LevelStats& l : store->lookup_stats().levels) {
    checked += l.filters_checked;
    ruled_out += l.filters_ruled_out;
  }
  // A probe that falls between two files of a level is ruled out by key
  // range before any filter: nearly all, not all, reach one.
  EXPECT_GT(checked, 4500u);
  EXPECT_GT(ruled_out, checked * 95 / 100);
}

// Deepest and shallowest non-empty levels.
std::pair<int, int> LevelRange(const Store& store) {
  const auto files = store.files();
  int top = -1, bottom = -1;
  for (int level = 0; level < static_cast<int>(files.size()); ++level) {
    if (files[level].empty()) continue;
    if (top < 0) top = level;
    bottom = level;
  }
  return {top, bottom};
}

TEST_F(StoreTest, WithoutAFilterBudgetEveryLevelGetsTheSameBitsPerKey) {
  std::unique_ptr<Store> store = OpenStore(SmallOptions());
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 6000; ++i) ASSERT_TRUE(store->Put(Key(i * 7 % 6000), "v").ok());
  ASSERT_TRUE(store->Flush().ok());
  const auto [top, bottom] = LevelRange(*store);
  ASSERT_LT(top, bottom);
  const lsmbloom::LookupStats stats = store->lookup_stats();
  for (int level = top; level <= bottom; ++level) {
    if (stats.levels[level].files == 0) continue;
    // 10 bits/key, rounded up to whole 64-byte blocks per small file.
    EXPECT_GE(stats.levels[level].bits_per_key, 10.0) << level;
    EXPECT_LT(stats.levels[level].bits_per_key, 10.7) << level;
  }
}

TEST_F(StoreTest, FilterBudgetGivesSmallLevelsMoreBitsAndKeepsEveryAnswer) {
  // Files of a few thousand entries: in smaller ones the rounding of each
  // filter to whole 64-byte blocks outweighs the split.
  StoreOptions options = SmallOptions();
  options.memtable_max_bytes = 2000 * 100;
  options.target_file_size = 48 << 10;
  options.level1_max_bytes = 128 << 10;
  options.level_size_multiplier = 4;
  options.filter_budget_bits_per_key = 10;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  constexpr int kKeys = 30000;
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(16);
  for (int i = 0; i < 2 * kKeys; ++i) {
    const std::string key = Key(rng() % kKeys);
    if (rng() % 8 == 0) {
      ASSERT_TRUE(store->Delete(key).ok());
      model.erase(key);
    } else {
      const std::string value = absl::StrFormat("v%d", i);
      ASSERT_TRUE(store->Put(key, value).ok());
      model[key] = value;
    }
  }
  ASSERT_TRUE(store->Flush().ok());
  ExpectMatchesModel(*store, model, kKeys);

  const auto [top, bottom] = LevelRange(*store);
  ASSERT_LT(top, bottom) << "the test needs at least two levels";
  const lsmbloom::LookupStats stats = store->lookup_stats();
  // The last level holds most entries and gets fewer bits than the budget's
  // average; the smallest level gets more.
  EXPECT_LT(stats.levels[bottom].bits_per_key, 10.0);
  EXPECT_GT(stats.levels[top].bits_per_key, stats.levels[bottom].bits_per_key + 1);
  // Filter bits stay near the budget: files keep the bits they were written
  // with, so it drifts, but not far.
  double entries = 0, bits = 0;
  for (const lsmbloom::LevelStats& l : stats.levels) {
    entries += l.entries;
    bits += l.bits_per_key * l.entries;
  }
  EXPECT_GT(bits / entries, 9.0);
  EXPECT_LT(bits / entries, 11.0);
}

TEST_F(StoreTest, FilterBudgetOutOfRangeIsInvalidArgument) {
  StoreOptions options;
  options.filter_budget_bits_per_key = -1;
  EXPECT_TRUE(absl::IsInvalidArgument(Store::Open(dir_, options).status()));
}

TEST_F(StoreTest, OpenFailsClearly) {
  StoreOptions existing_only;
  existing_only.create_if_missing = false;
  EXPECT_TRUE(absl::IsNotFound(Store::Open(dir_, existing_only).status()));
  fs::create_directory(dir_);
  EXPECT_TRUE(absl::IsNotFound(Store::Open(dir_, existing_only).status()));
  EXPECT_TRUE(fs::is_empty(dir_)) << "looking for a store left files behind";

  WriteFile("plain", "x");
  EXPECT_TRUE(absl::IsInvalidArgument(Store::Open(dir_ + "/plain").status()));
  StoreOptions bad;
  bad.l0_compaction_trigger = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(Store::Open(dir_, bad).status()));

  {
    std::unique_ptr<Store> store = OpenStore(StoreOptions());
    ASSERT_NE(store, nullptr);
    EXPECT_TRUE(absl::IsUnavailable(Store::Open(dir_).status())) << "second open";
    ASSERT_TRUE(store->Put("k", "v").ok());
    ASSERT_TRUE(store->Close().ok());
    EXPECT_TRUE(absl::IsFailedPrecondition(store->Put("k", "w")));
    EXPECT_TRUE(store->Close().ok());
  }
  const uint64_t table = *FilesOnDisk().begin();

  WriteFile("MANIFEST", "kvstore-manifest v1\nnext_file_number 9\nlast_sequence 1\n");
  EXPECT_TRUE(absl::IsDataLoss(Store::Open(dir_).status())) << "truncated MANIFEST";
  WriteFile("MANIFEST",
            "kvstore-manifest v1\nnext_file_number 9\nlast_sequence 1\n"
            "file 0 8\nend\n");
  EXPECT_TRUE(absl::IsDataLoss(Store::Open(dir_).status())) << "MANIFEST names a missing file";
  fs::remove(fs::path(dir_) / "MANIFEST");
  absl::Status s = Store::Open(dir_).status();
  EXPECT_TRUE(absl::IsDataLoss(s)) << "tables but no MANIFEST: " << s;
  EXPECT_TRUE(fs::exists(fs::path(dir_) / absl::StrFormat("%06d.sst", table)));
}

}  // namespace
}  // namespace kvstore
