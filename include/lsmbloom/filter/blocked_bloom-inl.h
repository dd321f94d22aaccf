// Inlinable probes of a blocked filter, for code that is itself compiled per
// SIMD target (Highway's foreach_target.h, or one static target): the opt-in
// fast tier of the blocked filter.
//
// BlockedBloomReader::MayMatchHash makes one indirect call per key into the
// kernel chosen at run time. The call costs about as much as the probe, so a
// caller with its own per-target loop can include this header inside its
// HWY_NAMESPACE and probe without any call, on the target its own dispatch
// runs:
//
//   #include "lsmbloom/filter/blocked_bloom-inl.h"   // after hwy/highway.h
//   HWY_BEFORE_NAMESPACE();
//   namespace my_project { namespace HWY_NAMESPACE {
//   size_t CountMaybe(const lsmbloom::BlockedBloomView& f, const uint64_t* h,
//                     size_t n) {
//     const lsmbloom::HWY_NAMESPACE::BlockedBloomProber prober(f);
//     size_t maybe = 0;
//     for (size_t i = 0; i < n; ++i) maybe += prober.MayMatchHash(h[i]);
//     return maybe;
//   }
//   } }  HWY_AFTER_NAMESPACE();
//
// On x86 the AVX2 and AVX-512 targets probe with their own intrinsics (one
// vector multiply for all k positions, a lane permute for their words).
//
// Names: everything here is per target (lsmbloom::N_AVX2::..., Highway's
// HWY_NAMESPACE) and, like Highway's own ops, local to the including file
// (static functions, the prober in an unnamed namespace). Two files built
// with different target flags therefore never share a copy at link time,
// even when Highway maps their flags to the same target (-mavx2 and
// -march=x86-64-v4 both give N_SSSE3 without -maes -mpclmul): each runs the
// code it was compiled to (tests/public_headers_odr_test.sh). Do not put a
// BlockedBloomProber in a type other files see.
//
// The library's own kernels are built from these functions, so both paths
// give identical answers on every target. Like Highway's own -inl headers,
// this one has a per-target include guard and may be included once per
// target.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"

#if defined(LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_
#undef LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_
#else
#define LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The layout's formulas (blocked_bloom_layout.h).

// The block of `hash`. REQUIRES: 0 < num_blocks <= kMaxBlocks.
static HWY_INLINE uint64_t BlockIndex(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}

static HWY_INLINE uint32_t ProbeSeed(uint64_t hash) { return static_cast<uint32_t>(hash); }

// Bit `probe` (< k) of a key, in [0, 512).
static HWY_INLINE uint32_t BitInBlock(uint32_t seed, int probe) {
  return (seed * internal::kProbeMultipliers[probe]) >> 23;
}

