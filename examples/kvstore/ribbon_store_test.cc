// Ribbon filters in the store: every level (--filter=ribbon) or from a
// level down (--ribbon_from_level), each new table written with the kind
// its level asks for, every answer right, absent keys filtered, and the
// choice recorded in the MANIFEST so that a reopen without it keeps it.

#include <map>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "manifest.h"
#include "store.h"
#include "test_util.h"

namespace kvstore {
namespace {

using lsmbloom::TableFile;
using testing::Key;

class RibbonStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir(); }

  // Small everything, so a few thousand writes reach several levels.
  static StoreOptions SmallOptions() {
    StoreOptions options;
    options.wal_sync.mode = WalSync::Mode::kNever;
    options.memtable_max_bytes = 1000 * 103;
    options.target_file_size = 32 << 10;
    options.level1_max_bytes = 96 << 10;
    options.level_size_multiplier = 3;
    options.table_options.block_size = 1024;
    return options;
  }

  std::unique_ptr<Store> OpenStore(const StoreOptions& options) {
    return testing::OpenStore(dir_, options);
  }

  // Random puts and deletes of kKeys keys; the model of what they left.
  static std::map<std::string, std::string> Write(Store& store, uint64_t seed) {
    std::map<std::string, std::string> model;
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 2 * kKeys; ++i) {
      const std::string key = Key(static_cast<int>(rng() % kKeys));
      if (rng() % 8 == 0) {
        EXPECT_TRUE(store.Delete(key).ok());
        model.erase(key);
      } else {
        const std::string value = absl::StrFormat("v%d", i);
        EXPECT_TRUE(store.Put(key, value).ok());
        model[key] = value;
      }
    }
    EXPECT_TRUE(store.Flush().ok());
    return model;
  }

  // Every key as the model has it, and absent keys (in range) filtered.
  static void ExpectAnswersAndFiltering(Store& store,
                                        const std::map<std::string, std::string>& model) {
    size_t wrong = 0;
    for (int i = 0; i < kKeys; ++i) {
      absl::StatusOr<std::optional<std::string>> got = store.Get(Key(i));
      ASSERT_TRUE(got.ok()) << got.status();
      auto it = model.find(Key(i));
      wrong += it == model.end() ? got->has_value() : *got != it->second;
    }
    EXPECT_EQ(wrong, 0u);
    store.ResetLookupStats();
    for (int i = 0; i < 5000; ++i) {
      absl::StatusOr<std::optional<std::string>> got = store.Get(Key(i) + "-absent");
      ASSERT_TRUE(got.ok() && !got->has_value()) << i;
    }
    uint64_t checked = 0, ruled_out = 0;
    for (const lsmbloom::LevelStats& l : store.lookup_stats().levels) {
      checked += l.filters_checked;
      ruled_out += l.filters_ruled_out;
    }
    EXPECT_GT(checked, 4500u);
    EXPECT_GT(ruled_out, checked * 95 / 100);
  }

  // The filter policy of every table, per level: -1 none, 0 blocked, 1 Ribbon.
  static std::vector<std::set<int>> KindsByLevel(const Store& store) {
    std::vector<std::set<int>> kinds;
    for (const auto& level : store.files()) {
      kinds.emplace_back();
      for (const TableFile& f : level) {
        const std::string& policy = f.table->properties().filter_policy;
        EXPECT_TRUE(f.table->filter_status().ok()) << f.table->filter_status();
        kinds.back().insert(policy == lsmbloom::kRibbonPolicyName         ? 1
                            : policy == lsmbloom::kBlockedBloomPolicyName ? 0
                                                                          : -1);
      }
    }
    return kinds;
  }

  static constexpr int kKeys = 20000;
  std::string dir_;
};

