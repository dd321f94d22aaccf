// Scan, CompactAll, the memtable's byte limit and per-level bits/key,
// against a std::map model.

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "filenames.h"
#include "gtest/gtest.h"
#include "lsmbloom/inspect/inspect.h"
#include "store.h"
#include "test_util.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;
using KeyValues = std::vector<std::pair<std::string, std::string>>;

using testing::Key;

class ScanTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir(); }

  static StoreOptions SmallOptions() {
    StoreOptions options;
    options.wal_sync.mode = WalSync::Mode::kNever;  // Thousands of writes.
    options.memtable_max_bytes = 16 << 10;
    options.target_file_size = 8 << 10;
    options.level1_max_bytes = 24 << 10;
    options.level_size_multiplier = 3;
    options.table_options.block_size = 1024;
    return options;
  }

  std::unique_ptr<Store> OpenStore(const StoreOptions& options) {
    return testing::OpenStore(dir_, options);
  }

  std::string dir_;
};

KeyValues ScanOrDie(const Store& store, const Store::ScanRange& range) {
  KeyValues out;
  absl::Status s = store.Scan(range, [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

KeyValues ModelRange(const std::map<std::string, std::string>& model,
                     const Store::ScanRange& range) {
  KeyValues out;
  for (auto it = model.lower_bound(range.from); it != model.end(); ++it) {
    if (!range.to.empty() && it->first >= range.to) break;
    if (range.limit != 0 && out.size() == range.limit) break;
    out.emplace_back(*it);
  }
  return out;
}

// Random puts, overwrites and deletes spread over the memtable and several
// levels, so a key's versions sit in different places.
std::map<std::string, std::string> FillRandomly(Store& store, int keys, int writes) {
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(7);
  for (int i = 0; i < writes; ++i) {
    const std::string key = Key(rng() % keys);
    if (rng() % 5 == 0) {
      EXPECT_TRUE(store.Delete(key).ok());
      model.erase(key);
    } else {
      const std::string value = absl::StrFormat("v%d", i);
      EXPECT_TRUE(store.Put(key, value).ok());
      model[key] = value;
    }
  }
  return model;
}

TEST_F(ScanTest, ScanSeesNewestVersionAcrossMemtableAndLevelsAndHidesTombstones) {
  std::unique_ptr<Store> store = OpenStore(SmallOptions());
  ASSERT_NE(store, nullptr);
  const auto model = FillRandomly(*store, 3000, 12000);
  ASSERT_GT(store->memtable_entries(), 0u);
  int levels_used = 0;
  for (const auto& level : store->files()) levels_used += !level.empty();
  ASSERT_GE(levels_used, 2);

  EXPECT_EQ(ScanOrDie(*store, {}), ModelRange(model, {}));
  const std::vector<Store::ScanRange> ranges = {
      {"k00100", "k00200", 0}, {"k01000", "", 25},      {"", "k00050", 0},       {"k02999", "", 0},
      {"k1", "", 0},           {"k00500", "k00500", 0}, {"k00123x", "k00456", 7}};
  for (const Store::ScanRange& range : ranges) {
    EXPECT_EQ(ScanOrDie(*store, range), ModelRange(model, range))
        << "[" << range.from << ", " << range.to << ") limit " << range.limit;
  }
}

TEST_F(ScanTest, ScanStopsWhenVisitorReturnsFalse) {
  std::unique_ptr<Store> store = OpenStore(SmallOptions());
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Put(Key(i), "v").ok());
  int seen = 0;
  ASSERT_TRUE(store->Scan({}, [&](std::string_view, std::string_view) { return ++seen < 3; }).ok());
  EXPECT_EQ(seen, 3);
}

TEST_F(ScanTest, CompactAllLeavesOneLevelWithEveryAnswerIntact) {
  std::unique_ptr<Store> store = OpenStore(SmallOptions());
  ASSERT_NE(store, nullptr);
  const auto model = FillRandomly(*store, 3000, 12000);
  ASSERT_TRUE(store->CompactAll().ok());
  EXPECT_EQ(store->memtable_entries(), 0u);
  int levels_used = 0;
  uint64_t entries = 0;
  for (const auto& level : store->files()) {
    levels_used += !level.empty();
    for (const auto& f : level) entries += f.table->num_entries();
  }
  EXPECT_EQ(levels_used, 1);
  EXPECT_EQ(entries, model.size());  // No shadowed versions, no tombstones.
  EXPECT_EQ(ScanOrDie(*store, {}), ModelRange(model, {}));
  ASSERT_TRUE(store->Close().ok());
  store = OpenStore(SmallOptions());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(ScanOrDie(*store, {}), ModelRange(model, {}));
}

TEST_F(ScanTest, MemtableFlushesByBytesNotEntries) {
  StoreOptions options = SmallOptions();
  options.memtable_max_bytes = 64 << 10;
  options.l0_compaction_trigger = 1000;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  // Few large values flush as soon as many small ones would.
  const std::string big(8 << 10, 'x');
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(store->Put(Key(i), big).ok());
  EXPECT_TRUE(store->files()[0].empty());
  ASSERT_TRUE(store->Put(Key(7), big).ok());
  EXPECT_EQ(store->files()[0].size(), 1u);
  EXPECT_EQ(store->memtable_entries(), 0u);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store->Put(Key(i), "small").ok());
  EXPECT_EQ(store->files()[0].size(), 1u);
  EXPECT_LT(store->memtable_bytes(), options.memtable_max_bytes);
}

TEST_F(ScanTest, LevelBitsPerKeyGivesEachLevelItsFilter) {
  StoreOptions options = SmallOptions();
  options.memtable_max_bytes = 1 << 20;
  // Only the compactions asked for: one pushed down by size would be moved
  // whole, keeping the filter of the level it was written for.
  options.l0_compaction_trigger = 1000;
  options.level1_max_bytes = uint64_t{1} << 40;
  options.level_bits_per_key = {16, 0, 6};
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(store->Put(Key(i), "v").ok());
  ASSERT_TRUE(store->Flush().ok());
  ASSERT_EQ(store->files()[0].size(), 1u);
  const lsmbloom::TableFile l0 = store->files()[0][0];
  EXPECT_NEAR(8.0 * l0.table->filter_memory() / l0.table->num_entries(), 16, 1);
  ASSERT_TRUE(store->CompactLevel(0).ok());
  const auto after_first = store->files();
  for (const auto& f : after_first[1]) EXPECT_EQ(f.table->filter_memory(), 0u);
  ASSERT_TRUE(store->CompactLevel(1).ok());
  uint64_t bits = 0, entries = 0;
  const auto after_second = store->files();
  for (const auto& f : after_second[2]) {
    bits += 8 * f.table->filter_memory();
    entries += f.table->num_entries();
  }
  ASSERT_EQ(entries, 3000u);
  // Each filter rounds up to whole 64-byte blocks: a little over 6.
  EXPECT_GE(static_cast<double>(bits) / entries, 6);
  EXPECT_LT(static_cast<double>(bits) / entries, 8);
  for (int i = 0; i < 3000; i += 97) {
    absl::StatusOr<std::optional<std::string>> v = store->Get(Key(i));
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v, "v");
  }
}

