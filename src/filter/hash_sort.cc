#include "src/filter/hash_sort.h"

#include <algorithm>
#include <utility>

namespace lsmbloom {
namespace internal {
namespace {

// Below this many elements a comparison sort beats another radix pass.
constexpr size_t kSmallSort = 64;

void InsertionSort(uint64_t* a, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const uint64_t v = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1] > v; --j) a[j] = a[j - 1];
    a[j] = v;
  }
}

// American flag sort on the byte at `shift`, then recursion into each bucket
// on the next byte down. Hashes are uniform, so buckets shrink 256-fold per
// level and the recursion is shallow.
void RadixSort(uint64_t* a, size_t n, int shift) {
  if (n <= kSmallSort || shift < 0) {
    if (n <= 16) {
      InsertionSort(a, n);
    } else {
      std::sort(a, a + n);
    }
    return;
  }
  size_t count[256] = {};
  for (size_t i = 0; i < n; ++i) ++count[(a[i] >> shift) & 0xff];
  size_t head[256], tail[256];
  size_t pos = 0;
  for (int b = 0; b < 256; ++b) {
    head[b] = pos;
    pos += count[b];
    tail[b] = pos;
  }
  for (int b = 0; b < 256; ++b) {
    while (head[b] < tail[b]) {
      uint64_t v = a[head[b]];
      int vb = static_cast<int>((v >> shift) & 0xff);
      // Follow the cycle: drop v into its bucket, pick up what was there.
      while (vb != b) {
        std::swap(v, a[head[vb]++]);
        vb = static_cast<int>((v >> shift) & 0xff);
      }
      a[head[b]++] = v;
    }
  }
  size_t start = 0;
  for (int b = 0; b < 256; ++b) {
    RadixSort(a + start, count[b], shift - 8);
    start += count[b];
  }
}

}  // namespace

size_t SortAndUnique(uint64_t* hashes, size_t n) {
  RadixSort(hashes, n, 56);
  return static_cast<size_t>(std::unique(hashes, hashes + n) - hashes);
}

}  // namespace internal
}  // namespace lsmbloom
