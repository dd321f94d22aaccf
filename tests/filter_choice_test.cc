// filter_budget.h choosing between the blocked Bloom filter and Ribbon.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/lookup/filter_budget.h"

namespace lsmbloom {
namespace {

// lookup_bench's standard tree at 10^6 keys: 6 level-0 files of 10,000
// keys each, then 100,000, 300,000 and 1,000,000 keys in levels 1-3.
std::vector<LevelFilterShape> StandardTree() {
  return {{60000, 6}, {100000, 1}, {300000, 1}, {1000000, 1}};
}

FilterBudgetOptions Mixed() {
  FilterBudgetOptions o;
  o.allow_ribbon = true;
  return o;
}

std::vector<LevelFilterShape> RandomShape(std::mt19937_64& rng) {
  std::vector<LevelFilterShape> levels;
  const int num_levels = 2 + rng() % 6;
  for (int i = 0; i < num_levels; ++i) {
    const double checks = (i == 0) ? 1 + rng() % 8 : 1;
    const uint64_t keys = static_cast<uint64_t>(std::pow(10.0, 2 + (rng() % 700) / 100.0));
    levels.push_back({keys, checks});
  }
  return levels;
}

TEST(FilterChoiceTest, MixedNeverCostsMoreThanBloomOnlyAtEqualMemory) {
  std::mt19937_64 rng(34);
  int cheaper = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<LevelFilterShape> levels = RandomShape(rng);
    const double avg = (50 + rng() % 1950) / 100.0;  // 0.5 to 19.99 bits/key.
    absl::StatusOr<FilterAllocation> bloom = AllocateFilterBitsPerKey(levels, avg);
    absl::StatusOr<FilterAllocation> mixed = AllocateFilterBitsPerKey(levels, avg, Mixed());
    ASSERT_TRUE(bloom.ok()) << bloom.status();
    ASSERT_TRUE(mixed.ok()) << mixed.status();
    EXPECT_LE(mixed->expected_cost, bloom->expected_cost * (1 + 1e-9))
        << "trial " << trial << " avg " << avg;
    cheaper += mixed->expected_cost < 0.9 * bloom->expected_cost;
  }
  // Ribbon's ~30% fewer bits for the same FPR should show in most shapes.
  EXPECT_GT(cheaper, 150);
}

TEST(FilterChoiceTest, RibbonTakesTheLastLevelAndCutsTheCostAtTenBitsPerKey) {
  const std::vector<LevelFilterShape> levels = StandardTree();
  absl::StatusOr<FilterAllocation> bloom = AllocateFilterBitsPerKey(levels, 10);
  absl::StatusOr<FilterAllocation> mixed = AllocateFilterBitsPerKey(levels, 10, Mixed());
  absl::StatusOr<FilterAllocation> uniform = UniformFilterAllocation(levels, 10);
  ASSERT_TRUE(bloom.ok() && mixed.ok() && uniform.ok());
  EXPECT_EQ(mixed->levels.back().kind, FilterKind::kRibbon);
  EXPECT_EQ(mixed->levels.back().bits_per_key, mixed->levels.back().ribbon.bits_per_key);
  EXPECT_EQ(mixed->levels.back().num_probes, 0);
  // The targets, in the model: >= 80% fewer false-positive reads
  // than uniform 10 bits/key (budgeted Bloom: ~68%).
  EXPECT_LT(mixed->expected_cost, 0.2 * uniform->expected_cost);
  EXPECT_LT(mixed->expected_cost, bloom->expected_cost);
}

TEST(FilterChoiceTest, BloomOnlyResultsNameTheirKindAndOptions) {
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(StandardTree(), 10);
  ASSERT_TRUE(a.ok());
  for (const LevelFilterAllocation& l : a->levels) {
    ASSERT_EQ(l.kind, FilterKind::kBlockedBloom);
    EXPECT_EQ(l.bloom.bits_per_key, l.bits_per_key);
    EXPECT_EQ(l.bloom.num_probes, l.num_probes);
    EXPECT_GT(l.num_probes, 0);
  }
}

TEST(FilterChoiceTest, StaysWithinBudgetForEveryOption) {
  std::mt19937_64 rng(35);
  for (int trial = 0; trial < 100; ++trial) {
    const std::vector<LevelFilterShape> levels = RandomShape(rng);
    const double budget_bytes = (1 + rng() % 10000) * 100.0;
    FilterBudgetOptions options[4];
    options[1] = Mixed();
    options[2].ribbon_from_level = 1;
    options[3] = Mixed();
    options[3].objective = FilterObjective::kLookupTime;
    for (const FilterBudgetOptions& o : options) {
      absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(levels, budget_bytes, o);
      ASSERT_TRUE(a.ok()) << a.status();
      EXPECT_LE(a->memory_bits, 8 * budget_bytes * (1 + 1e-12)) << "trial " << trial;
      double bits = 0;
      for (size_t i = 0; i < levels.size(); ++i) {
        bits += static_cast<double>(levels[i].num_keys) * a->levels[i].bits_per_key;
      }
      EXPECT_NEAR(bits, a->memory_bits, 1e-6 * bits + 1e-9);
    }
  }
}

TEST(FilterChoiceTest, RibbonFromLevelPutsBloomAboveAndRibbonFromThereDown) {
  const std::vector<LevelFilterShape> levels = StandardTree();
  FilterBudgetOptions o;
  o.ribbon_from_level = 2;
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, 10, o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->levels[0].kind, FilterKind::kBlockedBloom);
  EXPECT_EQ(a->levels[1].kind, FilterKind::kBlockedBloom);
  EXPECT_EQ(a->levels[2].kind, FilterKind::kRibbon);
  EXPECT_EQ(a->levels[3].kind, FilterKind::kRibbon);
  // Uniform bits/key with the same split, as RocksDB's bloom_before_level.
  absl::StatusOr<FilterAllocation> u = UniformFilterAllocation(levels, 10, o);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->levels[1].kind, FilterKind::kBlockedBloom);
  EXPECT_EQ(u->levels[2].kind, FilterKind::kRibbon);
  EXPECT_LT(u->levels[2].fpr, u->levels[1].fpr / 4);  // Ribbon at 10 bits: ~0.1%.
  // From level 0: Ribbon everywhere, even where Bloom would be cheaper.
  o.ribbon_from_level = 0;
  a = AllocateFilterBitsPerKey(levels, 10, o);
  ASSERT_TRUE(a.ok());
  for (const LevelFilterAllocation& l : a->levels) EXPECT_EQ(l.kind, FilterKind::kRibbon);
}

