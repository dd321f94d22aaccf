// KeyHash inline, for the library's own hot loops: XXH3-64 of keys of at
// most 16 bytes inline (key_hash-inl.h's static short-key path), longer keys
// through one call. Internal: a public header may not carry an inline
// function of external linkage that hashes, as each includer would compile
// it with its own target flags (BMI2, AVX-512...) and one copy would serve
// every caller (tests/public_headers_odr_test.sh). Include before any other
// inclusion of <xxhash.h> (key_hash-inl.h).

#ifndef LSMBLOOM_SRC_FILTER_KEY_HASH_SHORT_H_
#define LSMBLOOM_SRC_FILTER_KEY_HASH_SHORT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "lsmbloom/filter/key_hash-inl.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace internal {

// KeyHash of keys longer than 16 bytes (key_hash.cc). The seed by value, and
// pure: a caller's loop then keeps a filter's fields in registers across it.
__attribute__((pure)) uint64_t KeyHashLong(const char* data, size_t size, uint64_t seed);

// KeyHash, inline for keys of up to 16 bytes.
inline uint64_t KeyHashFast(std::string_view key, uint64_t seed) {
  // HashId has a single member today; a reader rejects filters naming any
  // other id before a hash from here can reach them.
  if (key.size() <= 16) return key_hash_inl::Xxh3ShortKey(key.data(), key.size(), seed);
  return KeyHashLong(key.data(), key.size(), seed);
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_KEY_HASH_SHORT_H_
