// Deterministic key sets for tests: random-looking keys and the structured
// shapes real tables have (big-endian counters, long shared prefixes).

#ifndef LSMBLOOM_TESTS_TEST_KEYS_H_
#define LSMBLOOM_TESTS_TEST_KEYS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/util/random.h"

namespace lsmbloom {
namespace testutil {

enum class KeyShape { kRandom16, kBigEndianCounter, kSharedPrefix };

inline const char* ShapeName(KeyShape shape) {
  switch (shape) {
    case KeyShape::kRandom16:
      return "random16";
    case KeyShape::kBigEndianCounter:
      return "big_endian_counter";
    case KeyShape::kSharedPrefix:
      return "shared_prefix";
  }
  return "?";
}

using internal::SplitMix64;

// Key number `i` of a family. Families with different `family` values never
// share a key, which is how tests know that a probe key is absent.
inline std::string MakeKey(KeyShape shape, uint32_t family, uint64_t i) {
  std::string key;
  switch (shape) {
    case KeyShape::kRandom16: {
      const uint64_t a = SplitMix64(i * 2 + (uint64_t{family} << 40));
      const uint64_t b = SplitMix64(a ^ family);
      key.assign(reinterpret_cast<const char*>(&a), 8);
      key.append(reinterpret_cast<const char*>(&b), 8);
      // The family in the last byte guarantees disjointness.
      key[15] = static_cast<char>(family);
      break;
    }
    case KeyShape::kBigEndianCounter:
      key.push_back(static_cast<char>(family));
      for (int shift = 56; shift >= 0; shift -= 8) {
        key.push_back(static_cast<char>(i >> shift));
      }
      break;
    case KeyShape::kSharedPrefix:
      key = "user/tenant-0042/orders/2026-12-02/";
      key += std::to_string(family);
      key += '/';
      key += std::to_string(i);
      break;
  }
  return key;
}

inline std::vector<std::string> MakeKeys(KeyShape shape, uint32_t family, uint64_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (uint64_t i = 0; i < n; ++i) keys.push_back(MakeKey(shape, family, i));
  return keys;
}

}  // namespace testutil
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_TEST_KEYS_H_
