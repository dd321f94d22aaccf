// The scalar reference of the filter layout: plain C++, one bit at a time.
//
// It defines what every SIMD kernel must reproduce bit for bit; tests compare
// each compiled Highway target against it. It is also the HWY_SCALAR target.

#ifndef LSMBLOOM_SRC_FILTER_REFERENCE_KERNELS_H_
#define LSMBLOOM_SRC_FILTER_REFERENCE_KERNELS_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace internal {

// Sets the k bits of each hash. `bits` holds num_blocks * 64 bytes.
void ReferenceAdd(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
                  size_t n);

// True if all k bits of `hash` are set. REQUIRES: num_blocks > 0.
bool ReferenceProbe(const uint8_t* bits, uint64_t num_blocks, int num_probes, uint64_t hash);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_REFERENCE_KERNELS_H_
