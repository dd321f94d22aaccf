// Inlinable probes of a blocked filter, for code that is itself compiled per
// SIMD target (Highway's foreach_target.h, or one static target).
//
// Built without -mavx2 or better, BlockedBloomReader::MayMatchHash makes one
// indirect call per key into the kernel chosen at run time (built with them
// it inlines that target's probe, blocked_bloom_x86.h). The call costs about
// as much as the probe, so a caller with its own per-target loop can include
// this header inside its HWY_NAMESPACE and probe without any call, on the
// best target the CPU has:
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
#include "lsmbloom/filter/blocked_bloom_x86.h"

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
  return hn::Shl(hn::Set(d, 1u), hn::And(hn::ShiftRight<23>(product), hn::Set(d, 31u)));
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
    live_ = internal::Avx512LiveLanes(filter_.num_probes);
#elif HWY_TARGET == HWY_AVX2
    for (int half = 0; half < 2; ++half) {
      live_[half] = hn::Vec<bloom_detail::D>{internal::Avx2LiveLanes(filter_.num_probes, half)};
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
    return internal::ProbeBlockAvx512(block, seed, live_);
#elif HWY_TARGET == HWY_AVX2
    return internal::ProbeBlockAvx2(block, seed, filter_.num_probes, live_[0].raw, live_[1].raw);
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

}  // namespace HWY_NAMESPACE
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_INL_H_
