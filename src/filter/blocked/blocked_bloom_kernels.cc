// Highway kernels for probing and building blocked filters.
//
// This file is compiled once per SIMD target through foreach_target.h. A block
// is 16 32-bit words; a vector holds 16 / kVectorsPerBlock of them (one
// AVX-512 register is a whole block). The k probe positions of a key are
// computed in parallel lanes, each lane fetches the block word its bit lives
// in (a lane permutation, no memory gather) and the key matches when no lane
// misses its bit. Block geometry never depends on vector width.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/filter/blocked/blocked_bloom_kernels.cc"
#include "src/filter/blocked/blocked_bloom_kernels.h"

#include <utility>

#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lsmbloom/filter/blocked_bloom-inl.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "src/filter/kernel_choice.h"
#include "src/filter/simd_dispatch.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using lsmbloom::HWY_NAMESPACE::BitInBlock;
using lsmbloom::HWY_NAMESPACE::BlockedBloomProber;
using lsmbloom::HWY_NAMESPACE::BlockIndex;
using lsmbloom::HWY_NAMESPACE::ProbeSeed;
using lsmbloom::HWY_NAMESPACE::SetBlockBit;

// How many keys ahead the build fetches the block it will set.
constexpr size_t kBuildPrefetchDistance = 32;

bool ProbeOne(const uint8_t* bits, uint64_t num_blocks, int num_probes, uint64_t hash) {
  return BlockedBloomProber(BlockedBloomView{bits, num_blocks, num_probes}).MayMatchHash(hash);
}

// How many items ahead of its probe a batch fetches a block. Enough lines in
// flight to cover a miss (about as many as the core's L1 miss buffers), few
// enough that a short batch starts probing early; distances of 12 to 28
// measure alike (docs/PERFORMANCE.md).
constexpr size_t kProbePrefetchDistance = 16;

// Probes items [0, n), fetching the block of item i + kProbePrefetchDistance
// while probing item i: a sliding window keeps the same number of lines in
// flight from the first probe to the last, whatever n. (Fetching a whole
// window before probing any stalls on the fetches once the miss buffers are
// full, and then probes with none in flight.)
// block_of(i) is item i's block; probe(i, block) its answer.
template <class BlockOf, class Probe>
HWY_INLINE void ProbeFetchingAhead(size_t n, const BlockOf& block_of, const Probe& probe,
                                   bool* out) {
  constexpr size_t kAhead = kProbePrefetchDistance;
  static_assert((kAhead & (kAhead - 1)) == 0, "the ring's index is a mask");
  const uint8_t* ring[kAhead];  // Item i's block is in ring[i % kAhead].
  const size_t primed = n < kAhead ? n : kAhead;
  for (size_t i = 0; i < primed; ++i) {
    ring[i] = block_of(i);
    hwy::Prefetch(ring[i]);
  }
  size_t i = 0;
  for (; i + kAhead < n; ++i) {
    const uint8_t* block = ring[i % kAhead];
    ring[i % kAhead] = block_of(i + kAhead);
    hwy::Prefetch(ring[i % kAhead]);
    out[i] = probe(i, block);
  }
  for (; i < n; ++i) out[i] = probe(i, ring[i % kAhead]);
}

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
                size_t n, bool* out, bool prefetch) {
  const BlockedBloomProber prober(BlockedBloomView{bits, num_blocks, num_probes});
  if (!prefetch) {
    for (size_t i = 0; i < n; ++i) out[i] = prober.MayMatchHash(hashes[i]);
    return;
  }
  ProbeFetchingAhead(
      n, [&](size_t i) HWY_ATTR { return bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes; },
      [&](size_t i, const uint8_t* block)
          HWY_ATTR { return prober.ProbeBlock(block, ProbeSeed(hashes[i])); },
      out);
}

// The block of `hash` in `f`; an empty filter's is all zeros (matches nothing).
HWY_INLINE const uint8_t* BlockOf(const BlockedBloomView& f, uint64_t hash) {
  return f.num_blocks == 0 ? kEmptyBlock : f.bits + BlockIndex(hash, f.num_blocks) * kBlockBytes;
}

// One hash against many filters: the misses of a lookup's candidate files
// overlap instead of following one another.
void ProbeEachKernel(const BlockedBloomView* const* filters, size_t n, uint64_t hash, bool* out) {
  const uint32_t seed = ProbeSeed(hash);
  ProbeFetchingAhead(
      n, [&](size_t i) HWY_ATTR { return BlockOf(*filters[i], hash); },
      [&](size_t i, const uint8_t* block)
          HWY_ATTR { return BlockedBloomProber(*filters[i]).ProbeBlock(block, seed); },
      out);
}

// Each hash against its own filter: the (key, file) pairs of a batch of
// lookups, all in flight together.
void ProbePairsKernel(const BlockedBloomView* const* filters, const uint64_t* hashes,
                      size_t n, bool* out) {
  ProbeFetchingAhead(
      n, [&](size_t i) HWY_ATTR { return BlockOf(*filters[i], hashes[i]); },
      [&](size_t i, const uint8_t* block) HWY_ATTR {
        return BlockedBloomProber(*filters[i]).ProbeBlock(block, ProbeSeed(hashes[i]));
      },
      out);
}

