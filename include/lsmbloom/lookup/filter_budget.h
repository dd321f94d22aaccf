// Filter memory across the levels of an LSM tree: bits/key per level from a
// memory budget (after Dayan, Athanassoulis and Idreos, "Monkey: Optimal
// Navigable Key-Value Store", SIGMOD 2017).
//
// The model. A lookup of an absent key consults, in each level i, c_i
// filters (c_i = 1 for a sorted level, whose files do not overlap; the file
// count for level 0, whose files all may hold the key). Each filter says
// "maybe" with its false-positive rate, and every "maybe" costs a data-block
// read that finds nothing. With b_i filter bits per key in level i, whose
// filters hold n_i keys, and k_i probes:
//
//   cost   = sum_i c_i * FPR(b_i, k_i)   false-positive data-block reads
//                                        per absent-key lookup
//   memory = sum_i n_i * b_i             filter bits
//
// FPR is the exact blocked model of bloom_math.h (BlockedBloomFpr), with
// k_i = OptimalBlockedProbes(b_i), what a BlockedBloomOptions with
// num_probes = 0 builds; b_i = 0 means the level has no filter, and then
// FPR = 1 (every consulted file reads a block). The memory ignores each
// filter's rounding up to whole 64-byte blocks and its header, up to about
// 1,000 bits a file: 2% of a 5,000-key filter at 10 bits/key, 0.1% at
// 100,000 keys.
//
// Uniform bits/key is far from optimal for a fixed memory: the last level
// holds most keys, so a bit taken from each of its keys buys many bits per
// key in the small levels above, whose FPRs then fall by much more than the
// last level's rises. AllocateFilterMemory minimises the cost for a budget
// by equalising the marginal gain per bit across levels (a Lagrange
// multiplier, found by bisection; each level picks its best bits/key for
// that multiplier on the lower convex hull of the FPR curve), spends what
// the grid left over where it gains most, and finally re-splits the memory
// of each pair of levels over the whole grid (the curve is not convex below
// a few bits/key, where the hull alone can miss the best split).
//
// Everything here is pure computation on its arguments: thread-safe. The
// first call in a process tabulates the model over the grid of 3,000
// bits/key values (about half a second); later calls take a few
// milliseconds for 7 levels.

#ifndef LSMBLOOM_LOOKUP_FILTER_BUDGET_H_
#define LSMBLOOM_LOOKUP_FILTER_BUDGET_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {

// The constructors of the three types below are out of line, as every one
// of a public type holding floating point is: compiled inline, each
// includer would compile them with its own target flags
// (tests/public_headers_odr_test.sh).

// One level (or one file) as an absent-key lookup sees it.
struct LevelFilterShape {
  // Keys in the filters of the level (all its files together).
  uint64_t num_keys = 0;
  // Filters of the level an absent-key lookup consults: 1 for a sorted
  // level, the file count for level 0 (or 1 per entry, when each level-0
  // file is given as an entry of its own). 0 when lookups never reach it.
  double checks = 1;

  LevelFilterShape();
  LevelFilterShape(uint64_t num_keys, double checks);
};

struct LevelFilterAllocation {
  // Bits/key for the level's filters, a multiple of 0.01 in [0.1, 30], or 0
  // for no filter (write the level's tables with a null filter policy).
  double bits_per_key = 0;
  // k for those bits (0 without a filter).
  int num_probes = 0;
  // Predicted FPR of one of the level's filters (1 without a filter).
  double fpr = 1;

  LevelFilterAllocation();
};

struct FilterAllocation {
  // One per LevelFilterShape given, in the same order.
  std::vector<LevelFilterAllocation> levels;
  // sum_i n_i * b_i, in bits.
  double memory_bits = 0;
  // sum_i c_i * FPR_i: expected false-positive data-block reads per
  // absent-key lookup.
  double expected_cost = 0;

  FilterAllocation();
  FilterAllocation(const FilterAllocation&);
  FilterAllocation(FilterAllocation&&) noexcept;
  FilterAllocation& operator=(const FilterAllocation&);
  FilterAllocation& operator=(FilterAllocation&&) noexcept;
  ~FilterAllocation();
};

// The allocation of at most `budget_bytes` of filter memory that minimises
// the expected cost above. Bits/key never exceed 30 (FPR about 1e-5):
// memory beyond that is left unspent. InvalidArgument if `levels` is empty,
// no level has both keys and checks, a check count is negative or not
// finite, or the budget is not positive and finite.
absl::StatusOr<FilterAllocation> AllocateFilterMemory(absl::Span<const LevelFilterShape> levels,
                                                      double budget_bytes);

// The same with the budget given as an average: avg_bits_per_key times the
// keys of the levels that have checks, the memory uniform bits/key would
// use.
absl::StatusOr<FilterAllocation> AllocateFilterBitsPerKey(absl::Span<const LevelFilterShape> levels,
                                                          double avg_bits_per_key);

// Every level at `bits_per_key` (today's behaviour), for comparison.
// InvalidArgument as above, or unless bits_per_key is in [0.1, 30] or 0.
absl::StatusOr<FilterAllocation> UniformFilterAllocation(absl::Span<const LevelFilterShape> levels,
                                                         double bits_per_key);

// The inverse: the allocation of least memory (to within 0.1%) whose
// expected cost is at most `target_cost`. InvalidArgument for bad levels,
// a target that is not positive and finite, or one below what 30 bits/key
// everywhere reaches.
absl::StatusOr<FilterAllocation> MinimumFilterMemory(absl::Span<const LevelFilterShape> levels,
                                                     double target_cost);

// The expected cost (above) of filters with the given bits/key per level
// (0: no filter), k chosen by the model. REQUIRES: the spans have equal
// sizes; each bits/key is 0 or in [0.1, 1000].
double ExpectedFalsePositiveReads(absl::Span<const LevelFilterShape> levels,
                                  absl::Span<const double> bits_per_key);

// The shape of a TableSet's current files, one entry per level (kNumLevels
// of them): each level's entries as its keys, checks = the file count for
// level 0 and 1 for every other non-empty level. With it and the stats'
// filter memory, a caller compares what it has against
// AllocateFilterMemory or UniformFilterAllocation at the same memory.
std::vector<LevelFilterShape> FilterShapesOf(const LookupStats& stats);

}  // namespace lsmbloom

#endif  // LSMBLOOM_LOOKUP_FILTER_BUDGET_H_
