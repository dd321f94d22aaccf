// The measured false-positive rate against the blocked model (the exact one
// of bloom_math.h; the mean-fill lower bound is printed beside it).
//
// For each bits/key we build a filter of 1,000,000 keys and probe keys of a
// disjoint family, so every "maybe" is a false positive. The sample is sized
// for at least 40,000 expected false positives (at most 10^8 probes). The
// count is binomial: with p the model's FPR and N probes its standard
// deviation is sqrt(N p (1-p)). The test passes when the measured rate is
// within 2% of the model plus four standard deviations of sampling noise:
//   |measured - p| <= 0.02 p + 4 sqrt(p (1-p) / N).
// A blocked filter cannot beat the model by much either, so the bound is
// two-sided: an FPR far below it would mean the model or the test is wrong.

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/bloom_math.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

using testutil::KeyShape;
using testutil::MakeKey;

constexpr uint64_t kKeys = 1000000;

struct FprCase {
  double bits_per_key;
  KeyShape shape;
};

class BlockedBloomFprTest : public ::testing::TestWithParam<FprCase> {};

TEST_P(BlockedBloomFprTest, MeasuredFprOfAbsentKeysMatchesBlockedModel) {
  const FprCase c = GetParam();
  BlockedBloomOptions options;
  options.bits_per_key = c.bits_per_key;
  auto builder = BlockedBloomBuilder::Create(options);
  ASSERT_TRUE(builder.ok());
  for (uint64_t i = 0; i < kKeys; ++i) builder->AddKey(MakeKey(c.shape, 1, i));
  absl::StatusOr<std::string> filter = builder->Finish();
  ASSERT_TRUE(filter.ok()) << filter.status();
  auto reader = BlockedBloomReader::Open(*filter);
  ASSERT_TRUE(reader.ok()) << reader.status();

  const double p = reader->geometry().predicted_fpr();
  const uint64_t probes =
      std::min<uint64_t>(100000000, static_cast<uint64_t>(std::ceil(40000 / p)));
  // Probe in batches: hashing dominates, and batches exercise the SIMD path.
  constexpr size_t kBatch = 4096;
  std::vector<uint64_t> hashes(kBatch);
  bool answers[kBatch];
  uint64_t false_positives = 0;
  for (uint64_t done = 0; done < probes; done += kBatch) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBatch, probes - done));
    for (size_t j = 0; j < n; ++j) {
      hashes[j] = KeyHash(MakeKey(c.shape, 2, done + j));
    }
    reader->MayMatchBatch(absl::MakeConstSpan(hashes.data(), n), absl::MakeSpan(answers, n));
    for (size_t j = 0; j < n; ++j) false_positives += answers[j];
  }
  const double measured = static_cast<double>(false_positives) / probes;
  const double sigma = std::sqrt(p * (1 - p) / probes);
  const double tolerance = 0.02 * p + 4 * sigma;
  const double mean_fill =
      BlockedBloomFprMeanFill(reader->geometry().bits_per_key(), reader->geometry().num_probes);
  std::printf(
      "%-18s %4.1f bits/key k=%2d: measured %.5f%%, model %.5f%% "
      "(%+.2f%%, tolerance %.2f%%), mean-fill bound %.5f%% (%+.2f%%), "
      "%llu absent keys\n",
      testutil::ShapeName(c.shape), c.bits_per_key, reader->geometry().num_probes, 100 * measured,
      100 * p, 100 * (measured - p) / p, 100 * tolerance / p, 100 * mean_fill,
      100 * (measured - mean_fill) / mean_fill, static_cast<unsigned long long>(probes));
  EXPECT_NEAR(measured, p, tolerance);
  // And the model itself is the blocked optimum at this bits/key.
  EXPECT_EQ(reader->geometry().num_probes, OptimalBlockedProbes(c.bits_per_key));
}

std::vector<FprCase> AllCases() {
  std::vector<FprCase> cases;
  for (double b : {6.0, 8.0, 10.0, 12.0, 16.0, 20.0}) {
    cases.push_back({b, KeyShape::kRandom16});
  }
  for (KeyShape shape : {KeyShape::kBigEndianCounter, KeyShape::kSharedPrefix}) {
    cases.push_back({10.0, shape});
    cases.push_back({16.0, shape});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(BitsPerKey, BlockedBloomFprTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<FprCase>& info) {
                           return std::string(testutil::ShapeName(info.param.shape)) + "_" +
                                  std::to_string(static_cast<int>(info.param.bits_per_key)) +
                                  "_bits";
                         });

}  // namespace
}  // namespace lsmbloom
