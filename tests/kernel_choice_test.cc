// Each kernel family runs the target that timed fastest here (the widest of
// those within the tie margin), pins and the "widest" option override the
// timing, and families on different targets at once write the same bytes
// and give the same answers as every family on one target.

#include "src/filter/kernel_choice.h"

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/simd.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "src/filter/ribbon/ribbon_reference.h"
#include "src/filter/simd_dispatch.h"
#include "tests/test_keys.h"

// Sanitizers slow the timed kernels several-fold: the cost bound is for
// plain optimised builds.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KERNEL_CHOICE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define KERNEL_CHOICE_TEST_SANITIZED 1
#endif
#endif

namespace lsmbloom {
namespace {

using internal::KernelFamily;

class KernelChoiceTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetSimdChoice(SimdChoice::kFastestMeasured);
    ASSERT_TRUE(PinSimdTarget("best").ok());
  }
};

std::vector<uint64_t> Hashes(uint64_t seed, size_t n) {
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = testutil::SplitMix64(i * 7919 + seed);
  return hashes;
}

TEST_F(KernelChoiceTest, EveryFamilyKeepsTheFastestTargetOrAWiderOneWithinTheTie) {
  const std::vector<std::string> targets = AvailableSimdTargets();
  const std::vector<KernelChoice> choices = SimdKernelChoices();
  ASSERT_EQ(choices.size(), static_cast<size_t>(internal::kNumKernelFamilies));
  double total_us = 0;
  for (const KernelChoice& c : choices) {
    SCOPED_TRACE(c.family);
    EXPECT_EQ(c.how, "measured");
    ASSERT_EQ(c.ns_per_op.size(), targets.size());
    double fastest = c.ns_per_op[0].second;
    for (size_t i = 0; i < targets.size(); ++i) {
      EXPECT_EQ(c.ns_per_op[i].first, targets[i]);  // Widest first.
      EXPECT_GT(c.ns_per_op[i].second, 0);
      fastest = std::min(fastest, c.ns_per_op[i].second);
    }
    // The first (widest) target within the tie margin of the fastest.
    const double tie = fastest * (1 + internal::kTieFraction);
    std::string expected;
    for (const auto& [name, ns] : c.ns_per_op) {
      if (expected.empty() && ns <= tie) expected = name;
    }
    EXPECT_EQ(c.target, expected);
    EXPECT_GT(c.timing_us, 0);
    total_us += c.timing_us;
  }
  RecordProperty("kernel_choice_timing_us", std::to_string(total_us));
  // The probe family's choice is what ActiveSimdTarget names.
  EXPECT_EQ(ActiveSimdTarget(), choices[static_cast<int>(KernelFamily::kBlockedProbeOne)].target);
  // Timed once: asking again changes nothing.
  const std::vector<KernelChoice> again = SimdKernelChoices();
  for (size_t f = 0; f < choices.size(); ++f) {
    EXPECT_EQ(again[f].target, choices[f].target);
    EXPECT_EQ(again[f].timing_us, choices[f].timing_us);
  }
#if defined(NDEBUG) && !defined(KERNEL_CHOICE_TEST_SANITIZED)
  // The stated cost: well under a millisecond of CPU time (about 0.35 ms
  // on the machine docs/PERFORMANCE.md names). A machine busy with other
  // work (CI builds beside its tests) can evict the workload mid-timing:
  // the timing is redone, up to twice, before the bound is judged.
  double cheapest_us = total_us;
  for (int retry = 0; retry < 2 && cheapest_us >= 1000; ++retry) {
    internal::ForgetTimingsForTest();
    double us = 0;
    for (const KernelChoice& c : SimdKernelChoices()) us += c.timing_us;
    cheapest_us = std::min(cheapest_us, us);
  }
  EXPECT_LT(cheapest_us, 1000);
#endif
}

// Threads that use the kernels first at the same moment (timing them) all
// get correct answers and then see the same choices and timings; TSan
// runs this test for races in the one-time choice.
TEST_F(KernelChoiceTest, ConcurrentFirstUsesAgreeOnOneChoice) {
  internal::ForgetTimingsForTest();
  const std::vector<uint64_t> keys = Hashes(3, 2000);
  std::vector<std::vector<KernelChoice>> seen(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] {
      auto builder = BlockedBloomBuilder::Create(BlockedBloomOptions());
      for (uint64_t h : keys) builder->AddHash(h);
      const std::string filter = *builder->Finish();
      const auto reader = BlockedBloomReader::Open(filter);
      for (uint64_t h : keys) EXPECT_TRUE(reader->MayMatchHash(h));
      seen[t] = SimdKernelChoices();
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t t = 1; t < seen.size(); ++t) {
    ASSERT_EQ(seen[t].size(), seen[0].size());
    for (size_t f = 0; f < seen[0].size(); ++f) {
      EXPECT_EQ(seen[t][f].target, seen[0][f].target);
      EXPECT_EQ(seen[t][f].timing_us, seen[0][f].timing_us);
      EXPECT_EQ(seen[t][f].how, "measured");
    }
  }
}

TEST_F(KernelChoiceTest, APinSetsEveryFamilyAndItsTableIndexIsHighways) {
  for (const std::string& name : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    EXPECT_EQ(ActiveSimdTarget(), name);
    EXPECT_EQ(internal::TableIndexOfTarget(internal::ActiveTargetBit()),
              hwy::GetChosenTarget().GetIndex());
    for (const KernelChoice& c : SimdKernelChoices()) {
      EXPECT_EQ(c.target, name) << c.family;
      EXPECT_EQ(c.how, "pinned") << c.family;
    }
  }
}

