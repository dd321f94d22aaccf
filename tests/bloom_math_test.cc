#include "lsmbloom/bloom_math.h"

#include "gtest/gtest.h"

namespace lsmbloom {
namespace {

TEST(BloomMathTest, BlockedModelAtTenBitsPerKeyIsPointNineFiveSevenPercent) {
  EXPECT_EQ(OptimalBlockedProbes(10.0), 7);
  EXPECT_NEAR(BlockedBloomFpr(10.0, 7), 0.009571, 0.000005);
}

TEST(BloomMathTest, StandardFormulaUnderestimatesBlockedFilters) {
  for (double b : {6.0, 8.0, 10.0, 12.0, 16.0, 20.0}) {
    const int k = OptimalBlockedProbes(b);
    EXPECT_GT(BlockedBloomFpr(b, k), StandardBloomFpr(b, k)) << b;
  }
}

TEST(BloomMathTest, OptimalProbesMinimiseTheBlockedModel) {
  for (double b : {4.0, 6.0, 8.0, 9.6, 10.0, 12.0, 16.0, 20.0, 24.0}) {
    const int k = OptimalBlockedProbes(b);
    const double best = BlockedBloomFpr(b, k);
    for (int other = 1; other <= kMaxProbes; ++other) {
      EXPECT_LE(best, BlockedBloomFpr(b, other)) << b << " " << other;
    }
  }
}

TEST(BloomMathTest, BitsPerKeyForFprMeetsTheTargetAndIsTight) {
  for (double target : {0.1, 0.01, 0.001, 0.0001}) {
    const double b = BitsPerKeyForFpr(target);
    EXPECT_LE(BlockedBloomFpr(b, OptimalBlockedProbes(b)), target);
    const double less = b - 0.01;
    EXPECT_GT(BlockedBloomFpr(less, OptimalBlockedProbes(less)), target) << b;
  }
}

}  // namespace
}  // namespace lsmbloom