TEST(FilterChoiceTest, RibbonLevelsGetAtLeastItsMinimumOrNothing) {
  // 0.3 bits/key on average: Bloom can use it, Ribbon only by starving a
  // level; a Ribbon level must never be given less than 1.1 bits/key.
  FilterBudgetOptions o;
  o.allow_bloom = false;
  o.allow_ribbon = true;
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(StandardTree(), 0.3, o);
  ASSERT_TRUE(a.ok());
  bool any = false;
  for (const LevelFilterAllocation& l : a->levels) {
    if (l.kind == FilterKind::kNone) {
      EXPECT_EQ(l.bits_per_key, 0);
      EXPECT_EQ(l.fpr, 1);
    } else {
      EXPECT_EQ(l.kind, FilterKind::kRibbon);
      EXPECT_GE(l.bits_per_key, 1.1);
      any = true;
    }
  }
  EXPECT_TRUE(any);
}

TEST(FilterChoiceTest, LookupTimeObjectiveMinimisesTime) {
  const std::vector<LevelFilterShape> levels = StandardTree();
  FilterBudgetOptions reads = Mixed();
  FilterBudgetOptions time = Mixed();
  time.objective = FilterObjective::kLookupTime;
  for (double avg : {2.0, 5.0, 10.0, 16.0}) {
    absl::StatusOr<FilterAllocation> by_reads = AllocateFilterBitsPerKey(levels, avg, reads);
    absl::StatusOr<FilterAllocation> by_time = AllocateFilterBitsPerKey(levels, avg, time);
    ASSERT_TRUE(by_reads.ok() && by_time.ok());
    EXPECT_LE(by_time->expected_time_ns, by_reads->expected_time_ns * (1 + 1e-9)) << avg;
    EXPECT_LE(by_reads->expected_cost, by_time->expected_cost * (1 + 1e-9)) << avg;
  }
}

TEST(FilterChoiceTest, ExpensiveRibbonProbesKeepBloomUnderTheTimeObjective) {
  FilterBudgetOptions o = Mixed();
  o.objective = FilterObjective::kLookupTime;
  o.ribbon_probe_ns = 1000;  // Dearer than any read it could save.
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(StandardTree(), 10, o);
  ASSERT_TRUE(a.ok());
  for (const LevelFilterAllocation& l : a->levels) EXPECT_EQ(l.kind, FilterKind::kBlockedBloom);
  // Free probes: the time objective is the read objective scaled.
  o.ribbon_probe_ns = o.bloom_probe_ns = 0;
  absl::StatusOr<FilterAllocation> t = AllocateFilterBitsPerKey(StandardTree(), 10, o);
  absl::StatusOr<FilterAllocation> r = AllocateFilterBitsPerKey(StandardTree(), 10, Mixed());
  ASSERT_TRUE(t.ok() && r.ok());
  EXPECT_NEAR(t->expected_cost, r->expected_cost, 1e-12);
  EXPECT_NEAR(t->expected_time_ns, t->expected_cost * o.false_positive_read_ns, 1e-9);
}

