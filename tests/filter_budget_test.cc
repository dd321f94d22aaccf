#include "lsmbloom/lookup/filter_budget.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/bloom_math.h"

namespace lsmbloom {
namespace {

// The model's FPR at i/100 bits/key (i = 0: no filter), through the public
// API, so the brute force below searches the same curve.
const std::vector<double>& FprTable() {
  static const std::vector<double>* table = [] {
    auto* t = new std::vector<double>(3001, 1.0);
    const LevelFilterShape one[] = {{1000, 1}};
    for (int i = 10; i <= 3000; ++i) {
      (*t)[i] = UniformFilterAllocation(one, i / 100.0)->levels[0].fpr;
    }
    return t;
  }();
  return *table;
}

// The largest grid point (hundredths of a bit/key, 0 or >= 10) affordable
// with `bits` for `keys` keys.
int Affordable(double bits, uint64_t keys) {
  if (bits < 0) return -1;
  const int p = std::min(3000, static_cast<int>(std::floor(bits / keys * 100 + 1e-9)));
  return p < 10 ? 0 : p;
}

// Best cost over every split of the budget on the grid: the first levels
// stepped by `step` hundredths, the last one taking what is left.
double BruteForce(const std::vector<LevelFilterShape>& levels, double budget_bits, int step) {
  const auto& f = FprTable();
  double best = 1e300;
  std::vector<int> points(levels.size(), 0);
  std::function<void(size_t, double, double)> walk = [&](size_t i, double left, double cost) {
    if (i + 1 == levels.size()) {
      const int p = Affordable(left, levels[i].num_keys);
      if (p >= 0) best = std::min(best, cost + levels[i].checks * f[p]);
      return;
    }
    for (int p = 0; p <= 3000; p = (p == 0 ? 10 : p + step)) {
      const double spent = levels[i].num_keys * (p / 100.0);
      if (spent > left) break;
      walk(i + 1, left - spent, cost + levels[i].checks * f[p]);
    }
  };
  walk(0, budget_bits, 0);
  return best;
}

TEST(FilterBudgetTest, TwoLevelsWithinAFractionOfAPercentOfBruteForce) {
  const std::vector<std::vector<LevelFilterShape>> shapes = {
      {{100000, 1}, {1000000, 1}},
      {{60000, 6}, {1000000, 1}},
      {{500000, 1}, {600000, 1}},
      {{1000, 4}, {10000000, 1}},
  };
  for (const auto& levels : shapes) {
    for (double avg : {1.0, 3.0, 6.0, 10.0, 16.0}) {
      double keys = 0;
      for (const auto& l : levels) keys += l.num_keys;
      const double budget_bits = keys * avg;
      absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(levels, budget_bits / 8);
      ASSERT_TRUE(a.ok()) << a.status();
      EXPECT_LE(a->memory_bits, budget_bits * (1 + 1e-12));
      const double brute = BruteForce(levels, budget_bits, 1);
      EXPECT_LE(a->expected_cost, brute * 1.005 + 1e-12)
          << "n0=" << levels[0].num_keys << " avg=" << avg;
    }
  }
}

TEST(FilterBudgetTest, ThreeLevelsWithinOnePercentOfBruteForce) {
  const std::vector<std::vector<LevelFilterShape>> shapes = {
      {{10000, 1}, {100000, 1}, {1000000, 1}},
      {{60000, 6}, {300000, 1}, {1000000, 1}},
      {{2000, 1}, {50000, 1}, {60000, 1}},
  };
  for (const auto& levels : shapes) {
    for (double avg : {2.0, 8.0, 12.0}) {
      double keys = 0;
      for (const auto& l : levels) keys += l.num_keys;
      const double budget_bits = keys * avg;
      absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(levels, budget_bits / 8);
      ASSERT_TRUE(a.ok()) << a.status();
      EXPECT_LE(a->memory_bits, budget_bits * (1 + 1e-12));
      const double brute = BruteForce(levels, budget_bits, 5);
      EXPECT_LE(a->expected_cost, brute * 1.01 + 1e-12) << "avg=" << avg;
    }
  }
}

TEST(FilterBudgetTest, NeverWorseThanUniformAtEqualMemory) {
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<LevelFilterShape> levels;
    const int num_levels = 2 + rng() % 6;
    for (int i = 0; i < num_levels; ++i) {
      const double checks = (i == 0) ? 1 + rng() % 8 : 1;
      const uint64_t keys = static_cast<uint64_t>(std::pow(10.0, 2 + (rng() % 700) / 100.0));
      levels.push_back({keys, checks});
    }
    const double bits = (10 + rng() % 2000) / 100.0;  // 0.1 to 20.09
    absl::StatusOr<FilterAllocation> uniform = UniformFilterAllocation(levels, bits);
    ASSERT_TRUE(uniform.ok()) << uniform.status();
    absl::StatusOr<FilterAllocation> budgeted =
        AllocateFilterMemory(levels, uniform->memory_bits / 8);
    ASSERT_TRUE(budgeted.ok()) << budgeted.status();
    EXPECT_LE(budgeted->memory_bits, uniform->memory_bits * (1 + 1e-12));
    EXPECT_LE(budgeted->expected_cost, uniform->expected_cost * (1 + 1e-9))
        << "trial " << trial << " bits " << bits;
  }
}

TEST(FilterBudgetTest, InverseRoundTrips) {
  const std::vector<std::vector<LevelFilterShape>> shapes = {
      {{60000, 6}, {100000, 1}, {300000, 1}, {1000000, 1}},
      {{1000, 4}, {10000, 1}, {100000, 1}, {1000000, 1}, {10000000, 1}},
      {{500000, 1}},
  };
  for (const auto& levels : shapes) {
    for (double avg : {2.0, 5.0, 10.0, 20.0}) {
      absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, avg);
      ASSERT_TRUE(a.ok()) << a.status();
      absl::StatusOr<FilterAllocation> inverse = MinimumFilterMemory(levels, a->expected_cost);
      ASSERT_TRUE(inverse.ok()) << inverse.status();
      EXPECT_LE(inverse->expected_cost, a->expected_cost);
      // Least memory: no more than the budget that reached this cost, and
      // not much less either (less would have been found by the forward
      // direction).
      EXPECT_LE(inverse->memory_bits, a->memory_bits * 1.002) << avg;
      EXPECT_GE(inverse->memory_bits, a->memory_bits * 0.99) << avg;
    }
  }
}

