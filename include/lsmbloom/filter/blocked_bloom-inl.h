// Inlinable probes of a blocked filter, for code that is itself compiled per
// SIMD target (Highway's foreach_target.h, or one static target).
//
// BlockedBloomReader::MayMatchHash makes one indirect call per key into the
// kernel chosen at run time. That call costs about as much as the probe, so
// a caller with its own per-target loop can include this header inside its
// HWY_NAMESPACE and probe without any call:
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
namespace bloom_detail {

// Without vectors: every probe's 64-bit word, ANDed without a branch (an
// early exit mispredicts on about every other absent key; measured 1.4-2x
// slower in cache).
HWY_INLINE bool ProbeBlockScalar(const uint8_t* block, uint32_t seed, int num_probes) {
  uint64_t all_set = 1;
  for (int probe = 0; probe < num_probes; ++probe) {
    const uint32_t bit = internal::BitInBlock(seed, probe);
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
constexpr size_t kMaxChunks = internal::kMaxProbesPerKey / kLanes;
constexpr int kLog2Lanes = kLanes == 16 ? 4 : kLanes == 8 ? 3 : kLanes == 4 ? 2 : 1;
static_assert((size_t{1} << kLog2Lanes) == kLanes, "lanes must divide a block");

// 1 << (bit position mod 32) in each lane, from the product whose top 9 bits
// are the position.
HWY_INLINE hn::Vec<D> OneHotBits(hn::Vec<D> product) {
  const D d;
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  // A rotate takes its count mod 32, which saves the mask of the count.
  return hn::Vec<D>{_mm512_rolv_epi32(hn::Set(d, 1u).raw, hn::ShiftRight<23>(product).raw)};
#else
  return hn::Shl(hn::Set(d, 1u), hn::And(hn::ShiftRight<23>(product), hn::Set(d, 31u)));
#endif
}

// Block word of each lane's probe, given the top 4 bits of its product.
HWY_INLINE hn::Vec<D> WordsOf(const hn::Vec<D>* words, hn::Vec<D> product) {
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

}  // namespace bloom_detail

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
    live_ = static_cast<__mmask16>((uint32_t{1} << filter_.num_probes) - 1);
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
    // The whole block is one register, and k lanes, one per probe, test
    // their bits under a lane mask: no masking or OR of vectors. Written
    // with intrinsics because the masked test has no Highway op.
    namespace bd = bloom_detail;
    const bd::D d;
    const auto product = hn::Mul(hn::Set(d, seed), hn::LoadU(d, internal::kProbeMultipliers));
    const auto words = hn::LoadU(d, reinterpret_cast<const uint32_t*>(block));
    const auto got = bd::WordsOf(&words, product);
    const __mmask16 missing =
        _mm512_mask_testn_epi32_mask(live_, got.raw, bd::OneHotBits(product).raw);
    return missing == 0;
#elif HWY_TARGET == HWY_AVX2
    // Two halves of the block; one vector multiply yields 8 probes, the top
    // bit of each word index (the product's sign) picks the half in one
    // blend, and one test says whether every wanted bit is set. Intrinsics:
    // vpermd reads only the index's low 3 bits, and vptest has no Highway op.
    const __m256i* halves = reinterpret_cast<const __m256i*>(block);
    const __m256i lower = _mm256_loadu_si256(halves);
    const __m256i upper = _mm256_loadu_si256(halves + 1);
    const __m256i seeds = _mm256_set1_epi32(static_cast<int>(seed));
    const __m256i one = _mm256_set1_epi32(1);
    int all_set = 1;
    for (size_t c = 0; c < 2; ++c) {
      if (c == 1 && filter_.num_probes <= 8) break;
      const __m256i product = _mm256_mullo_epi32(
          seeds, _mm256_loadu_si256(
                     reinterpret_cast<const __m256i*>(internal::kProbeMultipliers + 8 * c)));
      const __m256i word = _mm256_srli_epi32(product, 28);
      const __m256i got = _mm256_castps_si256(
          _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lower, word)),
                           _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(upper, word)),
                           _mm256_castsi256_ps(product)));
      const __m256i bit = _mm256_and_si256(
          live_[c].raw,
          _mm256_sllv_epi32(one, _mm256_srli_epi32(_mm256_slli_epi32(product, 4), 27)));
      all_set &= _mm256_testc_si256(got, bit);
    }
    return all_set != 0;
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
    return ProbeBlock(
        filter_.bits + internal::BlockIndex(hash, filter_.num_blocks) * internal::kBlockBytes,
        internal::ProbeSeed(hash));
  }

 private:
  BlockedBloomView filter_;
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  __mmask16 live_;  // Lanes whose probe is below k.
#elif HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  hn::Vec<bloom_detail::D> live_[bloom_detail::kMaxChunks];  // All-ones: probe < k.
#endif
};

// One probe without a prober; a loop should hold a BlockedBloomProber.
HWY_INLINE bool MayMatchHash(const BlockedBloomView& filter, uint64_t hash) {
  return BlockedBloomProber(filter).MayMatchHash(hash);
}

}  // namespace HWY_NAMESPACE
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_
