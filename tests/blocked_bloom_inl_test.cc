// The inlinable prober of lsmbloom/filter/blocked_bloom-inl.h, compiled once per
// SIMD target into a caller's loop as a caller would (bench/inline_loops.cc),
// answers like the scalar reference on every target the CPU runs, for every
// k.

#include <memory>
#include <string>
#include <vector>

#include "bench/inline_loops.h"
#include "gtest/gtest.h"
#include "lsmbloom/filter/simd.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

class BlockedBloomInlTest : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(PinSimdTarget("best").ok()); }
};

std::string Build(const std::vector<uint64_t>& hashes, int k, double bits) {
  BlockedBloomOptions options;
  options.num_probes = k;
  options.bits_per_key = bits;
  auto builder = BlockedBloomBuilder::Create(options);
  for (uint64_t h : hashes) builder->AddHash(h);
  return *builder->Finish();
}

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = testutil::SplitMix64(i * 7919 + family);
  return hashes;
}

TEST_F(BlockedBloomInlTest, InlinedProbeAnswersLikeTheReferenceOnEveryTarget) {
  const std::vector<uint64_t> present = Hashes(1, 3000), absent = Hashes(2, 30000);
  for (int k = 1; k <= 16; ++k) {
    const std::string filter = Build(present, k, 3.0);  // Many "maybe"s.
    auto reader = BlockedBloomReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    const BlockedBloomView view = reader->view();
    for (const std::string& target : AvailableSimdTargets()) {
      ASSERT_TRUE(PinSimdTarget(target).ok());
      std::unique_ptr<bool[]> answers(new bool[absent.size()]);
      bench::ProbeHashesInline(view, absent.data(), absent.size(), answers.get());
      size_t mismatches = 0, maybes = 0;
      for (size_t i = 0; i < absent.size(); ++i) {
        const bool expected = internal::ReferenceProbe(view.bits, view.num_blocks, k, absent[i]);
        maybes += expected;
        mismatches += answers[i] != expected;
      }
      std::unique_ptr<bool[]> found(new bool[present.size()]);
      bench::ProbeHashesInline(view, present.data(), present.size(), found.get());
      size_t misses = 0;
      for (size_t i = 0; i < present.size(); ++i) misses += !found[i];
      EXPECT_EQ(mismatches, 0u) << target << " k=" << k;
      EXPECT_EQ(misses, 0u) << target << " k=" << k;
      EXPECT_GT(maybes, 0u);
      EXPECT_LT(maybes, absent.size());
    }
  }
}

TEST_F(BlockedBloomInlTest, EmptyFilterMatchesNothing) {
  const std::string filter = Build({}, 6, 10);
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  const std::vector<uint64_t> probes = Hashes(3, 100);
  for (const std::string& target : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(target).ok());
    std::unique_ptr<bool[]> out(new bool[probes.size()]);
    bench::ProbeHashesInline(reader->view(), probes.data(), probes.size(), out.get());
    for (size_t i = 0; i < probes.size(); ++i) EXPECT_FALSE(out[i]) << target;
  }
}

}  // namespace
}  // namespace lsmbloom
