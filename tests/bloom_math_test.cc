#include "lsmbloom/filter/bloom_math.h"

#include <cmath>

#include "gtest/gtest.h"

namespace lsmbloom {
namespace {

TEST(BloomMathTest, MeanFillModelAtTenBitsPerKeyIsPointNineFiveSevenPercent) {
  EXPECT_NEAR(BlockedBloomFprMeanFill(10.0, 7), 0.009571, 0.000005);
}

TEST(BloomMathTest, ExactModelIsWithinTwoPercentOfMeanFillAtTenBitsPerKey) {
  const int k = OptimalBlockedProbes(10.0);
  const double exact = BlockedBloomFpr(10.0, k);
  EXPECT_GE(exact, BlockedBloomFprMeanFill(10.0, 7));
  EXPECT_LE(exact, 1.02 * BlockedBloomFprMeanFill(10.0, 7));
}

TEST(BloomMathTest, ExactModelNeverBelowMeanFill) {
  for (double b : {4.0, 8.0, 10.0, 16.0, 24.0}) {
    for (int k = 1; k <= kMaxProbesPerKey; ++k) {
      EXPECT_GE(BlockedBloomFpr(b, k), BlockedBloomFprMeanFill(b, k) * (1 - 1e-12))
          << b << " " << k;
    }
  }
}

TEST(BloomMathTest, ExactModelWithOneProbeIsTheMeanFill) {
  // With k = 1 the expectation of X/B is linear: no Jensen gap.
  EXPECT_NEAR(BlockedBloomFpr(10.0, 1), BlockedBloomFprMeanFill(10.0, 1), 1e-12);
}

TEST(BloomMathTest, ExactModelMatchesBruteForceOnATinyBlock) {
  // B = 16 bits, load exactly known: compare the Poisson mixture against a
  // direct sum of the same mixture computed by enumeration of fill states.
  // Instead of enumerating, check a closed case: k = 2, where
  // E[(X/B)^2] = E[X]/B^2 + E[X(X-1)]/B^2 and both moments have closed forms.
  const double B = 16, b = 4;  // mean load 4
  const int k = 2;
  auto pois = [](double mean, int l) {
    return std::exp(-mean + l * std::log(mean) - std::lgamma(l + 1.0));
  };
  double expect = 0;
  for (int l = 0; l < 80; ++l) {
    const double t = k * l;
    const double ex = B * (1 - std::pow(1 - 1 / B, t));
    const double exx = B * (B - 1) * (1 - 2 * std::pow(1 - 1 / B, t) + std::pow(1 - 2 / B, t));
    expect += pois(B / b, l) * (ex + exx) / (B * B);
  }
  EXPECT_NEAR(BlockedBloomFpr(b, k, 16), expect, 1e-12);
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
    for (int other = 1; other <= kMaxProbesPerKey; ++other) {
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
