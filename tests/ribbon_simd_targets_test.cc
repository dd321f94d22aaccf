// Every compiled SIMD target answers Ribbon probes exactly as the scalar
// reference (internal::RibbonMayMatch), single, batched and across many
// filters, for every column count, with and without upper segments, including keys whose segments end
// the solution (the kernels' fallback), on filters built on another target.

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/simd.h"
#include "src/filter/ribbon/ribbon_reference.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

class RibbonSimdTargetsTest : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(PinSimdTarget("best").ok()); }
};

std::vector<uint64_t> Hashes(uint64_t family, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = testutil::SplitMix64(i * 1000003 + family);
  return hashes;
}

std::string Build(const std::vector<uint64_t>& hashes, double bits) {
  RibbonOptions options;
  options.bits_per_key = bits;
  auto builder = RibbonBuilder::Create(options);
  for (uint64_t h : hashes) builder->AddHash(h);
  return *builder->Finish();
}

TEST_F(RibbonSimdTargetsTest, EveryTargetAnswersAsTheScalarReference) {
  const std::vector<std::string> targets = AvailableSimdTargets();
  ASSERT_FALSE(targets.empty());
  // Bits/key from 1.1 to 33: r from 1 to 32, most with upper segments; the
  // sizes put a good share of keys in the last segments.
  for (size_t n : {size_t{1}, size_t{100}, size_t{3000}}) {
    const std::vector<uint64_t> present = Hashes(1, n);
    std::vector<uint64_t> probes = Hashes(2, 20000);
    probes.insert(probes.end(), present.begin(), present.end());
    for (double bits = 1.1; bits <= 33.0; bits += 0.7) {
      ASSERT_TRUE(PinSimdTarget("best").ok());
      const std::string filter = Build(present, bits);
      for (const std::string& name : targets) {
        ASSERT_TRUE(PinSimdTarget(name).ok());
        EXPECT_EQ(Build(present, bits), filter) << name;  // The builder is scalar.
        auto reader = RibbonReader::Open(filter);  // Binds this target's kernels.
        ASSERT_TRUE(reader.ok());
        std::unique_ptr<bool[]> batch(new bool[probes.size()]);
        reader->MayMatchBatch(probes, absl::MakeSpan(batch.get(), probes.size()));
        size_t single_diffs = 0, batch_diffs = 0, misses = 0;
        for (size_t i = 0; i < probes.size(); ++i) {
          const bool reference = internal::RibbonMayMatch(reader->view(), probes[i]);
          single_diffs += reader->MayMatchHash(probes[i]) != reference;
          batch_diffs += batch[i] != reference;
        }
        for (uint64_t h : present) misses += !reader->MayMatchHash(h);
        EXPECT_EQ(single_diffs, 0u) << name << " n=" << n << " bits=" << bits;
        EXPECT_EQ(batch_diffs, 0u) << name << " n=" << n << " bits=" << bits;
        EXPECT_EQ(misses, 0u) << name << " n=" << n << " bits=" << bits;
      }
    }
  }
}

// A large filter batched with prefetching (over twice the L2 cache) on every
// target.
TEST_F(RibbonSimdTargetsTest, PrefetchingBatchesAnswerAsTheReference) {
  const std::vector<uint64_t> present = Hashes(3, 1000000);
  const std::vector<uint64_t> probes = Hashes(4, 100000);
  const std::string filter = Build(present, 30.0);  // ~3.8 MB.
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    auto reader = RibbonReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    std::unique_ptr<bool[]> batch(new bool[probes.size()]);
    reader->MayMatchBatch(probes, absl::MakeSpan(batch.get(), probes.size()));
    size_t diffs = 0;
    for (size_t i = 0; i < probes.size(); ++i) {
      diffs += batch[i] != internal::RibbonMayMatch(reader->view(), probes[i]);
    }
    EXPECT_EQ(diffs, 0u) << name;
  }
}