TEST_F(RibbonStoreTest, RibbonEverywhereAnswersRightFiltersAndSavesMemory) {
  StoreOptions options = SmallOptions();
  options.ribbon_from_level = 0;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  const auto model = Write(*store, 1);
  for (const std::set<int>& kinds : KindsByLevel(*store)) {
    EXPECT_TRUE(kinds.empty() || kinds == std::set<int>{1});
  }
  ExpectAnswersAndFiltering(*store, model);
  // The FPR of 10 bits/key in a blocked filter, in ~7 bits/key (more in a
  // level of small files: a Ribbon filter has a minimum size and slack).
  double bits = 0, entries = 0;
  for (const lsmbloom::LevelStats& l : store->lookup_stats().levels) {
    if (l.files == 0) continue;
    EXPECT_LT(l.bits_per_key, 9.0);
    EXPECT_GT(l.bits_per_key, 6.0);
    EXPECT_LT(l.predicted_fpr, 0.013);
    bits += l.bits_per_key * l.entries;
    entries += l.entries;
  }
  EXPECT_LT(bits / entries, 7.8);
}

TEST_F(RibbonStoreTest, RibbonFromALevelDownKeepsBloomAbove) {
  StoreOptions options = SmallOptions();
  options.ribbon_from_level = 2;
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  const auto model = Write(*store, 2);
  const std::vector<std::set<int>> kinds = KindsByLevel(*store);
  bool ribbon_seen = false, bloom_seen = false;
  for (int level = 0; level < static_cast<int>(kinds.size()); ++level) {
    if (kinds[level].empty()) continue;
    EXPECT_EQ(kinds[level], std::set<int>{level >= 2 ? 1 : 0}) << "level " << level;
    (level >= 2 ? ribbon_seen : bloom_seen) = true;
  }
  ASSERT_TRUE(ribbon_seen && bloom_seen) << "the test needs levels above and below 2";
  ExpectAnswersAndFiltering(*store, model);
}

TEST_F(RibbonStoreTest, TheChoiceIsRecordedAndKeptByAReopenWithoutIt) {
  StoreOptions options = SmallOptions();
  options.ribbon_from_level = 1;
  {
    std::unique_ptr<Store> store = OpenStore(options);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->ribbon_from_level(), 1);
  }
  // Recorded at open, before anything is written.
  absl::StatusOr<Manifest> manifest = ReadManifest(dir_);
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->ribbon_from_level, 1);

  options.ribbon_from_level.reset();  // As recorded.
  std::unique_ptr<Store> store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->ribbon_from_level(), 1);
  const auto model = Write(*store, 3);
  const std::vector<std::set<int>> kinds = KindsByLevel(*store);
  for (int level = 1; level < static_cast<int>(kinds.size()); ++level) {
    EXPECT_TRUE(kinds[level].empty() || kinds[level] == std::set<int>{1}) << level;
  }
  store.reset();

  // Reopened again: Ribbon tables read with their filters; then turned off
  // explicitly (-1), which is recorded too.
  options.ribbon_from_level = -1;
  store = OpenStore(options);
  ASSERT_NE(store, nullptr);
  ExpectAnswersAndFiltering(*store, model);
  EXPECT_EQ(store->ribbon_from_level(), -1);
  store.reset();
  manifest = ReadManifest(dir_);
  ASSERT_TRUE(manifest.ok());
  EXPECT_EQ(manifest->ribbon_from_level, -1);
  EXPECT_EQ(EncodeManifest(*manifest).find("ribbon_from_level"), std::string::npos);
}

TEST_F(RibbonStoreTest, LevelOutOfRangeIsInvalidArgument) {
  StoreOptions options;
  options.ribbon_from_level = lsmbloom::kNumLevels;
  absl::Status s = Store::Open(dir_, options).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("ribbon_from_level"), std::string::npos) << s;
  options.ribbon_from_level = -2;
  EXPECT_TRUE(absl::IsInvalidArgument(Store::Open(dir_, options).status()));
}

}  // namespace
}  // namespace kvstore
