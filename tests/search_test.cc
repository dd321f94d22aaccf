#include "src/util/search.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace lsmbloom {
namespace internal {
namespace {

// Every size around the points where the search switches from halving to
// counting, with runs of equal values, against std::lower_bound for every
// value present, between and beyond.
TEST(SearchTest, BranchlessLowerBoundAgreesWithStdLowerBound) {
  std::mt19937_64 rng(5);
  for (size_t n = 0; n <= 200; ++n) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<uint64_t> values(n);
      for (uint64_t& v : values) v = 2 * (rng() % (n / 2 + 2));  // Even, with repeats.
      std::sort(values.begin(), values.end());
      for (uint64_t x = 0; x <= 2 * (n / 2 + 2) + 1; ++x) {
        const size_t want = std::lower_bound(values.begin(), values.end(), x) - values.begin();
        ASSERT_EQ(BranchlessLowerBound(values.data(), n, x), want) << "n " << n << " x " << x;
      }
      ASSERT_EQ(BranchlessLowerBound(values.data(), n, UINT64_MAX),
                std::lower_bound(values.begin(), values.end(), UINT64_MAX) - values.begin());
    }
  }
}

}  // namespace
}  // namespace internal
}  // namespace lsmbloom