// Sets bit `bit` (0..511) of the block at `block`. A byte at a time, not a
// 64-bit word: a key's k bits often share a word (about two pairs a key at
// k = 6 over 8 words), and each such pair waits on store-to-load forwarding;
// among 64 bytes they rarely meet.
static HWY_INLINE void SetBlockBit(uint8_t* block, uint32_t bit) {
  block[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
}

namespace bloom_detail {

// Without vectors: every probe's 64-bit word, ANDed without a branch (an
// early exit mispredicts on about every other absent key, and is slower
// in cache).
static HWY_INLINE bool ProbeBlockScalar(const uint8_t* block, uint32_t seed, int num_probes) {
  uint64_t all_set = 1;
  for (int probe = 0; probe < num_probes; ++probe) {
    const uint32_t bit = BitInBlock(seed, probe);
    uint64_t word;
    std::memcpy(&word, block + (bit / 64) * 8, sizeof(word));
    all_set &= word >> (bit % 64);
  }
  return (all_set & 1) != 0;
}

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// A block is 16 32-bit words; a vector holds all of them (AVX-512), half
// (AVX2) or a quarter (128-bit targets). Lane i computes probe i.
using D = hn::CappedTag<uint32_t, internal::kBlockWords>;
constexpr size_t kLanes = hn::MaxLanes(D());
constexpr size_t kVectorsPerBlock = internal::kBlockWords / kLanes;
constexpr size_t kMaxChunks = kMaxProbesPerKey / kLanes;
constexpr int kLog2Lanes = kLanes == 16 ? 4 : kLanes == 8 ? 3 : kLanes == 4 ? 2 : 1;
static_assert((size_t{1} << kLog2Lanes) == kLanes, "lanes must divide a block");

// 1 << (bit position mod 32) in each lane, from the product whose top 9 bits
// are the position.
static HWY_INLINE hn::Vec<D> OneHotBits(hn::Vec<D> product) {
  const D d;
  return hn::Shl(hn::Set(d, 1u), hn::And(hn::ShiftRight<23>(product), hn::Set(d, 31u)));
}

// Block word of each lane's probe, given the top 4 bits of its product.
static HWY_INLINE hn::Vec<D> WordsOf(const hn::Vec<D>* words, hn::Vec<D> product) {
  const D d;
  const auto word_index = hn::ShiftRight<28>(product);
  if (kVectorsPerBlock == 1) {
    return hn::TableLookupLanes(words[0], hn::IndicesFromVec(d, word_index));
  }
  const auto lookup =
      hn::IndicesFromVec(d, hn::And(word_index, hn::Set(d, static_cast<uint32_t>(kLanes - 1))));
  // Several vectors (AVX2 has its own two-vector path in the prober): pick
  // each lane's word by the index's top bits.
  const auto part = hn::ShiftRight<kLog2Lanes>(word_index);
  auto got = hn::TableLookupLanes(words[0], lookup);
  for (size_t s = 1; s < kVectorsPerBlock; ++s) {
    got = hn::IfThenElse(hn::Eq(part, hn::Set(d, static_cast<uint32_t>(s))),
                         hn::TableLookupLanes(words[s], lookup), got);
  }
  return got;
}

#endif

#if HWY_TARGET == HWY_AVX2
// 1 in each of lanes [8 * half, 8 * half + 8) that stands for a probe below
// k, 0 in the others: shifting it makes each live lane's one-hot bit and
// leaves dead lanes empty, with no mask to apply.
static HWY_INLINE __m256i Avx2LiveLanes(int num_probes, int half) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(num_probes - 8 * half), lane);
  return _mm256_srli_epi32(live, 31);
}

// The block's two 32-byte halves; one vector multiply yields 8 probes, the
// top bit of each word index (the product's sign) picks the half in one
// blend, and one vptest says whether every wanted bit is set. A second round
// only when k > 8. `live_low`/`live_high` are Avx2LiveLanes(k, 0) and (k, 1).
static HWY_INLINE bool ProbeBlockAvx2(const uint8_t* block, uint32_t seed, int num_probes,
                                      __m256i live_low, __m256i live_high) {
  const __m256i* halves = reinterpret_cast<const __m256i*>(block);
  const __m256i lower = _mm256_loadu_si256(halves);
  const __m256i upper = _mm256_loadu_si256(halves + 1);
  const __m256i seeds = _mm256_set1_epi32(static_cast<int>(seed));
  int all_set = 1;
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && num_probes <= 8) break;
    const __m256i product = _mm256_mullo_epi32(
        seeds, _mm256_loadu_si256(
                   reinterpret_cast<const __m256i*>(internal::kProbeMultipliers + 8 * round)));
    // vpermd reads only the low 3 bits of each index.
    const __m256i word = _mm256_srli_epi32(product, 28);
    const __m256i got = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lower, word)),
                         _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(upper, word)),
                         _mm256_castsi256_ps(product)));
    const __m256i bit = _mm256_sllv_epi32(round == 0 ? live_low : live_high,
                                          _mm256_srli_epi32(_mm256_slli_epi32(product, 4), 27));
    all_set &= _mm256_testc_si256(got, bit);
  }
  return all_set != 0;
}
#endif  // HWY_AVX2

#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
// Lanes below k: the mask ProbeBlockAvx512 tests under.
static HWY_INLINE uint16_t Avx512LiveLanes(int num_probes) {
  return static_cast<uint16_t>((uint32_t{1} << num_probes) - 1);
}

// The whole block is one register, and k lanes, one per probe, test their
// bits under a lane mask. A rotate by the position makes the one-hot bit
// (its count is taken mod 32, which saves masking it). Every op is
// zero-masked to the live lanes: GCC 12 warns about the "undefined"
// pass-through operand of the unmasked forms, and dead lanes are ignored.
static HWY_INLINE bool ProbeBlockAvx512(const uint8_t* block, uint32_t seed, uint16_t live) {
  const __mmask16 lanes = static_cast<__mmask16>(live);
  const __m512i product = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(seed)),
                                             _mm512_loadu_si512(internal::kProbeMultipliers));
  const __m512i words = _mm512_loadu_si512(block);
  const __m512i got =
      _mm512_maskz_permutexvar_epi32(lanes, _mm512_maskz_srli_epi32(lanes, product, 28), words);
  const __m512i bit = _mm512_maskz_rolv_epi32(lanes, _mm512_set1_epi32(1),
                                              _mm512_maskz_srli_epi32(lanes, product, 23));
  return _mm512_mask_testn_epi32_mask(lanes, got, bit) == 0;
}
#endif  // AVX-512

}  // namespace bloom_detail