TEST(FilterBudgetTest, OneLevelGetsTheUniformBitsPerKey) {
  const LevelFilterShape one[] = {{1000000, 1}};
  for (double avg : {4.0, 10.0, 17.5}) {
    absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(one, avg);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_NEAR(a->levels[0].bits_per_key, avg, 0.011);
    EXPECT_EQ(a->levels[0].num_probes, OptimalBlockedProbes(a->levels[0].bits_per_key));
  }
}

TEST(FilterBudgetTest, ProbesAreWhatTheBuilderPicks) {
  const LevelFilterShape levels[] = {{1000, 8}, {100000, 1}, {10000000, 1}};
  for (double avg : {1.0, 3.0, 7.0, 11.0, 25.0}) {
    absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, avg);
    ASSERT_TRUE(a.ok()) << a.status();
    for (const LevelFilterAllocation& l : a->levels) {
      if (l.bits_per_key == 0) {
        EXPECT_EQ(l.num_probes, 0);
        EXPECT_EQ(l.fpr, 1.0);
        continue;
      }
      EXPECT_EQ(l.num_probes, OptimalBlockedProbes(l.bits_per_key)) << l.bits_per_key;
      EXPECT_DOUBLE_EQ(l.fpr, BlockedBloomFpr(l.bits_per_key, l.num_probes));
    }
  }
}

