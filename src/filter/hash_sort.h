// Sorting and de-duplicating the builder's buffered hashes, in place.

#ifndef LSMBLOOM_SRC_FILTER_HASH_SORT_H_
#define LSMBLOOM_SRC_FILTER_HASH_SORT_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace internal {

// Sorts hashes[0, n) ascending with an in-place MSD radix sort (no buffer
// beyond a few KiB of counters on the stack), then moves the distinct values
// to the front and returns how many there are.
size_t SortAndUnique(uint64_t* hashes, size_t n);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_HASH_SORT_H_
