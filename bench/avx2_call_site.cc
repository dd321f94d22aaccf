#include "bench/avx2_call_site.h"

#include <string_view>

#if !defined(__AVX2__) || !defined(LSMBLOOM_HAVE_X86_PROBES)
#error "compile with -mavx2 (see BUILD): this file measures the inlined AVX2 probe"
#endif

namespace lsmbloom {
namespace bench {

size_t CountHashesAvx2Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n) {
  size_t maybe = 0;
  for (size_t i = 0; i < n; ++i) maybe += reader.MayMatchHash(hashes[i]);
  return maybe;
}

void ProbeHashesAvx2Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n,
                         bool* out) {
  for (size_t i = 0; i < n; ++i) out[i] = reader.MayMatchHash(hashes[i]);
}

size_t CountKeysAvx2Site(const BlockedBloomReader& reader, const char* keys, size_t key_size,
                         size_t n) {
  size_t maybe = 0;
  for (size_t i = 0; i < n; ++i) {
    maybe += reader.MayMatch(std::string_view(keys + i * key_size, key_size));
  }
  return maybe;
}

}  // namespace bench
}  // namespace lsmbloom
