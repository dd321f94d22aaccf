// Highway kernels for probing and building blocked filters.
//
// This file is compiled once per SIMD target through foreach_target.h. A block
// is 16 32-bit words; a vector holds 16 / kVectorsPerBlock of them (one
// AVX-512 register is a whole block). The k probe positions of a key are
// computed in parallel lanes, each lane fetches the block word its bit lives
// in (a lane permutation, no memory gather) and the key matches when no lane
// misses its bit. Block geometry never depends on vector width.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/filter/simd_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "lsmbloom/blocked_bloom-inl.h"
#include "lsmbloom/blocked_bloom_layout.h"
#include "src/filter/reference_kernels.h"
#include "src/filter/simd_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using lsmbloom::HWY_NAMESPACE::ProbeBlock;

// How many keys ahead a prefetching loop fetches blocks: enough to cover a
// DRAM miss with the probes in between, few enough to stay within the
// core's outstanding misses.
constexpr size_t kPrefetchDistance = 16;

bool ProbeOne(const uint8_t* bits, uint64_t num_blocks, int num_probes,
              uint64_t hash) {
  return ProbeBlock(bits + BlockIndex(hash, num_blocks) * kBlockBytes,
                    ProbeSeed(hash), num_probes);
}

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                const uint64_t* hashes, size_t n, bool* out, bool prefetch) {
  if (prefetch) {
    const size_t lead = n < kPrefetchDistance ? n : kPrefetchDistance;
    for (size_t i = 0; i < lead; ++i) {
      hwy::Prefetch(bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (prefetch && i + kPrefetchDistance < n) {
      hwy::Prefetch(bits + BlockIndex(hashes[i + kPrefetchDistance], num_blocks) *
                               kBlockBytes);
    }
    out[i] = ProbeBlock(bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes,
                        ProbeSeed(hashes[i]), num_probes);
  }
}

#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes,
               const uint64_t* hashes, size_t n) {
  ReferenceAdd(bits, num_blocks, num_probes, hashes, n);
}

#else  // SIMD targets

using D = hn::CappedTag<uint32_t, kBlockWords>;
using V = hn::Vec<D>;
constexpr size_t kLanes = hn::MaxLanes(D());

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// Sets a key's k bits (positions[0], positions[stride], ...) with one
// read-modify-write of the block: the key's 512-bit mask is built in 64-bit
// lanes as the OR over probes of 1 << (p - 64 * lane). This relies on x86's
// variable shifts (vpsllvq), which give 0 for counts of 64 and more, so a
// probe sets a bit only in its own lane (p - 64 * lane wraps around to a huge
// count below it).
using D64 = hn::CappedTag<uint64_t, 8>;
constexpr size_t kLanes64 = hn::MaxLanes(D64());
constexpr size_t kMaskVectors = 8 / kLanes64;

HWY_INLINE void SetKeyBits(uint8_t* block, const uint32_t* positions, size_t stride,
                           int num_probes) {
  const D64 d64;
  const auto one = hn::Set(d64, uint64_t{1});
  hn::Vec<D64> mask[kMaskVectors], first_bit[kMaskVectors];
  for (size_t s = 0; s < kMaskVectors; ++s) {
    mask[s] = hn::Zero(d64);
    first_bit[s] = hn::Mul(hn::Iota(d64, s * kLanes64), hn::Set(d64, uint64_t{64}));
  }
  for (int probe = 0; probe < num_probes; ++probe) {
    const auto p = hn::Set(d64, uint64_t{positions[probe * stride]});
    for (size_t s = 0; s < kMaskVectors; ++s) {
      mask[s] = hn::Or(mask[s], hn::Shl(one, hn::Sub(p, first_bit[s])));
    }
  }
  for (size_t s = 0; s < kMaskVectors; ++s) {
    uint64_t* words = reinterpret_cast<uint64_t*>(block) + s * kLanes64;
    hn::StoreU(hn::Or(hn::LoadU(d64, words), mask[s]), d64, words);
  }
}
#else
// No variable 64-bit shifts with those semantics: one scalar
// read-modify-write per bit.
HWY_INLINE void SetKeyBits(uint8_t* block, const uint32_t* positions, size_t stride,
                           int num_probes) {
  for (int probe = 0; probe < num_probes; ++probe) {
    SetBlockBit(block, positions[probe * stride]);
  }
}
#endif

// Positions are computed kLanes keys at a time, one vector multiply per
// probe, then each key's bits are set in its block. Blocks are fetched
// kPrefetchDistance keys ahead: even within L2 that halves the time, since
// each read-modify-write otherwise waits for its line.
void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes,
               const uint64_t* hashes, size_t n) {
  const D d;
  HWY_ALIGN uint32_t positions[kMaxProbesPerKey][kLanes];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    // The low halves of kLanes little-endian 64-bit hashes are the even
    // 32-bit lanes of the two vectors that hold them.
    const uint32_t* halves = reinterpret_cast<const uint32_t*>(hashes + i);
    const V seeds = hn::ConcatEven(d, hn::LoadU(d, halves + kLanes),
                                   hn::LoadU(d, halves));
    for (int probe = 0; probe < num_probes; ++probe) {
      hn::Store(hn::ShiftRight<23>(
                    hn::Mul(seeds, hn::Set(d, kProbeMultipliers[probe]))),
                d, positions[probe]);
    }
    for (size_t j = 0; j < kLanes; ++j) {
      if (i + j + kPrefetchDistance < n) {
        hwy::Prefetch(bits + BlockIndex(hashes[i + j + kPrefetchDistance], num_blocks) *
                                 kBlockBytes);
      }
      SetKeyBits(bits + BlockIndex(hashes[i + j], num_blocks) * kBlockBytes,
                 &positions[0][j], kLanes, num_probes);
    }
  }
  ReferenceAdd(bits, num_blocks, num_probes, hashes + i, n - i);
}

#endif  // HWY_TARGET == HWY_SCALAR

int64_t Target() { return HWY_TARGET; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace internal
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lsmbloom {
namespace internal {

HWY_EXPORT(ProbeOne);
HWY_EXPORT(ProbeBatch);
HWY_EXPORT(AddHashes);
HWY_EXPORT(Target);

ProbeOneFn ChosenProbeOne() {
  // Before the first dispatch the table's current entry is Highway's
  // initialising trampoline; make sure the real choice has been made.
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return &HWY_DYNAMIC_DISPATCH(ProbeOne);
}

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                const uint64_t* hashes, size_t n, bool* out, bool prefetch) {
  HWY_DYNAMIC_DISPATCH(ProbeBatch)(bits, num_blocks, num_probes, hashes, n,
                                   out, prefetch);
}

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes,
               const uint64_t* hashes, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddHashes)(bits, num_blocks, num_probes, hashes, n);
}

int64_t ChosenTarget() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace internal
}  // namespace lsmbloom
#endif  // HWY_ONCE
