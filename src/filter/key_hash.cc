#include "lsmbloom/filter/key_hash.h"

#include "lsmbloom/filter/key_hash-inl.h"

namespace lsmbloom {

// flatten: GCC would otherwise leave XXH3's entry point as a second call,
// which costs as much as hashing a 16-byte key.
#if defined(__GNUC__)
__attribute__((flatten))
#endif
uint64_t
KeyHash(std::string_view key, const HashSpec& spec) {
  return KeyHashInline(key, spec);
}

void KeyHashBatch(const std::string_view* keys, uint64_t* out, size_t n, const HashSpec& spec) {
  for (size_t i = 0; i < n; ++i) out[i] = KeyHashInline(keys[i], spec);
}

}  // namespace lsmbloom