TEST(FilterChoiceTest, DefaultCostsKeepBloomOnACachedTreeAtTenBitsPerKey) {
  // docs/PERFORMANCE.md's claim: with the measured costs, a Ribbon probe's
  // extra time outweighs the reads it saves on lookup_bench's tree.
  FilterBudgetOptions o = Mixed();
  o.objective = FilterObjective::kLookupTime;
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(StandardTree(), 10, o);
  ASSERT_TRUE(a.ok());
  for (const LevelFilterAllocation& l : a->levels) EXPECT_EQ(l.kind, FilterKind::kBlockedBloom);
  // Reads from storage (100 us) make Ribbon pay in the big last level.
  o.false_positive_read_ns = 100000;
  a = AllocateFilterBitsPerKey(StandardTree(), 10, o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->levels.back().kind, FilterKind::kRibbon);
}

TEST(FilterChoiceTest, MixedNeedsLessMemoryForTheSameReads) {
  const std::vector<LevelFilterShape> levels = StandardTree();
  absl::StatusOr<FilterAllocation> uniform = UniformFilterAllocation(levels, 10);
  ASSERT_TRUE(uniform.ok());
  absl::StatusOr<FilterAllocation> bloom = MinimumFilterMemory(levels, uniform->expected_cost);
  absl::StatusOr<FilterAllocation> mixed =
      MinimumFilterMemory(levels, uniform->expected_cost, Mixed());
  ASSERT_TRUE(bloom.ok() && mixed.ok());
  EXPECT_LE(mixed->expected_cost, uniform->expected_cost);
  EXPECT_LT(mixed->memory_bits, bloom->memory_bits);
  // The target: at most 55% of uniform Bloom's memory.
  EXPECT_LT(mixed->memory_bits, 0.55 * uniform->memory_bits);
}

TEST(FilterChoiceTest, FilterPolicyForBuildsTheKindChosen) {
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(StandardTree(), 10, Mixed());
  ASSERT_TRUE(a.ok());
  for (const LevelFilterAllocation& l : a->levels) {
    absl::StatusOr<std::shared_ptr<const FilterPolicy>> p = FilterPolicyFor(l);
    ASSERT_TRUE(p.ok()) << p.status();
    ASSERT_NE(*p, nullptr);
    EXPECT_EQ(std::string((*p)->Name()), l.kind == FilterKind::kRibbon
                                             ? kRibbonPolicyName
                                             : kBlockedBloomPolicyName);
  }
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> none =
      FilterPolicyFor(LevelFilterAllocation());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST(FilterChoiceTest, RibbonFprIsWhatItsBuilderPlans) {
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(StandardTree(), 10, Mixed());
  ASSERT_TRUE(a.ok());
  for (const LevelFilterAllocation& l : a->levels) {
    if (l.kind != FilterKind::kRibbon) continue;
    absl::StatusOr<RibbonGeometry> g = PlanRibbon(1000000, l.ribbon);
    ASSERT_TRUE(g.ok());
    EXPECT_DOUBLE_EQ(g->predicted_fpr(), l.fpr);
    EXPECT_LE(g->bits_per_key(), l.bits_per_key);
  }
}

TEST(FilterChoiceTest, BadOptionsAreInvalidArgumentNamingWhatIsWrong) {
  const LevelFilterShape good[] = {{1000, 1}};
  auto message = [&](const FilterBudgetOptions& o) {
    absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(good, 1000, o);
    EXPECT_TRUE(absl::IsInvalidArgument(a.status()));
    return std::string(a.status().message());
  };
  FilterBudgetOptions o;
  o.allow_bloom = false;
  EXPECT_NE(message(o).find("no filter kind"), std::string::npos);
  o = FilterBudgetOptions();
  o.ribbon_from_level = -2;
  EXPECT_NE(message(o).find("ribbon_from_level"), std::string::npos);
  o = FilterBudgetOptions();
  o.ribbon_probe_ns = -1;
  EXPECT_NE(message(o).find("ribbon_probe_ns"), std::string::npos);
  o = FilterBudgetOptions();
  o.bloom_probe_ns = NAN;
  EXPECT_NE(message(o).find("bloom_probe_ns"), std::string::npos);
  o = FilterBudgetOptions();
  o.false_positive_read_ns = 0;
  EXPECT_NE(message(o).find("false_positive_read_ns"), std::string::npos);
  // Ribbon's minimum, in the uniform allocation.
  absl::StatusOr<FilterAllocation> u = UniformFilterAllocation(good, 0.5, Mixed());
  EXPECT_TRUE(absl::IsInvalidArgument(u.status()));
  EXPECT_NE(u.status().message().find("Ribbon"), std::string::npos);
  // Bad options fail every entry point, and so does a bad target.
  o = FilterBudgetOptions();
  o.allow_bloom = false;
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterBitsPerKey(good, 10, o).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(UniformFilterAllocation(good, 10, o).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(MinimumFilterMemory(good, 0.01, o).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(MinimumFilterMemory(good, -1, Mixed()).status()));
}

}  // namespace
}  // namespace lsmbloom
