#include "lsmbloom/filter/key_hash.h"

#include "lsmbloom/filter/key_hash-inl.h"
#include "src/filter/key_hash_short.h"

namespace lsmbloom {

namespace internal {

// flatten: GCC would otherwise leave XXH3's entry point as a second call.
#if defined(__GNUC__)
__attribute__((flatten))
#endif
uint64_t
KeyHashLong(const char* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

}  // namespace internal

uint64_t KeyHash(std::string_view key, const HashSpec& spec) {
  return internal::KeyHashFast(key, spec.seed);
}

void KeyHashBatch(absl::Span<const std::string_view> keys, absl::Span<uint64_t> out,
                  const HashSpec& spec) {
  const uint64_t seed = spec.seed;
  const size_t n = keys.size();
  for (size_t i = 0; i < n; ++i) out[i] = internal::KeyHashFast(keys[i], seed);
}

}  // namespace lsmbloom
