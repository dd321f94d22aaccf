// Lookups across levels whose files carry Ribbon filters, alone and mixed
// with blocked Bloom filters (by level, and within one level): every answer
// as the model's, Get and MultiGet alike; Ribbon filters consulted (files
// skipped, counted in LookupStats as blocked ones are) with the tables
// opened by default read options.

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/lookup/lookup.h"
#include "tests/lsm_testutil.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;

// kRibbonBounded: a Ribbon policy whose builders fall back to blocked Bloom
// filters for files of more than ~42,000 keys (a 1 MiB construction bound).
enum class Filter { kBlocked, kRibbon, kRibbonSeeded, kRibbonBounded };

TableOptions OptionsFor(Filter filter) {
  TableOptions options;  // kBlocked: the default policy.
  if (filter != Filter::kBlocked) {
    RibbonOptions ribbon;
    // A seed of its own: the lookup must hash for this file apart.
    if (filter == Filter::kRibbonSeeded) ribbon.hash.seed = 7;
    if (filter == Filter::kRibbonBounded) ribbon.max_construction_bytes = size_t{1} << 20;
    options.filter_policy = *NewRibbonPolicy(ribbon);
  }
  return options;
}

using Lsm = testutil::ModelLsm;

// Adds a file of `entries` whose `filter` the tables, opened with default
// TableReadOptions, must trust.
void AddFile(Lsm& lsm, int level, std::vector<Entry> entries, Filter filter) {
  const std::shared_ptr<const Table> table =
      lsm.AddFile(level, std::move(entries), OptionsFor(filter));
  ASSERT_NE(table, nullptr);
  ASSERT_TRUE(table->filter_status().ok()) << table->filter_status();
}

// Three levels over keys TableKey(2 * i), i < keys: level 2 holds them all
// (two files), level 1 every 3rd (some deleted), level 0 two overlapping
// files of every 10th. Odd TableKeys are absent, inside every range.
void BuildLsm(Lsm& lsm, int keys, Filter l0, Filter l1, Filter l2a, Filter l2b) {
  uint64_t seq = 1;
  std::vector<Entry> level2[2], level1, level0[2];
  for (int i = 0; i < keys; ++i) {
    const std::string key = testutil::TableKey(2 * i);
    level2[i < keys / 2].push_back({key, seq++, EntryType::kValue, "l2-" + std::to_string(i)});
  }
  for (int i = 0; i < keys; i += 3) {
    const std::string key = testutil::TableKey(2 * i);
    if (i % 4 == 0) {
      level1.push_back({key, seq++, EntryType::kDeletion, ""});
    } else {
      level1.push_back({key, seq++, EntryType::kValue, "l1-" + std::to_string(i)});
    }
  }
  for (int i = 0; i < keys; i += 10) {
    level0[(i / 10) % 2].push_back(
        {testutil::TableKey(2 * i), seq++, EntryType::kValue, "l0-" + std::to_string(i)});
  }
  AddFile(lsm, 2, level2[0], l2a);
  AddFile(lsm, 2, level2[1], l2b);
  AddFile(lsm, 1, level1, l1);
  AddFile(lsm, 0, level0[0], l0);
  AddFile(lsm, 0, level0[1], l0);
}

// Every key 0 .. 2 * keys: each answer as the model's, by Get and by
// MultiGet; the counters of both equal.
void ExpectAnswersAsModel(Lsm& lsm, int keys) {
  std::vector<std::string> probes;
  for (int i = 0; i < 2 * keys; ++i) probes.push_back(testutil::TableKey(i));
  lsm.set.ResetStats();
  size_t wrong = 0;
  for (const std::string& k : probes) {
    absl::StatusOr<LookupResult> got = lsm.set.Get(k);
    ASSERT_TRUE(got.ok()) << got.status();
    wrong += !testutil::SameAsModel(*got, lsm.Expected(k));
  }
  EXPECT_EQ(wrong, 0u) << "Get";
  const LookupStats by_get = lsm.set.stats();
  lsm.set.ResetStats();
  wrong = 0;
  for (size_t start = 0; start < probes.size(); start += 1000) {
    const size_t end = std::min(probes.size(), start + 1000);
    const std::vector<std::string_view> batch(probes.begin() + start, probes.begin() + end);
    const auto results = lsm.set.MultiGet(batch);
    ASSERT_EQ(results.size(), batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      ASSERT_TRUE(results[i].ok()) << results[i].status();
      wrong += !testutil::SameAsModel(*results[i], lsm.Expected(probes[start + i]));
    }
  }
  EXPECT_EQ(wrong, 0u) << "MultiGet";
  const LookupStats by_multiget = lsm.set.stats();
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(by_multiget.levels[l].filters_checked, by_get.levels[l].filters_checked) << l;
    EXPECT_EQ(by_multiget.levels[l].filters_ruled_out, by_get.levels[l].filters_ruled_out) << l;
    EXPECT_EQ(by_multiget.levels[l].filters_positive, by_get.levels[l].filters_positive) << l;
    EXPECT_EQ(by_multiget.levels[l].data_block_reads, by_get.levels[l].data_block_reads) << l;
  }
}

