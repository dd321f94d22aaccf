// BlockedBloomReader::MayMatchHash called from code compiled for AVX2
// (bench/avx2_call_site.cc, built with -mavx2) inlines its probe instead of
// calling the dispatched kernel; it must give the reference's answer for
// every k, and never reject an added key. (The AVX-512 probe it would inline
// under -mavx512f is the one the AVX-512 kernels use, tested on that target by
// simd_targets_test and blocked_bloom_inl_test.)

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/avx2_call_site.h"
#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "src/filter/reference_kernels.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

bool CpuRunsThisFile() { return __builtin_cpu_supports("avx2"); }

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = testing::SplitMix64(i * 7919 + family);
  return hashes;
}

TEST(InlineReaderProbeTest, AnswersLikeTheReferenceForEveryK) {
  if (!CpuRunsThisFile()) GTEST_SKIP() << "this CPU lacks AVX2";
  const std::vector<uint64_t> present = Hashes(1, 4000);
  const std::vector<uint64_t> absent = Hashes(2, 40000);
  for (int k = 1; k <= 16; ++k) {
    for (double bits_per_key : {2.0, 10.0}) {  // 2 bits/key: many "maybe"s.
      BlockedBloomOptions options;
      options.num_probes = k;
      options.bits_per_key = bits_per_key;
      auto builder = BlockedBloomBuilder::Create(options);
      ASSERT_TRUE(builder.ok());
      for (uint64_t h : present) builder->AddHash(h);
      const std::string filter = *builder->Finish();
      auto reader = BlockedBloomReader::Open(filter);
      ASSERT_TRUE(reader.ok());
      const auto* bits = reinterpret_cast<const uint8_t*>(reader->bits().data());
      size_t mismatches = 0, maybes = 0, rejected = 0;
      std::unique_ptr<bool[]> out(new bool[absent.size()]);
      bench::ProbeHashesAvx2Site(*reader, absent.data(), absent.size(), out.get());
      for (size_t i = 0; i < absent.size(); ++i) {
        const bool expected =
            internal::ReferenceProbe(bits, reader->geometry().num_blocks, k, absent[i]);
        maybes += expected;
        mismatches += out[i] != expected;
      }
      bench::ProbeHashesAvx2Site(*reader, present.data(), present.size(), out.get());
      for (size_t i = 0; i < present.size(); ++i) rejected += !out[i];
      EXPECT_EQ(mismatches, 0u) << "k=" << k << " bits/key=" << bits_per_key;
      EXPECT_EQ(rejected, 0u) << "k=" << k;
      EXPECT_GT(maybes, 0u);
      EXPECT_LT(maybes, absent.size());
    }
  }
}

TEST(InlineReaderProbeTest, EmptyFilterRejectsEverything) {
  if (!CpuRunsThisFile()) GTEST_SKIP() << "this CPU lacks AVX2";
  auto builder = BlockedBloomBuilder::Create();
  ASSERT_TRUE(builder.ok());
  const std::string filter = *builder->Finish();
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  const std::vector<uint64_t> hashes = Hashes(3, 100);
  EXPECT_EQ(bench::CountHashesAvx2Site(*reader, hashes.data(), hashes.size()), 0u);
}

}  // namespace
}  // namespace lsmbloom
