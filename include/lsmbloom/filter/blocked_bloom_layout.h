// Where a hash lands in a blocked filter: the bit layout of format version 1.
//
// These few lines define the format (docs/FORMAT.md): every kernel, scalar or
// SIMD, computes exactly this, and golden tests pin it. Changing any constant
// here changes the bytes of every filter and needs a new format version.
//
// Constants only: the functions that compute these formulas live with the
// code that runs them (per SIMD target in blocked_bloom-inl.h, once in the
// library's scalar reference), because an inline function here would be
// compiled differently by every includer's target flags (see
// tests/public_headers_odr_test.sh). Part of the opt-in fast tier: the core
// headers (filter_policy.h, table/, lookup/) do not include it.
//
//   block  = ((hash >> 32) * num_blocks) >> 32        multiply-shift, no modulo
//   seed   = low 32 bits of hash
//   bit_i  = (seed * kProbeMultipliers[i]) >> 23      i in [0, k); 0..511
//
// Bit p of a block is bit (p % 8) of its byte p / 8: equivalently bit (p % 32)
// of little-endian 32-bit word p / 32, which is how the kernels read it.
// Block and bit positions come from independent halves of the hash; each
// position remixes the whole low half with its own odd multiplier, so there is
// no stride that can be zero (the flaw of h += delta double hashing).

#ifndef LSMBLOOM_FILTER_BLOCKED_BLOOM_LAYOUT_H_
#define LSMBLOOM_FILTER_BLOCKED_BLOOM_LAYOUT_H_

#include <cstdint>

#include "lsmbloom/filter/bloom_math.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "lsmbloom's kernels read filter words as little-endian; port them first"
#endif

namespace lsmbloom {
namespace internal {

// kBlockBits and kMaxProbesPerKey (bloom_math.h) in the units kernels use.
inline constexpr int kBlockBytes = kBlockBits / 8;
inline constexpr int kBlockWords = kBlockBits / 32;  // 32-bit words per block.
inline constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;

// Odd 32-bit constants with balanced bit counts, drawn once from SplitMix64.
inline constexpr uint32_t kProbeMultipliers[kMaxProbesPerKey] = {
    0x5be4a8b9, 0x5233f137, 0x8f98c829, 0xa2ba031b, 0x7c5a24d9, 0xadcf521f, 0xfb25d141, 0x3121fc9d,
    0x68eeeb5b, 0xa9ab11d3, 0xd0c5fbe3, 0x2323055b, 0xaa1f51c9, 0x2cb7000f, 0x45c6115b, 0x68da689b};

// What an empty filter's probes read: a block with no bit set.
alignas(64) inline constexpr uint8_t kEmptyBlock[kBlockBytes] = {};

// The layout's formulas in plain integer code (the scalar reference and
// the lookup path's probes of held modules use them; the SIMD kernels
// compute the same per target, blocked_bloom-inl.h).
// The block of `hash`: multiply-shift of its high half, no modulo.
// REQUIRES: 0 < num_blocks <= kMaxBlocks.
inline uint64_t BlockOfHash(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}
// The bit positions of a key come from its low half.
inline uint32_t ProbeSeed(uint64_t hash) { return static_cast<uint32_t>(hash); }
// Bit `probe` of a key's k, in [0, 512).
inline uint32_t BitInBlock(uint32_t seed, int probe) {
  return (seed * kProbeMultipliers[probe]) >> 23;
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_LAYOUT_H_
