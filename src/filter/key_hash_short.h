// KeyHash inline, for the library's own hot loops: XXH3-64 of keys of at
// most 16 bytes inline (Xxh3ShortKey below), longer keys through one call. Internal: a public header may not carry an inline
// function of external linkage that hashes, as each includer would compile
// it with its own target flags (BMI2, AVX-512...) and one copy would serve
// every caller (tests/public_headers_odr_test.sh): Xxh3ShortKey is static.

#ifndef LSMBLOOM_SRC_FILTER_KEY_HASH_SHORT_H_
#define LSMBLOOM_SRC_FILTER_KEY_HASH_SHORT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace internal {

// XXH3-64 of keys of at most 16 bytes, written from the XXH3 specification
// (xxHash 0.8): the constants are words of its default secret XORed in
// pairs, as each length class uses them. What the library's KeyHash inlines
// (src/filter/key_hash_short.h); tests/key_hash_test checks every length
// against libxxhash for many seeds.
static inline uint64_t ReadLE64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));  // Little-endian hosts (blocked_bloom_layout.h).
  return v;
}
static inline uint32_t ReadLE32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
static inline uint64_t Xxh3ShortKey(const char* p, size_t len, uint64_t seed) {
  if (len > 8) {
    const uint64_t lo = ReadLE64(p) ^ (0x6782737bea4239b9ULL + seed);
    const uint64_t hi = ReadLE64(p + len - 8) ^ (0xaf56bc3b0996523aULL - seed);
    const unsigned __int128 product = static_cast<unsigned __int128>(lo) * hi;
    uint64_t acc = len + __builtin_bswap64(lo) + hi +
                   (static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64));
    acc ^= acc >> 37;
    acc *= 0x165667919E3779F9ULL;
    return acc ^ (acc >> 32);
  }
  if (len >= 4) {
    seed ^= uint64_t{__builtin_bswap32(static_cast<uint32_t>(seed))} << 32;
    const uint64_t first = ReadLE32(p), last = ReadLE32(p + len - 4);
    uint64_t h = (last + (first << 32)) ^ (0xc73ab174c5ecd5a2ULL - seed);
    h ^= ((h << 49) | (h >> 15)) ^ ((h << 24) | (h >> 40));
    h *= 0x9FB21C651E98DF25ULL;
    h ^= (h >> 35) + len;
    h *= 0x9FB21C651E98DF25ULL;
    return h ^ (h >> 28);
  }
  uint64_t h;
  if (len > 0) {
    const uint32_t first = static_cast<uint8_t>(p[0]);
    const uint32_t middle = static_cast<uint8_t>(p[len / 2]);
    const uint32_t last = static_cast<uint8_t>(p[len - 1]);
    const uint32_t combined =
        (first << 16) | (middle << 24) | last | (static_cast<uint32_t>(len) << 8);
    h = uint64_t{combined} ^ (uint64_t{0x87275a9b} + seed);
  } else {
    h = seed ^ 0x8726f9105dc21ddcULL;
  }
  h ^= h >> 33;
  h *= 0xC2B2AE3D27D4EB4FULL;
  h ^= h >> 29;
  h *= 0x165667B19E3779F9ULL;
  return h ^ (h >> 32);
}


// KeyHash of keys longer than 16 bytes (key_hash.cc). The seed by value, and
// pure: a caller's loop then keeps a filter's fields in registers across it.
__attribute__((pure)) uint64_t KeyHashLong(const char* data, size_t size, uint64_t seed);

// KeyHash, inline for keys of up to 16 bytes.
inline uint64_t KeyHashFast(std::string_view key, uint64_t seed) {
  // HashId has a single member today; a reader rejects filters naming any
  // other id before a hash from here can reach them.
  if (key.size() <= 16) return Xxh3ShortKey(key.data(), key.size(), seed);
  return KeyHashLong(key.data(), key.size(), seed);
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_KEY_HASH_SHORT_H_
