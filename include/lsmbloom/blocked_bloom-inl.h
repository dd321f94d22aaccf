// Inlinable probes of a blocked filter, for code that is itself compiled per
// SIMD target (Highway's foreach_target.h, or one static target).
//
// BlockedBloomReader::MayMatchHash makes one indirect call per key into the
// kernel chosen at run time. That call costs about as much as the probe, so
// a caller with its own per-target loop can include this header inside its
// HWY_NAMESPACE and probe without any call:
//
//   #include "lsmbloom/blocked_bloom-inl.h"   // after hwy/highway.h
//   HWY_BEFORE_NAMESPACE();
//   namespace my_project { namespace HWY_NAMESPACE {
//   size_t CountMaybe(const lsmbloom::BlockedBloomView& f, const uint64_t* h,
//                     size_t n) {
//     size_t maybe = 0;
//     for (size_t i = 0; i < n; ++i) {
//       maybe += lsmbloom::HWY_NAMESPACE::MayMatchHash(f, h[i]);
//     }
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

#include "lsmbloom/blocked_bloom.h"
#include "lsmbloom/blocked_bloom_layout.h"

#if defined(LSMBLOOM_BLOCKED_BLOOM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LSMBLOOM_BLOCKED_BLOOM_INL_H_
#undef LSMBLOOM_BLOCKED_BLOOM_INL_H_
#else
#define LSMBLOOM_BLOCKED_BLOOM_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace HWY_NAMESPACE {
namespace bloom_detail {
namespace hn = hwy::HWY_NAMESPACE;

// The scalar reference: one bit at a time, stopping at the first clear bit.
HWY_INLINE bool ProbeBlockScalar(const uint8_t* block, uint32_t seed,
                                 int num_probes) {
  for (int probe = 0; probe < num_probes; ++probe) {
    const uint32_t bit = internal::BitInBlock(seed, probe);
    if ((block[bit / 8] & (1u << (bit % 8))) == 0) return false;
  }
  return true;
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

// Lanes of chunk `chunk` (probes chunk * kLanes ...) whose bit is missing
// from the block words, as all-ones lanes; dead lanes (probe >= k) are zero.
HWY_INLINE hn::Vec<D> MissingBits(const hn::Vec<D>* words, uint32_t seed,
                                  size_t chunk, int num_probes) {
  const D d;
  const auto product = hn::Mul(
      hn::Set(d, seed), hn::LoadU(d, internal::kProbeMultipliers + chunk * kLanes));
  // Bit position = top 9 bits of the product: word = top 4, bit = next 5.
  const auto word_index = hn::ShiftRight<28>(product);
  const auto bit = hn::And(hn::ShiftRight<23>(product), hn::Set(d, 31u));
  const size_t live = static_cast<size_t>(num_probes) - chunk * kLanes;
  const auto wanted = hn::IfThenElseZero(hn::FirstN(d, live),
                                         hn::Shl(hn::Set(d, 1u), bit));
  hn::Vec<D> got;
  if (kVectorsPerBlock == 1) {
    got = hn::TableLookupLanes(words[0], hn::IndicesFromVec(d, word_index));
  } else {
    const auto lookup = hn::IndicesFromVec(
        d, hn::And(word_index, hn::Set(d, static_cast<uint32_t>(kLanes - 1))));
    if (kVectorsPerBlock == 2) {
      // The word index's top bit is the product's sign bit: one blend.
      const hn::RebindToSigned<D> di;
      got = hn::BitCast(
          d, hn::IfNegativeThenElse(
                 hn::BitCast(di, product),
                 hn::BitCast(di, hn::TableLookupLanes(words[1], lookup)),
                 hn::BitCast(di, hn::TableLookupLanes(words[0], lookup))));
    } else {
      // Four quarters: pick each lane's word by the index's top two bits.
      const auto quarter = hn::ShiftRight<kLog2Lanes>(word_index);
      got = hn::TableLookupLanes(words[0], lookup);
      for (size_t s = 1; s < kVectorsPerBlock; ++s) {
        got = hn::IfThenElse(
            hn::Eq(quarter, hn::Set(d, static_cast<uint32_t>(s))),
            hn::TableLookupLanes(words[s], lookup), got);
      }
    }
  }
  return hn::AndNot(got, wanted);
}

HWY_INLINE bool ProbeBlockVector(const uint8_t* block, uint32_t seed,
                                 int num_probes) {
  const D d;
  hn::Vec<D> words[kVectorsPerBlock];
  for (size_t s = 0; s < kVectorsPerBlock; ++s) {
    words[s] = hn::LoadU(d, reinterpret_cast<const uint32_t*>(block) + s * kLanes);
  }
  auto missing = MissingBits(words, seed, 0, num_probes);
  for (size_t c = 1; c < kMaxChunks; ++c) {
    if (static_cast<size_t>(num_probes) <= c * kLanes) break;
    missing = hn::Or(missing, MissingBits(words, seed, c, num_probes));
  }
  return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
}
#endif

}  // namespace bloom_detail

// True unless the k bits of `seed` are missing from the 64-byte `block`.
// REQUIRES: 1 <= num_probes <= 16.
HWY_INLINE bool ProbeBlock(const uint8_t* block, uint32_t seed, int num_probes) {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  // One lane gains nothing; scalable vectors have no compile-time lane count
  // to lay a block over.
  return bloom_detail::ProbeBlockScalar(block, seed, num_probes);
#else
  return bloom_detail::ProbeBlockVector(block, seed, num_probes);
#endif
}

// The block of `hash` in a filter of `num_blocks` blocks.
HWY_INLINE const uint8_t* BlockOf(const BlockedBloomView& filter, uint64_t hash) {
  return filter.bits +
         internal::BlockIndex(hash, filter.num_blocks) * internal::kBlockBytes;
}

// Same answer as BlockedBloomReader::MayMatchHash, without a call.
HWY_INLINE bool MayMatchHash(const BlockedBloomView& filter, uint64_t hash) {
  return filter.num_blocks != 0 &&
         ProbeBlock(BlockOf(filter, hash), internal::ProbeSeed(hash),
                    filter.num_probes);
}

}  // namespace HWY_NAMESPACE
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#endif  // LSMBLOOM_BLOCKED_BLOOM_INL_H_
