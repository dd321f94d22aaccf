// Searching the small sorted arrays of the lookup path.

#ifndef LSMBLOOM_SRC_UTIL_SEARCH_H_
#define LSMBLOOM_SRC_UTIL_SEARCH_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace internal {

// Index of the first of `n` sorted values that is >= x (n if none), as
// std::lower_bound. A lookup's keys are unpredictable, so a branchy search
// mispredicts about every other step: this one halves with a conditional
// move (one cycle on the chain of dependent loads) down to a few values,
// then counts those below x, which has no chain of dependent loads.
inline size_t BranchlessLowerBound(const uint64_t* values, size_t n, uint64_t x) {
  size_t lo = 0;
  while (n > 8) {
    const size_t half = n / 2;
    lo = values[lo + half - 1] < x ? lo + half : lo;
    n -= half;
  }
  size_t below = 0;
  for (size_t i = 0; i < n; ++i) below += values[lo + i] < x;
  return lo + below;
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_SEARCH_H_
