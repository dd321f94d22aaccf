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

// The reference computes the layout's formulas as blocked_bloom_layout.h
// states them (BlockOfHash, ProbeSeed, BitInBlock). The SIMD kernels compute
// their own (blocked_bloom-inl.h), per target; tests hold both to the same
// bits.

// Sets the k bits of each hash. `bits` holds num_blocks * 64 bytes.
void ReferenceAdd(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
                  size_t n);

// True if all k bits of `hash` are set. REQUIRES: num_blocks > 0.
bool ReferenceProbe(const uint8_t* bits, uint64_t num_blocks, int num_probes, uint64_t hash);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_REFERENCE_H_
