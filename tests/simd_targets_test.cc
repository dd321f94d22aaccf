// Every compiled SIMD target writes the same bytes and gives the same answers
// as the scalar reference, for every k, for filters built on one target
// and read on another, and with two threads probing one reader.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/simd.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "src/filter/blocked/blocked_bloom_kernels.h"
#include "src/filter/simd_dispatch.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

class SimdTargetsTest : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(PinSimdTarget("best").ok()); }
};

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) {
    hashes[i] = testutil::SplitMix64(i * 1000003 + family);
  }
  return hashes;
}

std::string Build(const std::vector<uint64_t>& hashes, int k, double bits) {
  BlockedBloomOptions options;
  options.num_probes = k;
  options.bits_per_key = bits;
  auto builder = BlockedBloomBuilder::Create(options);
  for (uint64_t h : hashes) builder->AddHash(h);
  return *builder->Finish();
}

TEST_F(SimdTargetsTest, EveryCompiledTargetTheCpuRunsIsTested) {
  const std::vector<std::string> names = AvailableSimdTargets();
  EXPECT_EQ(names.size(), hwy::SupportedAndGeneratedTargets().size());
  // The portable fallback: "scalar" with GCC < 12.3, "emu128" otherwise.
  ASSERT_FALSE(names.empty());
  EXPECT_TRUE(names.back() == "scalar" || names.back() == "emu128") << names.back();
#if HWY_ARCH_X86_64
  // x86-64 always has SSSE3-or-better hardware in practice; make sure the
  // SIMD kernels are really in the binary, not only the scalar fallback.
  EXPECT_GE(names.size(), 2u);
#endif
  for (const std::string& name : names) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    EXPECT_EQ(ActiveSimdTarget(), name);
  }
}

TEST_F(SimdTargetsTest, UnknownOrUnsupportedTargetIsAClearError) {
  const absl::Status s = PinSimdTarget("avx9000");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown"), std::string::npos);
  EXPECT_NE(s.message().find("available"), std::string::npos);
}

TEST_F(SimdTargetsTest, AllTargetsBuildReferenceBytesForEveryK) {
  const std::vector<uint64_t> hashes = Hashes(1, 20000);
  for (int k = 1; k <= 16; ++k) {
    // Reference: the same geometry, bits set by the scalar reference.
    const std::string built_best = Build(hashes, k, 10);
    auto reader = BlockedBloomReader::Open(built_best);
    ASSERT_TRUE(reader.ok());
    std::string reference_bits(reader->geometry().bit_bytes(), '\0');
    internal::ReferenceAdd(reinterpret_cast<uint8_t*>(&reference_bits[0]),
                           reader->geometry().num_blocks, k, hashes.data(), hashes.size());
    for (const std::string& name : AvailableSimdTargets()) {
      ASSERT_TRUE(PinSimdTarget(name).ok());
      const std::string built = Build(hashes, k, 10);
      EXPECT_EQ(built.substr(64), reference_bits) << name << " k=" << k;
      EXPECT_EQ(built, built_best) << name << " k=" << k;
    }
  }
}

TEST_F(SimdTargetsTest, AllTargetsAnswerLikeTheReferenceSingleAndBatched) {
  const std::vector<uint64_t> present = Hashes(2, 5000);
  const std::vector<uint64_t> absent = Hashes(3, 50000);
  for (int k : {1, 2, 4, 5, 6, 7, 8, 9, 12, 15, 16}) {
    for (double bits : {2.0, 10.0}) {  // 2 bits/key: many "maybe"s to compare.
      // Built on the portable fallback...
      ASSERT_TRUE(PinSimdTarget(AvailableSimdTargets().back()).ok());
      const std::string filter = Build(present, k, bits);
      for (const std::string& name : AvailableSimdTargets()) {
        ASSERT_TRUE(PinSimdTarget(name).ok());  // ...read on every target.
        auto reader = BlockedBloomReader::Open(filter);
        ASSERT_TRUE(reader.ok());
        const uint8_t* bits_ptr = reinterpret_cast<const uint8_t*>(reader->bits().data());
        const uint64_t blocks = reader->geometry().num_blocks;
        std::unique_ptr<bool[]> batch(new bool[absent.size()]);
        reader->MayMatchBatch(absent, absl::MakeSpan(batch.get(), absent.size()));
        size_t mismatches = 0, maybes = 0;
        for (size_t i = 0; i < absent.size(); ++i) {
          const bool expected = internal::ReferenceProbe(bits_ptr, blocks, k, absent[i]);
          maybes += expected;
          mismatches += reader->MayMatchHash(absent[i]) != expected;
          mismatches += batch[i] != expected;
        }
        for (uint64_t h : present) mismatches += !reader->MayMatchHash(h);
        EXPECT_EQ(mismatches, 0u) << name << " k=" << k << " bits=" << bits;
        EXPECT_GT(maybes, 0u);
        EXPECT_LT(maybes, absent.size());
      }
    }
  }
}

