// Deterministic pseudo-random numbers for generated data: the demo's and
// the benchmarks' key sets, and the tests'. Not for anything secret.

#ifndef LSMBLOOM_SRC_UTIL_RANDOM_H_
#define LSMBLOOM_SRC_UTIL_RANDOM_H_

#include <cstdint>

namespace lsmbloom {
namespace internal {

// SplitMix64 (Steele, Lea and Flood): x's golden-ratio increment, then its
// finalizer. A bijection on 64 bits whose outputs for consecutive inputs
// pass BigCrush, so SplitMix64(i) numbers a random-looking sequence.
constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_RANDOM_H_
