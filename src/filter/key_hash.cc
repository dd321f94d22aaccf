#include "lsmbloom/key_hash.h"

// Inline XXH3 into this file: the call through libxxhash's generic entry
// point costs about as much as hashing a short key.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lsmbloom {

// flatten: GCC would otherwise leave XXH3's entry point as a second call,
// which costs as much as hashing a 16-byte key.
#if defined(__GNUC__)
__attribute__((flatten))
#endif
uint64_t KeyHash(std::string_view key, const HashSpec& spec) {
  // HashId has a single member today; a reader rejects filters naming any
  // other id before a hash from here can reach them.
  return XXH3_64bits_withSeed(key.data(), key.size(), spec.seed);
}

void KeyHashBatch(const std::string_view* keys, uint64_t* out, size_t n,
                  const HashSpec& spec) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = XXH3_64bits_withSeed(keys[i].data(), keys[i].size(), spec.seed);
  }
}

}  // namespace lsmbloom