// A store whose level-1 file holds the even keys and a level-0 file the
// odd ones, then one byte flipped in the middle of the level-1 file's
// data block `block`. Returns the damaged file's path and the model.
std::pair<std::string, std::map<std::string, std::string>> StoreWithDamagedBlock(
    const std::string& dir, const StoreOptions& options, size_t block) {
  std::map<std::string, std::string> model;
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.status();
  for (int i = 0; i < 2000; i += 2) {
    model[Key(i)] = absl::StrFormat("even%d", i);
    EXPECT_TRUE((*store)->Put(Key(i), model[Key(i)]).ok());
  }
  EXPECT_TRUE((*store)->CompactAll().ok());
  for (int i = 1; i < 2000; i += 2) {
    model[Key(i)] = absl::StrFormat("odd%d", i);
    EXPECT_TRUE((*store)->Put(Key(i), model[Key(i)]).ok());
  }
  EXPECT_TRUE((*store)->Flush().ok());
  const auto levels = (*store)->files();
  EXPECT_EQ(levels[0].size(), 1u);
  EXPECT_EQ(levels[1].size(), 1u);
  const lsmbloom::TableFile victim = levels[1][0];
  const std::string path = TableFileName(dir, victim.file_number);
  absl::StatusOr<std::vector<lsmbloom::BlockLocation>> blocks =
      lsmbloom::DataBlockLocations(*victim.table);
  EXPECT_TRUE(blocks.ok());
  EXPECT_GT(blocks->size(), block + 1);
  const uint64_t offset = (*blocks)[block].offset + (*blocks)[block].size / 2;
  EXPECT_TRUE((*store)->Close().ok());
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(offset);
  const char c = static_cast<char>(file.get());
  file.seekp(offset);
  file.put(static_cast<char>(c ^ 0x40));
  return {path, model};
}