// Filters of different k and sizes, and an empty one, kept open: for the
// kernels that probe many filters in one call.
struct MixedFilters {
  explicit MixedFilters(uint64_t family) {
    for (int k : {1, 3, 6, 9, 16}) bytes.push_back(Build(Hashes(family + k, 2000 * k), k, 2.0));
    bytes.push_back(Build({}, 6, 10));
    for (const std::string& f : bytes) readers.push_back(*BlockedBloomReader::Open(f));
    for (const BlockedBloomReader& r : readers) views.push_back(r.view());
  }
  std::vector<std::string> bytes;
  std::vector<BlockedBloomReader> readers;
  std::vector<BlockedBloomView> views;
};

bool ReferenceAnswer(const BlockedBloomView& v, uint64_t hash) {
  return v.num_blocks != 0 && internal::ReferenceProbe(v.bits, v.num_blocks, v.num_probes, hash);
}

TEST_F(SimdTargetsTest, ProbeEachAnswersLikeEachFiltersReferenceOnEveryTarget) {
  // Every filter probed with one hash.
  const MixedFilters filters(10);
  const std::vector<BlockedBloomView>& views = filters.views;
  std::vector<const BlockedBloomView*> pointers;
  for (const BlockedBloomView& v : views) pointers.push_back(&v);
  const std::vector<uint64_t> probes = Hashes(99, 5000);
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    size_t mismatches = 0, maybes = 0;
    for (uint64_t h : probes) {
      bool out[8];
      BlockedBloomProbeEach(pointers, h, absl::MakeSpan(out, pointers.size()));
      for (size_t i = 0; i < views.size(); ++i) {
        const bool expected = ReferenceAnswer(views[i], h);
        maybes += expected;
        mismatches += out[i] != expected;
      }
    }
    EXPECT_EQ(mismatches, 0u) << name;
    EXPECT_GT(maybes, 0u);
  }
}

TEST_F(SimdTargetsTest, ProbePairsAnswersLikeEachFiltersReferenceOnEveryTarget) {
  // Pairs as a lookup batch makes them (runs of one hash against several
  // filters) and single pairs, more of them than one prefetch window holds.
  const MixedFilters filters(20);
  const std::vector<BlockedBloomView>& views = filters.views;
  std::vector<const BlockedBloomView*> pair_views;
  std::vector<uint64_t> pair_hashes;
  const std::vector<uint64_t> keys = Hashes(77, 3000);
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t run = i % 7 == 0 ? views.size() : 1 + i % 3;
    for (size_t j = 0; j < run; ++j) {
      pair_views.push_back(&views[(i + j) % views.size()]);
      pair_hashes.push_back(keys[i]);
    }
  }
  const size_t n = pair_views.size();
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    std::unique_ptr<bool[]> out(new bool[n]);
    BlockedBloomProbePairs(absl::MakeConstSpan(pair_views.data(), n), absl::MakeConstSpan(pair_hashes.data(), n), absl::MakeSpan(out.get(), n));
    size_t mismatches = 0, maybes = 0;
    for (size_t p = 0; p < n; ++p) {
      const bool expected = ReferenceAnswer(*pair_views[p], pair_hashes[p]);
      maybes += expected;
      mismatches += out[p] != expected;
    }
    EXPECT_EQ(mismatches, 0u) << name;
    EXPECT_GT(maybes, 0u);
    EXPECT_LT(maybes, n);
  }
}