#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE

// A key's k bits, one byte read-modify-write each, unrolled by the pack:
// all k positions are computed before the first write, which a loop over a
// run-time k (multiplies and writes interleaved) does not allow
// (docs/PERFORMANCE.md has the measurement).
template <int... kProbe>
HWY_INLINE void SetKeyBits(uint8_t* block, uint32_t seed, std::integer_sequence<int, kProbe...>) {
  const uint32_t positions[] = {BitInBlock(seed, kProbe)...};
  (SetBlockBit(block, positions[kProbe]), ...);
}

// Each block fetched kBuildPrefetchDistance keys ahead.
template <int kProbes>
void AddHashesFixed(uint8_t* bits, uint64_t num_blocks, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i + kBuildPrefetchDistance < n) {
      hwy::Prefetch(bits +
                    BlockIndex(hashes[i + kBuildPrefetchDistance], num_blocks) * kBlockBytes);
    }
    SetKeyBits(bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes, ProbeSeed(hashes[i]),
               std::make_integer_sequence<int, kProbes>());
  }
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
// count below it). k is a constant, so the probes unroll and their masks
// combine as a tree rather than one long chain.
using D64 = hn::CappedTag<uint64_t, 8>;
constexpr size_t kLanes64 = hn::MaxLanes(D64());
constexpr size_t kMaskVectors = 8 / kLanes64;

template <int kProbes>
HWY_INLINE hn::Vec<D64> ProbeMasks(const uint64_t* positions, size_t stride,
                                   hn::Vec<D64> minus_first_bit, int first) {
  const D64 d64;
  if (kProbes == 1) {
    // A broadcast load folded into the add: positions are kept 64 bits wide
    // for that.
    return hn::Shl(hn::Set(d64, uint64_t{1}),
                   hn::Add(hn::Set(d64, positions[first * stride]), minus_first_bit));
  }
  constexpr int kHalf = kProbes / 2;
  return hn::Or(ProbeMasks<kHalf>(positions, stride, minus_first_bit, first),
                ProbeMasks<kProbes - kHalf>(positions, stride, minus_first_bit, first + kHalf));
}

template <>
HWY_INLINE hn::Vec<D64> ProbeMasks<0>(const uint64_t*, size_t, hn::Vec<D64>, int) {
  return hn::Zero(D64());
}

// -64 * w (mod 2^64) for each 64-bit word w of a block: adding it is the
// subtraction described above. Loaded as a constant: computed as
// Iota(w) * 64, it cost an emulated 64-bit multiply per vector, and GCC
// built the Iota through four 8-bit stores read back as one vector, a
// store-forwarding stall on every key that made the AVX2 build several
// times slower than the portable one.
alignas(64) constexpr uint64_t kMinusFirstBit[8] = {0,          0 - 64ull,  0 - 128ull, 0 - 192ull,
                                                    0 - 256ull, 0 - 320ull, 0 - 384ull, 0 - 448ull};

template <int kProbes>
HWY_INLINE void SetKeyBits(uint8_t* block, const uint64_t* positions, size_t stride) {
  const D64 d64;
  for (size_t s = 0; s < kMaskVectors; ++s) {
    const auto minus_first_bit = hn::Load(d64, kMinusFirstBit + s * kLanes64);
    const auto mask = ProbeMasks<kProbes>(positions, stride, minus_first_bit, 0);
    uint64_t* words = reinterpret_cast<uint64_t*>(block) + s * kLanes64;
    hn::StoreU(hn::Or(hn::LoadU(d64, words), mask), d64, words);
  }
}
#else
// No variable 64-bit shifts with those semantics: one scalar
// read-modify-write per bit.
template <int kProbes>
HWY_INLINE void SetKeyBits(uint8_t* block, const uint64_t* positions, size_t stride) {
  for (int probe = 0; probe < kProbes; ++probe) {
    SetBlockBit(block, positions[probe * stride]);
  }
}
#endif

