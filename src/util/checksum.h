// Checksums of stored bytes: XXH3-64 (docs/FORMAT.md), computed with the
// widest vector code the CPU runs.
//
// XXH3 defines one value for every input whatever the code that computes it,
// so the choice is only about speed: a 4 KiB data block or a megabyte of
// filter bits hashes about twice as fast with AVX2 or AVX-512 as with the
// SSE2 code a portable build inlines. Short inputs (keys, headers) gain
// nothing from it; KeyHash() stays inline for them.

#ifndef LSMBLOOM_SRC_UTIL_CHECKSUM_H_
#define LSMBLOOM_SRC_UTIL_CHECKSUM_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace internal {

// XXH3_64bits_withSeed(data, size, seed). Thread-safe.
uint64_t Checksum64(const void* data, size_t size, uint64_t seed = 0);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_CHECKSUM_H_