TEST_F(SimdTargetsTest, PrefetchingBatchOnALargeFilterMatchesTheReference) {
  // More bits than the size batches start prefetching at (as many keys as
  // bytes there, and a quarter more, at 10 bits/key).
  const uint64_t prefetch_above = internal::BatchPrefetchAboveBytes();
  const std::vector<uint64_t> present = Hashes(4, prefetch_above + prefetch_above / 4);
  const std::vector<uint64_t> absent = Hashes(5, 200000);
  const std::string filter = Build(present, 8, 10);
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    auto reader = BlockedBloomReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    ASSERT_GT(reader->geometry().bit_bytes(), prefetch_above);
    std::unique_ptr<bool[]> out(new bool[present.size()]);
    reader->MayMatchBatch(present, absl::MakeSpan(out.get(), present.size()));
    size_t misses = 0;
    for (size_t i = 0; i < present.size(); ++i) misses += !out[i];
    EXPECT_EQ(misses, 0u) << name;
    reader->MayMatchBatch(absent, absl::MakeSpan(out.get(), absent.size()));
    size_t mismatches = 0;
    for (size_t i = 0; i < absent.size(); ++i) {
      mismatches += out[i] != internal::ReferenceProbe(
                                  reinterpret_cast<const uint8_t*>(reader->bits().data()),
                                  reader->geometry().num_blocks, 8, absent[i]);
    }
    EXPECT_EQ(mismatches, 0u) << name;

    // Every length from none to a few times the prefetch distance, so that
    // batches shorter than it, as long and longer all run (each length from
    // its own offset). Present and absent keys alternate: a key probed in
    // another key's block would answer differently.
    for (size_t length = 0, start = 0; length <= 70; start += length++) {
      std::vector<uint64_t> mixed;
      for (size_t i = start; i < start + length; ++i) {
        mixed.push_back(i % 2 == 0 ? present[i] : absent[i]);
      }
      reader->MayMatchBatch(mixed, absl::MakeSpan(out.get(), length));
      for (size_t i = 0; i < length; ++i) {
        const bool expected =
            internal::ReferenceProbe(reinterpret_cast<const uint8_t*>(reader->bits().data()),
                                     reader->geometry().num_blocks, 8, mixed[i]);
        ASSERT_EQ(out[i], expected) << name << " length=" << length << " i=" << i;
      }
    }
  }
}

TEST_F(SimdTargetsTest, ProbeEachAndProbePairsAnswerLikeTheReferenceAtEveryLength) {
  // The kernels fetch blocks a fixed distance ahead of the probe: calls of
  // every length from none to a few times that distance.
  const MixedFilters filters(30);
  const std::vector<BlockedBloomView>& views = filters.views;
  const std::vector<uint64_t> keys = Hashes(55, 70);
  std::vector<const BlockedBloomView*> pointers;
  for (size_t i = 0; i < keys.size(); ++i) pointers.push_back(&views[(i * 5) % views.size()]);
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    for (size_t n = 0; n <= keys.size(); ++n) {
      bool each[70], pairs[70];
      BlockedBloomProbeEach(absl::MakeConstSpan(pointers.data(), n), keys[n % keys.size()], absl::MakeSpan(each, n));
      BlockedBloomProbePairs(absl::MakeConstSpan(pointers.data(), n), absl::MakeConstSpan(keys.data(), n), absl::MakeSpan(pairs, n));
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(each[i], ReferenceAnswer(*pointers[i], keys[n % keys.size()]))
            << name << " n=" << n << " i=" << i;
        ASSERT_EQ(pairs[i], ReferenceAnswer(*pointers[i], keys[i]))
            << name << " n=" << n << " i=" << i;
      }
    }
  }
}

// Two threads probing one reader at once on each target, singly and in
// batches, agree with the reference: a reader shares nothing a probe
// writes. Run under TSan in CI.
TEST_F(SimdTargetsTest, TwoThreadsProbingOneReaderAnswerLikeTheReferenceOnEveryTarget) {
  const std::vector<uint64_t> present = Hashes(6, 20000);
  const std::vector<uint64_t> absent = Hashes(7, 20000);
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());  // Before the reader opens: it binds its kernels.
    const std::string filter = Build(present, 6, 4.0);
    auto reader = BlockedBloomReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    const uint8_t* bits = reinterpret_cast<const uint8_t*>(reader->bits().data());
    const uint64_t blocks = reader->geometry().num_blocks;
    std::atomic<uint64_t> mismatches{0}, misses{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        std::unique_ptr<bool[]> out(new bool[absent.size()]);
        for (int round = 0; round < 3; ++round) {
          reader->MayMatchBatch(absent, absl::MakeSpan(out.get(), absent.size()));
          for (size_t i = t; i < absent.size(); i += 2) {
            const bool expected = internal::ReferenceProbe(bits, blocks, 6, absent[i]);
            mismatches += out[i] != expected;
            mismatches += reader->MayMatchHash(absent[i]) != expected;
          }
          reader->MayMatchBatch(present, absl::MakeSpan(out.get(), present.size()));
          for (size_t i = 0; i < present.size(); ++i) misses += !out[i];
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0u) << name;
    EXPECT_EQ(misses.load(), 0u) << name;
  }
}

}  // namespace
}  // namespace lsmbloom