TEST_F(KernelChoiceTest, WidestRunsTheWidestTargetUntimed) {
  SetSimdChoice(SimdChoice::kWidest);
  for (const KernelChoice& c : SimdKernelChoices()) {
    EXPECT_EQ(c.target, AvailableSimdTargets().front()) << c.family;
    EXPECT_EQ(c.how, "widest") << c.family;
  }
}

// Every family on its own target: family f on target (r + f) mod n, for
// every rotation r, so each family meets each target and its neighbours
// run others (the blocked build on sse4 and its probes on avx512, say).
TEST_F(KernelChoiceTest, FamiliesOnDifferentTargetsWriteAndAnswerAlike) {
  const std::vector<std::string> targets = AvailableSimdTargets();
  std::vector<int64_t> bits;
  for (const std::string& name : targets) {
    ASSERT_TRUE(PinSimdTarget(name).ok());
    bits.push_back(internal::ActiveTargetBit());
  }
  const std::vector<uint64_t> keys = Hashes(1, 20000);
  const std::vector<uint64_t> probes = Hashes(2, 4000);              // Mostly absent...
  std::vector<uint64_t> queries(keys.begin(), keys.begin() + 1000);  // ...and present.
  queries.insert(queries.end(), probes.begin(), probes.end());

  // Every family on the portable target: the bytes and answers to match.
  ASSERT_TRUE(PinSimdTarget(targets.back()).ok());
  BlockedBloomOptions blocked_options;
  blocked_options.bits_per_key = 10;
  auto blocked_builder = BlockedBloomBuilder::Create(blocked_options);
  ASSERT_TRUE(blocked_builder.ok());
  auto ribbon_builder = RibbonBuilder::Create();
  ASSERT_TRUE(ribbon_builder.ok());
  auto build = [&](std::string* blocked, std::string* ribbon) {
    for (uint64_t h : keys) blocked_builder->AddHash(h);
    for (uint64_t h : keys) ribbon_builder->AddHash(h);
    *blocked = *blocked_builder->Finish();
    *ribbon = *ribbon_builder->Finish();
  };
  std::string want_blocked, want_ribbon;
  build(&want_blocked, &want_ribbon);
  ASSERT_FALSE(ribbon_builder->fell_back());
  const auto blocked_ref = BlockedBloomReader::Open(want_blocked);
  const auto ribbon_ref = RibbonReader::Open(want_ribbon);
  ASSERT_TRUE(blocked_ref.ok() && ribbon_ref.ok());
  const BlockedBloomView bv = blocked_ref->view();
  const RibbonView rv = ribbon_ref->view();
  std::vector<bool> want_b, want_r;
  for (uint64_t q : queries) {
    want_b.push_back(internal::ReferenceProbe(bv.bits, bv.num_blocks, bv.num_probes, q));
    want_r.push_back(internal::RibbonMayMatch(rv, q));
  }
  for (size_t i = 0; i < 1000; ++i) ASSERT_TRUE(want_b[i] && want_r[i]) << "added key rejected";

  for (size_t r = 0; r < bits.size(); ++r) {
    ASSERT_TRUE(PinSimdTarget("best").ok());
    std::string plan;
    for (int f = 0; f < internal::kNumKernelFamilies; ++f) {
      const size_t t = (r + f) % bits.size();
      internal::PinFamilyTargetForTest(static_cast<KernelFamily>(f), bits[t]);
      plan += std::string(internal::KernelFamilyName(static_cast<KernelFamily>(f))) + "=" +
              targets[t] + " ";
    }
    SCOPED_TRACE(plan);
    std::string blocked, ribbon;
    build(&blocked, &ribbon);
    EXPECT_EQ(blocked, want_blocked);
    EXPECT_EQ(ribbon, want_ribbon);
    const auto b = BlockedBloomReader::Open(blocked);
    const auto rr = RibbonReader::Open(ribbon);
    ASSERT_TRUE(b.ok() && rr.ok());
    const size_t n = queries.size();
    std::unique_ptr<bool[]> batch_b(new bool[n]), batch_r(new bool[n]);
    b->MayMatchBatch(queries, absl::MakeSpan(batch_b.get(), n));
    rr->MayMatchBatch(queries, absl::MakeSpan(batch_r.get(), n));
    const BlockedBloomView bview = b->view();
    const RibbonView rview = rr->view();
    const std::vector<const BlockedBloomView*> bfilters(n, &bview);
    const std::vector<const RibbonView*> rfilters(n, &rview);
    std::unique_ptr<bool[]> pairs_b(new bool[n]), pairs_r(new bool[n]);
    BlockedBloomProbePairs(bfilters, queries, absl::MakeSpan(pairs_b.get(), n));
    RibbonProbePairs(rfilters, queries, absl::MakeSpan(pairs_r.get(), n));
    bool each_b[3], each_r[3];
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(b->MayMatchHash(queries[i]), want_b[i]) << i;
      ASSERT_EQ(rr->MayMatchHash(queries[i]), want_r[i]) << i;
      ASSERT_EQ(batch_b[i], want_b[i]) << i;
      ASSERT_EQ(batch_r[i], want_r[i]) << i;
      ASSERT_EQ(pairs_b[i], want_b[i]) << i;
      ASSERT_EQ(pairs_r[i], want_r[i]) << i;
      BlockedBloomProbeEach(absl::MakeConstSpan(bfilters.data(), 3), queries[i], each_b);
      RibbonProbeEach(absl::MakeConstSpan(rfilters.data(), 3), queries[i], each_r);
      for (int j = 0; j < 3; ++j) {
        ASSERT_EQ(each_b[j], want_b[i]) << i;
        ASSERT_EQ(each_r[j], want_r[i]) << i;
      }
    }
  }
}

}  // namespace
}  // namespace lsmbloom
