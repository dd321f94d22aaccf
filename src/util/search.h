// Searching the small sorted arrays of the lookup path.

#ifndef LSMBLOOM_SRC_UTIL_SEARCH_H_
#define LSMBLOOM_SRC_UTIL_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

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

// A lower bound in two steps, for arrays searched often and mostly out of
// cache: a dense array holding the last value of every full group of
// kSearchGroup values (few lines, which stay cached) names the group, and
// the group's values, read together, settle it: one round of misses rather
// than a chain. value_at(i) is the i-th of the n sorted values;
// group_last[g] == value_at(kSearchGroup * g + kSearchGroup - 1).
constexpr size_t kSearchGroup = 8;

// The group_last array of GroupedLowerBound for n sorted values.
template <typename ValueAt>
std::vector<uint64_t> GroupLastValues(size_t n, const ValueAt& value_at) {
  std::vector<uint64_t> group_last;
  group_last.reserve(n / kSearchGroup);
  for (size_t i = kSearchGroup - 1; i < n; i += kSearchGroup) group_last.push_back(value_at(i));
  return group_last;
}

// GroupedLowerBound's first step: where the group that holds the lower bound
// starts (a multiple of kSearchGroup). Out of cache, a batch takes this step
// for all its searches and loads their groups before taking the second.
inline size_t LowerBoundGroup(const uint64_t* group_last, size_t n, uint64_t x) {
  return BranchlessLowerBound(group_last, n / kSearchGroup, x) * kSearchGroup;
}

// Its second: the lower bound, counted within the group at `first`.
template <typename ValueAt>
size_t LowerBoundInGroup(size_t first, size_t n, uint64_t x, const ValueAt& value_at) {
  const size_t end = first + kSearchGroup < n ? first + kSearchGroup : n;
  size_t i = first;
  for (size_t j = first; j < end; ++j) i += value_at(j) < x;
  return i;
}

template <typename ValueAt>
size_t GroupedLowerBound(const uint64_t* group_last, size_t n, uint64_t x,
                         const ValueAt& value_at) {
  return LowerBoundInGroup(LowerBoundGroup(group_last, n, x), n, x, value_at);
}

// A lower bound over one sorted array in a few steps whatever its values:
// the span from its first value to its last is cut into kBuckets equal
// buckets, and a table of where each bucket's values start leaves a search
// only the values of the key's bucket. For small arrays searched by every
// lookup, where a chain of halvings and counts is most of the cost.
class BucketedLowerBound {
 public:
  BucketedLowerBound() : values_(kCounted, kPad) {}

  // Indexes a copy of `sorted` (ascending).
  explicit BucketedLowerBound(const std::vector<uint64_t>& sorted)
      : values_(sorted), first_(kBuckets + 1, 0) {
    const size_t n = sorted.size();
    values_.resize(n + kCounted, kPad);
    if (n == 0) return;
    min_ = sorted[0];
    const uint64_t span = sorted[n - 1] - min_;
    while ((span >> shift_) >= kBuckets) ++shift_;
    // first_[b]: how many values lie in buckets below b.
    for (uint64_t v : sorted) ++first_[((v - min_) >> shift_) + 1];
    for (size_t b = 1; b <= kBuckets; ++b) first_[b] += first_[b - 1];
  }

  size_t size() const { return values_.size() - kCounted; }
  bool empty() const { return size() == 0; }
  uint64_t operator[](size_t i) const { return values_[i]; }

  // Index of the first value >= x (size() if none).
  size_t Find(uint64_t x) const {
    if (size() == 0 || x <= min_) return 0;
    const uint64_t bucket = (x - min_) >> shift_;
    if (bucket >= kBuckets) return size();  // Above the last value's bucket.
    const uint32_t begin = first_[bucket], end = first_[bucket + 1];
    const uint64_t* from = values_.data() + begin;
    if (end - begin > kCounted) return begin + BranchlessLowerBound(from, end - begin, x);
    // Always kCounted values, so the loop's exit is predictable: those past
    // the bucket are above x (later buckets, or the padding).
    size_t below = 0;
    for (size_t i = 0; i < kCounted; ++i) below += from[i] < x;
    return begin + below;
  }

 private:
  static constexpr size_t kBuckets = 1024;
  static constexpr size_t kCounted = 8;
  static constexpr uint64_t kPad = ~uint64_t{0};  // Never below any x.
  std::vector<uint64_t> values_;                  // The values, then kCounted of kPad.
  uint64_t min_ = 0;
  int shift_ = 0;
  std::vector<uint32_t> first_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_SEARCH_H_