TEST(FilterBudgetTest, ProbesMatchTheBuilderAcrossTheWholeRange) {
  const LevelFilterShape one[] = {{100000, 1}};
  for (double avg = 0.1; avg <= 30; avg += 0.173) {
    absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(one, avg);
    ASSERT_TRUE(a.ok()) << a.status();
    const LevelFilterAllocation& l = a->levels[0];
    if (l.bits_per_key == 0) continue;
    EXPECT_EQ(l.num_probes, OptimalBlockedProbes(l.bits_per_key)) << l.bits_per_key;
  }
}

TEST(FilterBudgetTest, HugeBudgetMakesTheCostTiny) {
  const LevelFilterShape levels[] = {{1000, 4}, {100000, 1}, {10000000, 1}};
  absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(levels, 1e12);
  ASSERT_TRUE(a.ok()) << a.status();
  for (const LevelFilterAllocation& l : a->levels) EXPECT_EQ(l.bits_per_key, 30.0);
  EXPECT_LT(a->expected_cost, 1e-4);
}

TEST(FilterBudgetTest, TinyBudgetGoesToTheSmallLevelsFirst) {
  const LevelFilterShape levels[] = {{1000, 4}, {100000, 1}, {10000000, 1}};
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, 0.5);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_GT(a->levels[0].bits_per_key, 10);
  EXPECT_GT(a->levels[1].bits_per_key, 5);
  EXPECT_LT(a->levels[2].bits_per_key, 0.5);
  EXPECT_GE(a->levels[0].bits_per_key, a->levels[1].bits_per_key);
  // Uniform 0.5 bits/key barely filters; the same memory in the small
  // levels removes nearly all of their false positives.
  EXPECT_LT(a->expected_cost, UniformFilterAllocation(levels, 0.5)->expected_cost - 4);
}

TEST(FilterBudgetTest, StaysWithinBudgetForExtremeChecksPerKey) {
  const LevelFilterShape levels[] = {{1, 1e9}, {1000000000000, 1}};
  for (double bytes : {0.01, 1.0, 1e3, 1e9}) {
    absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(levels, bytes);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_LE(a->memory_bits, 8 * bytes * (1 + 1e-12)) << bytes;
  }
}

TEST(FilterBudgetTest, LevelsWithoutKeysOrChecksGetNothing) {
  const LevelFilterShape levels[] = {{0, 3}, {50000, 0}, {100000, 1}};
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, 10);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->levels[0].bits_per_key, 0);
  EXPECT_EQ(a->levels[1].bits_per_key, 0);
  // The budget counts only the keys lookups check: level 2's.
  EXPECT_EQ(a->levels[2].bits_per_key, 10.0);
}

TEST(FilterBudgetTest, ExpectedCostMatchesTheAllocation) {
  const LevelFilterShape levels[] = {{60000, 6}, {300000, 1}, {1000000, 1}};
  absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, 10);
  ASSERT_TRUE(a.ok()) << a.status();
  std::vector<double> bits;
  for (const auto& l : a->levels) bits.push_back(l.bits_per_key);
  EXPECT_NEAR(ExpectedFalsePositiveReads(levels, bits), a->expected_cost, 1e-12);
}

TEST(FilterBudgetTest, BadInputIsInvalidArgument) {
  const LevelFilterShape good[] = {{1000, 1}};
  const LevelFilterShape no_keys[] = {{0, 1}, {0, 2}};
  const LevelFilterShape negative[] = {{1000, -1}};
  const LevelFilterShape not_finite[] = {{1000, NAN}};
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory({}, 100).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory(no_keys, 100).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory(negative, 100).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory(not_finite, 100).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory(good, 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory(good, -5).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterMemory(good, INFINITY).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(AllocateFilterBitsPerKey(good, 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(UniformFilterAllocation(good, 0.05).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(UniformFilterAllocation(good, 31).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(MinimumFilterMemory(good, 0).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(MinimumFilterMemory(good, 1e-12).status()));
}

}  // namespace
}  // namespace lsmbloom
