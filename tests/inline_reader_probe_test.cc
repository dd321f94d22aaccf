// BlockedBloomReader::MayMatchHash compiled for AVX2 or AVX-512 (this file is
// built twice, with -mavx2 and with -mavx512f) inlines its probe instead of
// calling the dispatched kernel; it must give the reference's answer for
// every k, and never reject an added key.

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "src/filter/reference_kernels.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

#if !defined(LSMBLOOM_HAVE_X86_PROBES) || !(defined(__AVX2__) || defined(__AVX512F__))
#error "built to test the inlined probe: compile with -mavx2 or -mavx512f on x86"
#endif

bool CpuRunsThisFile() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#else
  return __builtin_cpu_supports("avx2");
#endif
}

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = testing::SplitMix64(i * 7919 + family);
  return hashes;
}

TEST(InlineReaderProbeTest, AnswersLikeTheReferenceForEveryK) {
  if (!CpuRunsThisFile()) GTEST_SKIP() << "this CPU lacks the instructions compiled in";
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
      for (uint64_t h : absent) {
        const bool expected =
            internal::ReferenceProbe(bits, reader->geometry().num_blocks, k, h);
        maybes += expected;
        mismatches += reader->MayMatchHash(h) != expected;
      }
      for (uint64_t h : present) rejected += !reader->MayMatchHash(h);
      EXPECT_EQ(mismatches, 0u) << "k=" << k << " bits/key=" << bits_per_key;
      EXPECT_EQ(rejected, 0u) << "k=" << k;
      EXPECT_GT(maybes, 0u);
      EXPECT_LT(maybes, absent.size());
    }
  }
}

TEST(InlineReaderProbeTest, EmptyFilterRejectsEverything) {
  auto builder = BlockedBloomBuilder::Create();
  ASSERT_TRUE(builder.ok());
  const std::string filter = *builder->Finish();
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  for (uint64_t h : Hashes(3, 100)) EXPECT_FALSE(reader->MayMatchHash(h));
}

}  // namespace
}  // namespace lsmbloom