TEST_F(ScanTest, ScanStopsAtTheFirstDamagedBlockAndNamesTheFile) {
  StoreOptions options = SmallOptions();
  options.memtable_max_bytes = 1 << 20;
  options.l0_compaction_trigger = 100;
  options.level1_max_bytes = uint64_t{1} << 40;
  options.target_file_size = uint64_t{1} << 30;
  const auto [path, model] = StoreWithDamagedBlock(dir_, options, 3);
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  KeyValues seen;
  absl::Status s = store->Scan({}, [&](std::string_view k, std::string_view v) {
    seen.emplace_back(k, v);
    return true;
  });
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(path), std::string::npos) << s;
  EXPECT_NE(s.message().find("offset"), std::string::npos) << s;
  // What was listed is exactly the start of the right answer: no key
  // after the damage, so no gap a reader could miss.
  const KeyValues all = ModelRange(model, {});
  ASSERT_LT(seen.size(), all.size());
  EXPECT_EQ(seen, KeyValues(all.begin(), all.begin() + seen.size()));
}

TEST_F(ScanTest, SkipDamagedReportsEachBlockListsTheRestAndStillFails) {
  StoreOptions options = SmallOptions();
  options.memtable_max_bytes = 1 << 20;
  options.l0_compaction_trigger = 100;
  options.level1_max_bytes = uint64_t{1} << 40;
  options.target_file_size = uint64_t{1} << 30;
  const auto [path, model] = StoreWithDamagedBlock(dir_, options, 3);
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  std::vector<std::string> reports;
  Store::ScanRange range;
  range.on_damaged_block = [&](const absl::Status& s) { reports.emplace_back(s.message()); };
  std::map<std::string, std::string> seen;
  absl::Status s = store->Scan(range, [&](std::string_view k, std::string_view v) {
    seen.emplace(k, v);
    return true;
  });
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("skipped 1 damaged"), std::string::npos) << s;
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find(path), std::string::npos) << reports[0];
  EXPECT_NE(reports[0].find("offset"), std::string::npos) << reports[0];
  // Only the damaged block's keys are missing: even keys, one run of them.
  std::vector<int> missing;
  for (const auto& [k, v] : model) {
    auto it = seen.find(k);
    if (it == seen.end()) {
      missing.push_back(std::stoi(k.substr(1)));
    } else {
      EXPECT_EQ(it->second, v) << k;
    }
  }
  EXPECT_EQ(seen.size() + missing.size(), model.size());
  ASSERT_FALSE(missing.empty());
  for (size_t i = 0; i < missing.size(); ++i) {
    EXPECT_EQ(missing[i] % 2, 0);
    if (i > 0) EXPECT_EQ(missing[i], missing[i - 1] + 2);
  }
  // A lookup in the damaged block fails naming the file; none is wrong.
  int failed = 0;
  for (const auto& [k, v] : model) {
    absl::StatusOr<std::optional<std::string>> got = store->Get(k);
    if (!got.ok()) {
      ++failed;
      EXPECT_TRUE(absl::IsDataLoss(got.status()));
      EXPECT_NE(got.status().message().find(path), std::string::npos) << got.status();
    } else {
      EXPECT_EQ(*got, v) << k;
    }
  }
  EXPECT_EQ(failed, static_cast<int>(missing.size()));
}

TEST_F(ScanTest, FromAfterToIsAnErrorAndFromEqualToIsEmpty) {
  std::unique_ptr<Store> store = OpenStore(SmallOptions());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("b", "v").ok());
  auto visit = [](std::string_view, std::string_view) { return true; };
  EXPECT_TRUE(absl::IsInvalidArgument(store->Scan({"c", "a", 0}, visit)));
  EXPECT_TRUE(ScanOrDie(*store, {"b", "b", 0}).empty());
  EXPECT_EQ(ScanOrDie(*store, {"b", "", 0}).size(), 1u);
}

}  // namespace
}  // namespace kvstore