// Everything below is local to the including file (see the top of this
// header): one copy per file and target, never shared at link time.
namespace {

// Probes one filter: what depends only on k is worked out once, here, so a
// loop of MayMatchHash calls does only the per-key work.
class BlockedBloomProber {
 public:
  // REQUIRES: 1 <= filter.num_probes <= 16.
  explicit BlockedBloomProber(const BlockedBloomView& filter) : filter_(filter) {
    if (filter_.num_blocks == 0) {
      // An empty filter probes one block of zeros: "no" without a branch.
      filter_.bits = internal::kEmptyBlock;
      filter_.num_blocks = 1;
    }
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
    live_ = bloom_detail::Avx512LiveLanes(filter_.num_probes);
#elif HWY_TARGET == HWY_AVX2
    for (int half = 0; half < 2; ++half) {
      live_[half] = hn::Vec<bloom_detail::D>{bloom_detail::Avx2LiveLanes(filter_.num_probes, half)};
    }
#elif HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
    const bloom_detail::D d;
    for (size_t c = 0; c < bloom_detail::kMaxChunks; ++c) {
      const size_t first = c * bloom_detail::kLanes;
      const size_t k = static_cast<size_t>(filter_.num_probes);
      live_[c] = hn::VecFromMask(d, hn::FirstN(d, k > first ? k - first : 0));
    }
#endif
  }

  // True unless the k bits of `seed` are missing from the 64-byte `block`.
  HWY_INLINE bool ProbeBlock(const uint8_t* block, uint32_t seed) const {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
    // One lane gains nothing; scalable vectors have no compile-time lane
    // count to lay a block over.
    return bloom_detail::ProbeBlockScalar(block, seed, filter_.num_probes);
#elif HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
    return bloom_detail::ProbeBlockAvx512(block, seed, live_);
#elif HWY_TARGET == HWY_AVX2
    return bloom_detail::ProbeBlockAvx2(block, seed, filter_.num_probes, live_[0].raw,
                                        live_[1].raw);
#else
    namespace bd = bloom_detail;
    const bd::D d;
    hn::Vec<bd::D> words[bd::kVectorsPerBlock];
    for (size_t s = 0; s < bd::kVectorsPerBlock; ++s) {
      words[s] = hn::LoadU(d, reinterpret_cast<const uint32_t*>(block) + s * bd::kLanes);
    }
    const auto seeds = hn::Set(d, seed);
    auto missing = hn::Zero(d);
    for (size_t c = 0; c < bd::kMaxChunks; ++c) {
      if (c > 0 && static_cast<size_t>(filter_.num_probes) <= c * bd::kLanes) {
        break;
      }
      const auto product =
          hn::Mul(seeds, hn::LoadU(d, internal::kProbeMultipliers + c * bd::kLanes));
      const auto wanted = hn::And(live_[c], bd::OneHotBits(product));
      missing = hn::Or(missing, hn::AndNot(bd::WordsOf(words, product), wanted));
    }
    return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
#endif
  }

  // Same answer as BlockedBloomReader::MayMatchHash, without a call.
  HWY_INLINE bool MayMatchHash(uint64_t hash) const {
    return ProbeBlock(filter_.bits + BlockIndex(hash, filter_.num_blocks) * internal::kBlockBytes,
                      ProbeSeed(hash));
  }

 private:
  BlockedBloomView filter_;
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  uint16_t live_;  // Lanes whose probe is below k.
#elif HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  // Lanes whose probe is below k: all ones (AVX2: 1, see Avx2LiveLanes).
  hn::Vec<bloom_detail::D> live_[bloom_detail::kMaxChunks];
#endif
};

// One probe without a prober; a loop should hold a BlockedBloomProber.
HWY_INLINE bool MayMatchHash(const BlockedBloomView& filter, uint64_t hash) {
  return BlockedBloomProber(filter).MayMatchHash(hash);
}

}  // namespace

}  // namespace HWY_NAMESPACE
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_