// Absent keys only (odd TableKeys): per level, the filters rule out all
// but about their predicted FPR, and only those cost a data block read.
LookupStats ProbeAbsent(Lsm& lsm, int keys) {
  lsm.set.ResetStats();
  for (int i = 0; i < keys; ++i) {
    absl::StatusOr<LookupResult> got = lsm.set.Get(testutil::TableKey(2 * i + 1));
    EXPECT_TRUE(got.ok() && got->kind == LookupResult::Kind::kNotFound) << i;
  }
  const LookupStats s = lsm.set.stats();
  for (int level = 0; level < 3; ++level) {
    const LevelStats& l = s.levels[level];
    EXPECT_GT(l.filters_checked, 0u) << level;
    EXPECT_EQ(l.filters_true_positive, 0u) << level;
    EXPECT_EQ(l.data_block_reads, l.filters_positive) << level;
    EXPECT_EQ(l.filters_ruled_out + l.filters_positive, l.filters_checked) << level;
    // Within 6 sigma of the files' own predictions.
    EXPECT_NEAR(static_cast<double>(l.false_positives()), l.expected_false_positives,
                6 * std::sqrt(l.expected_false_positives) + 2)
        << level;
    EXPECT_LT(l.filters_positive, l.filters_checked / 50) << level;
  }
  return s;
}

TEST(RibbonLookupTest, RibbonInEveryLevelAnswersAsTheModelAndSkipsAbsentKeys) {
  Lsm lsm;
  const int keys = 30000;
  BuildLsm(lsm, keys, Filter::kRibbon, Filter::kRibbon, Filter::kRibbon, Filter::kRibbon);
  ExpectAnswersAsModel(lsm, keys);
  const LookupStats s = ProbeAbsent(lsm, keys);
  // Ribbon's ~7 bits/key, not the blocked filter's 10: its filters were used.
  for (int level = 0; level < 3; ++level) {
    EXPECT_NEAR(s.levels[level].bits_per_key, 7, 0.6) << level;
    EXPECT_GT(s.levels[level].filters_ruled_out, 0u) << level;
  }
  // Every absent key inside the files' ranges (all but a few at the ends)
  // is checked against both level-0 files and one file of each level below.
  EXPECT_NEAR(static_cast<double>(s.levels[0].filters_checked), 2.0 * keys, 40);
  EXPECT_NEAR(static_cast<double>(s.levels[1].filters_checked), keys, 3);
  EXPECT_NEAR(static_cast<double>(s.levels[2].filters_checked), keys, 3);
}

TEST(RibbonLookupTest, BlockedAboveRibbonBelowAnswerAsTheModelAndBothFilter) {
  Lsm lsm;
  const int keys = 30000;
  BuildLsm(lsm, keys, Filter::kBlocked, Filter::kRibbon, Filter::kRibbon, Filter::kRibbon);
  ExpectAnswersAsModel(lsm, keys);
  const LookupStats s = ProbeAbsent(lsm, keys);
  EXPECT_NEAR(s.levels[0].bits_per_key, 10, 0.6);
  EXPECT_NEAR(s.levels[1].bits_per_key, 7, 0.6);
  EXPECT_NEAR(s.levels[2].bits_per_key, 7, 0.6);
}

TEST(RibbonLookupTest, RibbonAboveBlockedBelowAndMixedInOneLevelAnswerAsTheModel) {
  Lsm lsm;
  const int keys = 30000;
  // Level 2: one blocked file, one Ribbon file with a hash seed of its own.
  BuildLsm(lsm, keys, Filter::kRibbon, Filter::kBlocked, Filter::kBlocked, Filter::kRibbonSeeded);
  ExpectAnswersAsModel(lsm, keys);
  const LookupStats s = ProbeAbsent(lsm, keys);
  EXPECT_NEAR(s.levels[0].bits_per_key, 7, 0.6);
  EXPECT_NEAR(s.levels[1].bits_per_key, 10, 0.6);
  EXPECT_NEAR(s.levels[2].bits_per_key, 8.5, 0.6);  // Half of each.
}

TEST(RibbonLookupTest, RibbonPolicyFallbackFilesAreProbedAsBlockedAndAnswerAsTheModel) {
  Lsm lsm;
  const int keys = 100000;
  // Level 2: a file of 50,000 keys under the 1 MiB bound (a blocked Bloom
  // filter at the Ribbon plan's 1% FPR, ~9.9 bits/key), one Ribbon file.
  // Level 1's ~33,000 keys fit the bound: Ribbon.
  BuildLsm(lsm, keys, Filter::kRibbon, Filter::kRibbonBounded, Filter::kRibbonBounded,
           Filter::kRibbon);
  ExpectAnswersAsModel(lsm, keys);
  const LookupStats s = ProbeAbsent(lsm, keys);
  EXPECT_NEAR(s.levels[1].bits_per_key, 7, 0.6);
  EXPECT_NEAR(s.levels[2].bits_per_key, 8.5, 0.6);  // Half of each.
  EXPECT_GT(s.levels[2].filters_ruled_out, 0u);
}

TEST(RibbonLookupTest, FiltersOffAndLastLevelSkipOverRibbonGiveTheSameAnswers) {
  const int keys = 6000;
  LookupOptions off;
  off.use_filters = false;
  Lsm unfiltered(off);
  BuildLsm(unfiltered, keys, Filter::kRibbon, Filter::kBlocked, Filter::kRibbon, Filter::kRibbon);
  ExpectAnswersAsModel(unfiltered, keys);
  EXPECT_EQ(unfiltered.set.stats().levels[2].filters_checked, 0u);

  LookupOptions skip_last;
  skip_last.skip_last_level_filters = true;
  Lsm skipping(skip_last);
  BuildLsm(skipping, keys, Filter::kRibbon, Filter::kBlocked, Filter::kRibbon, Filter::kRibbon);
  ExpectAnswersAsModel(skipping, keys);
  const LookupStats s = skipping.set.stats();
  EXPECT_EQ(s.levels[2].filters_checked, 0u);
  EXPECT_GT(s.levels[0].filters_ruled_out, 0u);
}

}  // namespace
}  // namespace lsmbloom
