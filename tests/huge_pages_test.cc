#include "src/filter/huge_pages.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace lsmbloom {
namespace internal {
namespace {

bool AllZero(const uint8_t* data, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] != 0) return false;
  }
  return true;
}

// Sizes below and above the point where AllocateLarge maps memory itself.
const std::vector<size_t> kSizes = {0, 1, 64, 1000, 640 << 10, (32 << 20) + 4096};

TEST(ZeroedLinesTest, StartsOnACacheLineAndHoldsOnlyZeroes) {
  for (size_t bytes : kSizes) {
    ZeroedLines lines(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(lines.data()) % 64, 0u) << bytes;
    EXPECT_TRUE(AllZero(lines.data(), bytes)) << bytes;
    if (bytes != 0) lines.data()[bytes - 1] = 1;  // Writable to its end.
  }
}

TEST(ZeroedLinesTest, HoldsZeroesWhereAnEarlierBufferLeftOtherBytes) {
  // malloc hands back what was just freed: the second buffer of each size
  // is most likely the first one's memory.
  for (size_t bytes : kSizes) {
    {
      ZeroedLines dirty(bytes);
      std::memset(dirty.data(), 0xa5, bytes);
    }
    ZeroedLines lines(bytes);
    EXPECT_TRUE(AllZero(lines.data(), bytes)) << bytes;
  }
}

}  // namespace
}  // namespace internal
}  // namespace lsmbloom