// Positions are computed kLanes keys at a time, one vector multiply per
// probe, then each key's bits are set in its block. Blocks are fetched
// kPrefetchDistance keys ahead: even within L2 that halves the time, since
// each read-modify-write otherwise waits for its line.
template <int kProbes>
void AddHashesFixed(uint8_t* bits, uint64_t num_blocks, const uint64_t* hashes, size_t n) {
  const D d;
  const hn::Half<D> dh;
  const hn::Rebind<uint64_t, hn::Half<D> > dw;  // Half the lanes, widened.
  HWY_ALIGN uint64_t positions[kProbes][kLanes];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    // The low halves of kLanes little-endian 64-bit hashes are the even
    // 32-bit lanes of the two vectors that hold them.
    const uint32_t* halves = reinterpret_cast<const uint32_t*>(hashes + i);
    const V seeds = hn::ConcatEven(d, hn::LoadU(d, halves + kLanes), hn::LoadU(d, halves));
    for (int probe = 0; probe < kProbes; ++probe) {
      const V p = hn::ShiftRight<23>(hn::Mul(seeds, hn::Set(d, kProbeMultipliers[probe])));
      hn::Store(hn::PromoteTo(dw, hn::LowerHalf(dh, p)), dw, positions[probe]);
      hn::Store(hn::PromoteTo(dw, hn::UpperHalf(dh, p)), dw, positions[probe] + kLanes / 2);
    }
    for (size_t j = 0; j < kLanes; ++j) {
      if (i + j + kBuildPrefetchDistance < n) {
        hwy::Prefetch(bits +
                      BlockIndex(hashes[i + j + kBuildPrefetchDistance], num_blocks) * kBlockBytes);
      }
      SetKeyBits<kProbes>(bits + BlockIndex(hashes[i + j], num_blocks) * kBlockBytes,
                          &positions[0][j], kLanes);
    }
  }
  ReferenceAdd(bits, num_blocks, kProbes, hashes + i, n - i);
}

#endif  // HWY_TARGET == HWY_SCALAR

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
               size_t n) {
  switch (num_probes) {
#define LSMBLOOM_ADD_CASE(k) \
  case k:                    \
    return AddHashesFixed<k>(bits, num_blocks, hashes, n);
    LSMBLOOM_ADD_CASE(1)
    LSMBLOOM_ADD_CASE(2) LSMBLOOM_ADD_CASE(3) LSMBLOOM_ADD_CASE(4) LSMBLOOM_ADD_CASE(5)
        LSMBLOOM_ADD_CASE(6) LSMBLOOM_ADD_CASE(7) LSMBLOOM_ADD_CASE(8) LSMBLOOM_ADD_CASE(9)
            LSMBLOOM_ADD_CASE(10) LSMBLOOM_ADD_CASE(11) LSMBLOOM_ADD_CASE(12) LSMBLOOM_ADD_CASE(13)
                LSMBLOOM_ADD_CASE(14) LSMBLOOM_ADD_CASE(15) LSMBLOOM_ADD_CASE(16)
#undef LSMBLOOM_ADD_CASE
                    default : ReferenceAdd(bits, num_blocks, num_probes, hashes, n);
  }
}

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
HWY_EXPORT(ProbeEachKernel);
HWY_EXPORT(ProbePairsKernel);

namespace {
// The public batch probes' one hop, inlined into them (Highway's dispatch
// table is named from inside this namespace).
void DispatchProbeEach(const BlockedBloomView* const* filters, size_t n, uint64_t hash, bool* out) {
  HWY_DISPATCH_TABLE(ProbeEachKernel)
  [KernelTableIndex(KernelFamily::kBlockedProbeEach)](filters, n, hash, out);
}
void DispatchProbePairs(const BlockedBloomView* const* filters, const uint64_t* hashes, size_t n,
                        bool* out) {
  HWY_DISPATCH_TABLE(ProbePairsKernel)
  [KernelTableIndex(KernelFamily::kBlockedProbePairs)](filters, hashes, n, out);
}
}  // namespace
HWY_EXPORT(Target);

ProbeOneFn ChosenProbeOne() {
  return HWY_DISPATCH_TABLE(ProbeOne)[KernelTableIndex(KernelFamily::kBlockedProbeOne)];
}

ProbeBatchFn ChosenProbeBatch() {
  return HWY_DISPATCH_TABLE(ProbeBatch)[KernelTableIndex(KernelFamily::kBlockedProbeBatch)];
}

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
               size_t n) {
  HWY_DISPATCH_TABLE(AddHashes)
  [KernelTableIndex(KernelFamily::kBlockedBuild)](bits, num_blocks, num_probes, hashes, n);
}

BlockedKernels BlockedKernelsAt(size_t index) {
  return {HWY_DISPATCH_TABLE(ProbeOne)[index], HWY_DISPATCH_TABLE(ProbeBatch)[index],
          HWY_DISPATCH_TABLE(AddHashes)[index], HWY_DISPATCH_TABLE(ProbeEachKernel)[index],
          HWY_DISPATCH_TABLE(ProbePairsKernel)[index]};
}

// Declared in simd_dispatch.h: the target of the blocked one-key probe,
// read from the table entry it calls (so a wrong index shows).
int64_t ActiveTargetBit() {
  return HWY_DISPATCH_TABLE(Target)[KernelTableIndex(KernelFamily::kBlockedProbeOne)]();
}

}  // namespace internal

void BlockedBloomProbeEach(absl::Span<const BlockedBloomView* const> filters, uint64_t hash,
                           absl::Span<bool> out) {
  internal::DispatchProbeEach(filters.data(), filters.size(), hash, out.data());
}

void BlockedBloomProbePairs(absl::Span<const BlockedBloomView* const> filters,
                            absl::Span<const uint64_t> hashes, absl::Span<bool> out) {
  internal::DispatchProbePairs(filters.data(), hashes.data(), filters.size(), out.data());
}
}  // namespace lsmbloom
#endif  // HWY_ONCE
