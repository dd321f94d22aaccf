#include "src/util/checksum.h"

#if defined(__x86_64__)
// Debian's libxxhash carries xxHash's x86 dispatcher, which picks SSE2,
// AVX2 or AVX-512 code once, from the CPU it runs on.
#include <xxh_x86dispatch.h>
#else
#include <xxhash.h>
#endif

namespace lsmbloom {
namespace internal {

uint64_t Checksum64(const void* data, size_t size, uint64_t seed) {
#if defined(__x86_64__)
  return XXH3_64bits_withSeed_dispatch(data, size, seed);
#else
  return XXH3_64bits_withSeed(data, size, seed);
#endif
}

}  // namespace internal
}  // namespace lsmbloom
