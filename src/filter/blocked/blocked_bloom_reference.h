// The scalar reference of the filter layout: plain C++, one bit at a time.
//
// It defines what every SIMD kernel must reproduce bit for bit; tests compare
// each compiled Highway target against it. It is also the HWY_SCALAR target.

#ifndef LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_REFERENCE_H_
#define LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_REFERENCE_H_

#include <cstddef>
#include <cstdint>

#include "lsmbloom/filter/blocked_bloom_layout.h"

namespace lsmbloom {
namespace internal {

// The layout's formulas (blocked_bloom_layout.h), as the reference computes
// them. The SIMD kernels compute their own (blocked_bloom-inl.h), per target;
// tests hold both to the same bits.

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

// Sets the k bits of each hash. `bits` holds num_blocks * 64 bytes.
void ReferenceAdd(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
                  size_t n);

// True if all k bits of `hash` are set. REQUIRES: num_blocks > 0.
bool ReferenceProbe(const uint8_t* bits, uint64_t num_blocks, int num_probes, uint64_t hash);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_REFERENCE_H_
