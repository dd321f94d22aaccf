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
#include <string_view>

#include "absl/types/span.h"

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

// Hashes `key` as filters with `spec` expect. Thread-safe, no allocation.
// A call into the library (compiled once, optimised): code that hashes keys
// in a hot loop should hash them together with KeyHashBatch, or inline
// KeyHashInline (key_hash-inl.h).
__attribute__((pure)) uint64_t KeyHash(std::string_view key, const HashSpec& spec = HashSpec());

// out[i] = KeyHash(keys[i], spec). REQUIRES: out.size() == keys.size().
void KeyHashBatch(absl::Span<const std::string_view> keys, absl::Span<uint64_t> out,
                  const HashSpec& spec = HashSpec());

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_KEY_HASH_H_
