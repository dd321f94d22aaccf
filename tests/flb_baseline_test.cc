// The FastLocalBloom baseline the benchmarks compare against is FLB: its k
// table, its accuracy, and the same answers from its AVX2 and portable
// variants (so a speed comparison compares the same filter).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bench/flb/fast_local_bloom.h"
#include "gtest/gtest.h"
#include "lsmbloom/filter/bloom_math.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace bench {
namespace flb {
namespace {

TEST(FlbBaselineTest, ProbesFollowFlbsTable) {
  const std::pair<int, int> expected[] = {
      {1000, 1},   {2080, 1},   {2081, 2},   {3580, 2},   {5100, 3},   {6640, 4},
      {8000, 5},   {8300, 5},   {10000, 6},  {10070, 6},  {10071, 7},  {11720, 7},
      {14001, 8},  {16000, 9},  {16050, 9},  {18300, 10}, {20000, 11}, {22001, 11},
      {25501, 12}, {30000, 13}, {40000, 18}, {50000, 23}, {50001, 24}};
  for (const auto& [millibits, k] : expected) {
    EXPECT_EQ(ProbesForMillibits(millibits), k) << millibits;
  }
}

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = testutil::SplitMix64(i * 4 + family);
  return h;
}

struct Measured {
  double fpr;
  double bits_per_key;
  int k;
};

Measured MeasureFpr(bool use_avx2, int millibits) {
  constexpr size_t kKeys = 1000000, kAbsent = 4000000;
  const std::vector<uint64_t> present = Hashes(1, kKeys), absent = Hashes(2, kAbsent);
  Filter f = use_avx2 ? avx2::BuildFromHashes(present.data(), kKeys, millibits)
                      : portable::BuildFromHashes(present.data(), kKeys, millibits);
  const size_t found = use_avx2 ? avx2::CountHashes(f, present.data(), kKeys)
                                : portable::CountHashes(f, present.data(), kKeys);
  EXPECT_EQ(found, kKeys) << "a present key was rejected";
  const size_t maybe = use_avx2 ? avx2::CountHashes(f, absent.data(), kAbsent)
                                : portable::CountHashes(f, absent.data(), kAbsent);
  Measured m{static_cast<double>(maybe) / kAbsent, 512.0 * f.num_lines / kKeys, f.num_probes};
  FreeFilter(&f);
  return m;
}

// FLB's positions are as good as independent within a 512-bit line, so the
// blocked model predicts its rate. Tolerance: 4 standard deviations of the
// sample of absent keys plus 3% of the rate for the spread between filters.
void ExpectFlbAccuracy(bool use_avx2) {
  for (int millibits : {8000, 10000, 16000}) {
    const Measured m = MeasureFpr(use_avx2, millibits);
    const double model = BlockedBloomFpr(m.bits_per_key, m.k);
    const double sigma = std::sqrt(model * (1 - model) / 4000000);
    EXPECT_NEAR(m.fpr, model, 4 * sigma + 0.03 * model) << millibits << " millibits/key, k=" << m.k;
    // And within the rates published for FLB.
    if (millibits == 10000) {
      EXPECT_NEAR(m.fpr, 0.0096, 0.0003);
    } else if (millibits == 8000) {
      EXPECT_NEAR(m.fpr, 0.0232, 0.0007);
    } else {
      EXPECT_NEAR(m.fpr, 0.00085, 0.00006);
    }
  }
}

TEST(FlbBaselineTest, PortableVariantHasFlbsAccuracy) { ExpectFlbAccuracy(false); }

TEST(FlbBaselineTest, Avx2VariantHasFlbsAccuracy) {
  if (!Avx2Supported()) GTEST_SKIP() << "this CPU has no AVX2";
  ExpectFlbAccuracy(true);
}

TEST(FlbBaselineTest, VariantsBuildTheSameBitsAndGiveTheSameAnswers) {
  if (!Avx2Supported()) GTEST_SKIP() << "this CPU has no AVX2";
  for (int millibits : {3000, 10000, 20000, 60000}) {  // k = 2, 6, 11, 24
    const std::vector<uint64_t> present = Hashes(1, 50000), absent = Hashes(3, 200000);
    Filter a = avx2::BuildFromHashes(present.data(), present.size(), millibits);
    Filter p = portable::BuildFromHashes(present.data(), present.size(), millibits);
    ASSERT_EQ(a.num_lines, p.num_lines);
    EXPECT_EQ(0, std::memcmp(a.lines, p.lines, size_t{64} * a.num_lines));
    std::vector<uint8_t> from_avx2(absent.size()), from_portable(absent.size());
    for (size_t i = 0; i < absent.size(); i += kMaxBatch) {
      const size_t n = std::min(kMaxBatch, absent.size() - i);
      bool out_a[kMaxBatch], out_p[kMaxBatch];
      avx2::MayMatchBatch(a, &absent[i], n, out_a);
      portable::MayMatchBatch(p, &absent[i], n, out_p);
      for (size_t j = 0; j < n; ++j) {
        from_avx2[i + j] = out_a[j];
        from_portable[i + j] = out_p[j];
      }
    }
    EXPECT_EQ(from_avx2, from_portable) << millibits;
    EXPECT_EQ(avx2::CountHashes(a, absent.data(), absent.size()),
              portable::CountHashes(p, absent.data(), absent.size()));
    FreeFilter(&a);
    FreeFilter(&p);
  }
}

}  // namespace
}  // namespace flb
}  // namespace bench
}  // namespace lsmbloom
