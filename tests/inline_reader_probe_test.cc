// The per-target prober of blocked_bloom-inl.h in code compiled for AVX2 or
// AVX-512 (bench/avx2_call_site.cc and avx512_call_site.cc, each under its
// static Highway target) inlines its target's probe; on every call site
// this CPU can run it must give the reference's answer for every k, never
// reject an added key, and reject everything in an empty filter.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/call_sites.h"
#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

// A call site: the same loops compiled for one instruction set.
struct CallSite {
  const char* name;
  bool cpu_has_it;
  void (*probe_hashes)(const BlockedBloomReader&, const uint64_t*, size_t, bool*);
  size_t (*count_hashes)(const BlockedBloomReader&, const uint64_t*, size_t);
};

// The call sites this CPU can run.
std::vector<CallSite> RunnableSites() {
  const CallSite all[] = {
      {"AVX2", __builtin_cpu_supports("avx2") != 0, bench::ProbeHashesAvx2Site,
       bench::CountHashesAvx2Site},
      {"AVX-512", __builtin_cpu_supports("avx512f") != 0, bench::ProbeHashesAvx512Site,
       bench::CountHashesAvx512Site},
  };
  std::vector<CallSite> runnable;
  for (const CallSite& site : all) {
    if (site.cpu_has_it) runnable.push_back(site);
  }
  return runnable;
}

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = testutil::SplitMix64(i * 7919 + family);
  return hashes;
}

TEST(InlineReaderProbeTest, AnswersLikeTheReferenceForEveryK) {
  const std::vector<CallSite> sites = RunnableSites();
  if (sites.empty()) GTEST_SKIP() << "this CPU lacks AVX2";
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
      for (const CallSite& site : sites) {
        size_t mismatches = 0, maybes = 0, rejected = 0;
        std::unique_ptr<bool[]> out(new bool[absent.size()]);
        site.probe_hashes(*reader, absent.data(), absent.size(), out.get());
        for (size_t i = 0; i < absent.size(); ++i) {
          const bool expected =
              internal::ReferenceProbe(bits, reader->geometry().num_blocks, k, absent[i]);
          maybes += expected;
          mismatches += out[i] != expected;
        }
        site.probe_hashes(*reader, present.data(), present.size(), out.get());
        for (size_t i = 0; i < present.size(); ++i) rejected += !out[i];
        EXPECT_EQ(mismatches, 0u) << site.name << " k=" << k << " bits/key=" << bits_per_key;
        EXPECT_EQ(rejected, 0u) << site.name << " k=" << k;
        EXPECT_GT(maybes, 0u);
        EXPECT_LT(maybes, absent.size());
      }
    }
  }
}

TEST(InlineReaderProbeTest, EmptyFilterRejectsEverything) {
  const std::vector<CallSite> sites = RunnableSites();
  if (sites.empty()) GTEST_SKIP() << "this CPU lacks AVX2";
  auto builder = BlockedBloomBuilder::Create();
  ASSERT_TRUE(builder.ok());
  const std::string filter = *builder->Finish();
  auto reader = BlockedBloomReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  const std::vector<uint64_t> hashes = Hashes(3, 100);
  for (const CallSite& site : sites) {
    EXPECT_EQ(site.count_hashes(*reader, hashes.data(), hashes.size()), 0u) << site.name;
  }
  // And so does the dispatched kernel, which probes the same empty block.
  for (uint64_t h : hashes) EXPECT_FALSE(reader->MayMatchHash(h));
}

}  // namespace
}  // namespace lsmbloom
