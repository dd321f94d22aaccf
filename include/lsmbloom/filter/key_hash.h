// Key hashing for lsmbloom filters.
//
// Every filter stores the identity of the hash that placed its bits (a hash id
// and a 64-bit seed, see docs/FORMAT.md). Keys are hashed with the final
// XXH3-64 of their bytes: stable across processes, machines and releases, so
// a filter written today is readable tomorrow. Per-process seeded hashes
// (absl::Hash, std::hash) must never reach a filter.
//
// A lookup across many files hashes the key once with KeyHash() and passes the
// hash to every filter that shares the same HashSpec.

#ifndef LSMBLOOM_FILTER_KEY_HASH_H_
#define LSMBLOOM_FILTER_KEY_HASH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace lsmbloom {

// The hash functions a filter can declare. The value is stored in the filter.
enum class HashId : uint8_t {
  kXxh3_64 = 1,  // XXH3_64bits_withSeed(key, seed); seed 0 is plain XXH3-64.
};

// Which hash placed a filter's bits. Two filters with equal HashSpecs accept
// the same precomputed hash.
struct HashSpec {
  HashId id = HashId::kXxh3_64;
  uint64_t seed = 0;

  friend bool operator==(const HashSpec& a, const HashSpec& b) {
    return a.id == b.id && a.seed == b.seed;
  }
  friend bool operator!=(const HashSpec& a, const HashSpec& b) { return !(a == b); }
};

namespace internal {
// XXH3-64 of keys of at most 16 bytes, inline: for such keys the call into
// the library costs as much as the hash. Written from the XXH3 specification
// (xxHash 0.8); the constants are words of its default secret XORed in
// pairs, as each length class uses them. tests/key_hash_test checks every
// length against libxxhash for many seeds.
inline uint64_t ReadLE64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));  // Little-endian hosts (blocked_bloom_layout.h).
  return v;
}
inline uint32_t ReadLE32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint64_t Xxh3ShortKey(const char* p, size_t len, uint64_t seed) {
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

// KeyHash of keys longer than 16 bytes: xxHash's XXH3, compiled into
// src/filter/key_hash.cc. It takes the seed by value: a HashSpec by
// reference would keep a caller's temporary spec (KeyHash(key)) in memory,
// written again for every key of its loop. Pure (it reads memory, writes
// none): otherwise a caller's loop that may take this call reloads every
// field it uses after it, for every key (a filter's seed, bits and size).
__attribute__((pure)) uint64_t KeyHashLong(const char* data, size_t size, uint64_t seed);
}  // namespace internal

// Hashes `key` as filters with `spec` expect. Thread-safe, no allocation.
// Inline for keys of up to 16 bytes, a call for longer ones.
inline uint64_t KeyHash(std::string_view key, const HashSpec& spec = HashSpec()) {
  // HashId has a single member today; a reader rejects filters naming any
  // other id before a hash from here can reach them.
  if (key.size() <= 16) return internal::Xxh3ShortKey(key.data(), key.size(), spec.seed);
  return internal::KeyHashLong(key.data(), key.size(), spec.seed);
}

// Hashes `n` keys into `out[0, n)`. Same result as calling KeyHash on each.
void KeyHashBatch(const std::string_view* keys, uint64_t* out, size_t n,
                  const HashSpec& spec = HashSpec());

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_KEY_HASH_H_