// One key against many filters (a lookup's candidate files) and many
// (filter, key) pairs (a batch of lookups), on every target: each answer as
// the reference's for its own filter, with filters of every size (empty,
// one key, keys in the last segments), column count and layout, more of
// them than one group of the kernel, none of an added key's answers "no".
TEST_F(RibbonSimdTargetsTest, ProbesAcrossManyFiltersAnswerAsTheReference) {
  std::vector<std::vector<uint64_t>> added;
  std::vector<std::string> filters;
  for (size_t f = 0; f < 70; ++f) {
    const size_t n = f % 7 == 0 ? 0 : f % 5 == 0 ? 1 : 50 + 97 * f;
    added.push_back(Hashes(100 + f, n));
    filters.push_back(Build(added.back(), 1.1 + 0.45 * static_cast<double>(f)));
  }
  const std::vector<uint64_t> probes = Hashes(6, 3000);
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    std::vector<RibbonReader> readers;
    std::vector<const RibbonView*> views;
    for (const std::string& f : filters) readers.push_back(*RibbonReader::Open(f));
    for (const RibbonReader& r : readers) views.push_back(&r.view());
    std::unique_ptr<bool[]> out(new bool[views.size()]);
    size_t each_diffs = 0, misses = 0;
    for (uint64_t h : probes) {
      RibbonProbeEach(views, h, absl::MakeSpan(out.get(), views.size()));
      for (size_t f = 0; f < views.size(); ++f) {
        each_diffs += out[f] != internal::RibbonMayMatch(*views[f], h);
      }
    }
    for (size_t f = 0; f < views.size(); ++f) {
      for (uint64_t h : added[f]) {
        RibbonProbeEach(views, h, absl::MakeSpan(out.get(), views.size()));
        misses += !out[f];
      }
    }
    // Pairs: each probe (present and absent alike) against a filter of its own.
    std::vector<const RibbonView*> pair_views;
    std::vector<uint64_t> pair_hashes;
    for (size_t i = 0; i < probes.size(); ++i) {
      const size_t f = testutil::SplitMix64(i) % views.size();
      pair_views.push_back(views[f]);
      pair_hashes.push_back(added[f].empty() || i % 2 == 0 ? probes[i]
                                                           : added[f][i % added[f].size()]);
    }
    std::unique_ptr<bool[]> pair_out(new bool[pair_views.size()]);
    RibbonProbePairs(pair_views, pair_hashes, absl::MakeSpan(pair_out.get(), pair_views.size()));
    size_t pair_diffs = 0;
    for (size_t i = 0; i < pair_views.size(); ++i) {
      pair_diffs += pair_out[i] != internal::RibbonMayMatch(*pair_views[i], pair_hashes[i]);
    }
    EXPECT_EQ(each_diffs, 0u) << name;
    EXPECT_EQ(misses, 0u) << name;
    EXPECT_EQ(pair_diffs, 0u) << name;
  }
}

// A filter laid out with a nonzero seed (its keys' band saturated with seed
// 0, ribbon_fpr_test): built alike and probed alike on every target.
TEST_F(RibbonSimdTargetsTest, ASeededLayoutIsBuiltAndProbedAlikeOnEveryTarget) {
  std::vector<uint64_t> present(1000000);
  for (size_t i = 0; i < present.size(); ++i) {
    present[i] = testutil::SplitMix64(i * 7 + 1 + (uint64_t{4} << 40));
  }
  const std::vector<uint64_t> probes = Hashes(5, 100000);
  RibbonOptions options;
  options.target_fpr = 0.01;
  auto build = [&] {
    auto builder = RibbonBuilder::Create(options);
    for (uint64_t h : present) builder->AddHash(h);
    return *builder->Finish();
  };
  ASSERT_TRUE(PinSimdTarget("best").ok());
  const std::string filter = build();
  ASSERT_NE(RibbonReader::Open(filter)->geometry().layout_seed, 0);
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    EXPECT_EQ(build(), filter) << name;
    auto reader = RibbonReader::Open(filter);
    ASSERT_TRUE(reader.ok());
    std::unique_ptr<bool[]> batch(new bool[probes.size()]);
    reader->MayMatchBatch(probes, absl::MakeSpan(batch.get(), probes.size()));
    size_t diffs = 0, misses = 0;
    for (size_t i = 0; i < probes.size(); ++i) {
      const bool reference = internal::RibbonMayMatch(reader->view(), probes[i]);
      diffs += (batch[i] != reference) + (reader->MayMatchHash(probes[i]) != reference);
    }
    for (uint64_t h : present) misses += !reader->MayMatchHash(h);
    EXPECT_EQ(diffs, 0u) << name;
    EXPECT_EQ(misses, 0u) << name;
  }
}

}  // namespace
}  // namespace lsmbloom
