// The workloads kernel_choice.cc times each target on: small filters in
// L1/L2, shaped as the library uses them (k = 6 and about 50 keys a block
// for the build, as at 10 bits/key; random absent keys for the probes), so
// one run costs well under a microsecond on the fast targets.

#include <cstdint>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/filter/blocked/blocked_bloom_kernels.h"
#include "src/filter/kernel_choice.h"
#include "src/filter/ribbon/ribbon_kernels.h"
#include "src/filter/ribbon/ribbon_layout.h"

namespace lsmbloom {
namespace internal {
namespace {

constexpr size_t kOps = 128;           // Probes per run.
constexpr int kProbes = 6;             // k at 10 bits/key.
constexpr uint64_t kProbeBlocks = 64;  // 4 KiB.
constexpr size_t kFilters = 16;        // Each of kProbeBlocks / kFilters blocks.
constexpr uint64_t kBuildBlocks = 4;   // About 50 keys a block...
constexpr size_t kBuildKeys = 200;     // ...set in random order.
constexpr uint64_t kRibbonSegments = 64;
constexpr uint32_t kRibbonColumns = 7;  // r at about 10 bits/key.

uint64_t Mix(uint64_t x) {
  x = (x + 1) * 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ULL;
  return x ^ (x >> 29);
}

struct Workload {
  Workload() : hashes(kBuildKeys), ribbon_words(kRibbonSegments * kRibbonColumns + 8) {
    for (size_t i = 0; i < kBuildKeys; ++i) hashes[i] = Mix(i);
    for (size_t i = 0; i < sizeof(bits) / 8; ++i) {
      const uint64_t word = Mix(i + 1000000);  // Half the bits set.
      __builtin_memcpy(bits + 8 * i, &word, 8);
    }
    for (size_t i = 0; i < ribbon_words.size(); ++i) ribbon_words[i] = Mix(i + 2000000);
    for (size_t f = 0; f < kFilters; ++f) {
      views[f] = {bits + f * (kProbeBlocks / kFilters) * kBlockBytes, kProbeBlocks / kFilters,
                  kProbes};
    }
    for (size_t i = 0; i < kOps; ++i) view_of_op[i] = &views[i % kFilters];
    ribbon.words = ribbon_words.data();
    ribbon.num_starts = kRibbonSegments * kRibbonSegmentSlots - 127;
    ribbon.start_multiplier = RibbonStartMultiplier(0);
    ribbon.upper_start = kRibbonSegments;  // Every segment r columns.
    ribbon.num_words = kRibbonSegments * kRibbonColumns;
    ribbon.num_columns = kRibbonColumns;
    for (size_t i = 0; i < kOps; ++i) ribbon_of_op[i] = &ribbon;
  }

  std::vector<uint64_t> hashes;
  alignas(64) uint8_t bits[kProbeBlocks * kBlockBytes];
  alignas(64) uint8_t build_bits[kBuildBlocks * kBlockBytes] = {};
  BlockedBloomView views[kFilters];
  const BlockedBloomView* view_of_op[kOps];
  std::vector<uint64_t> ribbon_words;
  RibbonView ribbon;
  const RibbonView* ribbon_of_op[kOps];
  bool out[kOps];
};

volatile size_t g_sink;  // Keeps the one-key probes' answers live.

}  // namespace

size_t RunKernelWorkload(KernelFamily family, size_t index) {
  static Workload* const w = new Workload;
  const uint64_t* hashes = w->hashes.data();
  switch (family) {
    case KernelFamily::kBlockedBuild:
      BlockedKernelsAt(index).add(w->build_bits, kBuildBlocks, kProbes, hashes, kBuildKeys);
      return kBuildKeys;
    case KernelFamily::kBlockedProbeOne: {
      const ProbeOneFn probe = BlockedKernelsAt(index).probe_one;
      size_t hits = 0;
      for (size_t i = 0; i < kOps; ++i) hits += probe(w->bits, kProbeBlocks, kProbes, hashes[i]);
      g_sink = hits;
      return kOps;
    }
    case KernelFamily::kBlockedProbeBatch:
      BlockedKernelsAt(index).probe_batch(w->bits, kProbeBlocks, kProbes, hashes, kOps, w->out,
                                          false);
      return kOps;
    case KernelFamily::kBlockedProbeEach: {
      const BlockedProbeEachFn each = BlockedKernelsAt(index).probe_each;
      for (size_t i = 0; i < kOps / kFilters; ++i) each(w->view_of_op, kFilters, hashes[i], w->out);
      return kOps;
    }
    case KernelFamily::kBlockedProbePairs:
      BlockedKernelsAt(index).probe_pairs(w->view_of_op, hashes, kOps, w->out);
      return kOps;
    case KernelFamily::kRibbonProbeOne: {
      const RibbonProbeOneFn probe = RibbonKernelsAt(index).probe_one;
      size_t hits = 0;
      for (size_t i = 0; i < kOps; ++i) hits += probe(w->ribbon, hashes[i]);
      g_sink = hits;
      return kOps;
    }
    case KernelFamily::kRibbonProbeBatch:
      RibbonKernelsAt(index).probe_batch(w->ribbon, hashes, kOps, w->out, false);
      return kOps;
    case KernelFamily::kRibbonProbeEach: {
      const RibbonProbeEachFn each = RibbonKernelsAt(index).probe_each;
      for (size_t i = 0; i < kOps / kFilters; ++i) {
        each(w->ribbon_of_op, kFilters, hashes[i], w->out);
      }
      return kOps;
    }
    case KernelFamily::kRibbonProbePairs:
      RibbonKernelsAt(index).probe_pairs(w->ribbon_of_op, hashes, kOps, w->out);
      return kOps;
  }
  return 1;
}

}  // namespace internal
}  // namespace lsmbloom
