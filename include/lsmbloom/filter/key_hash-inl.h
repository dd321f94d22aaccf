// KeyHash as an inline function, for hot loops that hash many keys and
// cannot afford a call per key (a call costs about as much as hashing a
// 16-byte key). Same values as KeyHash in key_hash.h.
//
// This header includes xxHash with XXH_INLINE_ALL, which turns every xxHash
// function into a static inline one in the including file: include it before
// any other inclusion of <xxhash.h> in that file, or not at all. KeyHashInline
// is static too: each file that includes it compiles its own copy for its own
// target flags, and no copy is shared at link time with a file built for
// another instruction set (see tests/public_headers_odr_test.sh).

#ifndef LSMBLOOM_FILTER_KEY_HASH_INL_H_
#define LSMBLOOM_FILTER_KEY_HASH_INL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "lsmbloom/filter/key_hash.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace lsmbloom {
static inline uint64_t KeyHashInline(std::string_view key, const HashSpec& spec = HashSpec()) {
  // HashId has a single member today; a reader rejects filters naming any
  // other id before a hash from here can reach them.
  // xxHash's own entry point, inlined whole, measured faster in callers'
  // loops than the short-key path below (docs/PERFORMANCE.md).
  return XXH3_64bits_withSeed(key.data(), key.size(), spec.seed);
}

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_KEY_HASH_INL_H_
