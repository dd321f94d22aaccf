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
// Two filter kinds. The functions taking FilterBudgetOptions may also give
// a level the Ribbon filter (ribbon.h), which reaches the same FPR with
// about 30% fewer bits/key but costs more CPU per probe and needs 1.1
// bits/key at least. Its curve is ribbon_math.h's model as PlanRibbon sizes
// a filter of 10^6 keys at each bits/key (the dependent-key term of filters
// of 10^5 keys or more, so smaller filters do a little better than
// predicted). Each level takes, at each bits/key, the kind of least cost
// per check: FPR, or with FilterObjective::kLookupTime, the probe's time
// plus FPR times a false-positive read's. The cost stays a sum over levels
// of the checks times a curve of bits/key, so the same search allocates.
//
// Everything here is pure computation on its arguments: thread-safe. The
// first call in a process tabulates both curves over the grid of 3,000
// bits/key values (about a second); later calls take a few milliseconds
// for 7 levels.

#ifndef LSMBLOOM_LOOKUP_FILTER_BUDGET_H_
#define LSMBLOOM_LOOKUP_FILTER_BUDGET_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/filter/blocked_bloom_options.h"
#include "lsmbloom/filter/filter_kind.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/ribbon_options.h"
#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {

// The constructors of the types below are out of line, as every one
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

// What the allocation minimises, per absent-key lookup.
enum class FilterObjective {
  // sum_i c_i * FPR_i: false-positive data-block reads.
  kFalsePositiveReads,
  // sum_i c_i * (probe_ns(kind_i) + FPR_i * false_positive_read_ns): the
  // filters' share of the lookup's time. A level without a filter costs
  // one read per check and no probe.
  kLookupTime,
};

// How the budget may choose filters. The defaults: Bloom only, fewest
// false-positive reads.
struct FilterBudgetOptions {
  // The kinds any level may get (at least one).
  bool allow_bloom = true;
  bool allow_ribbon = false;
  // If >= 0, RocksDB's bloom_before_level instead of the two above: the
  // levels before this index (into the shapes given: the level number for
  // FilterShapesOf's) get Bloom, this one and those after it Ribbon. The
  // budget still chooses every level's bits/key.
  int ribbon_from_level = -1;
  FilterObjective objective = FilterObjective::kFalsePositiveReads;
  // Costs for kLookupTime, in ns: one filter probe of each kind and one
  // false-positive read (a data block searched in vain). The defaults are
  // a tuned probe's cost at 10 bits/key and a data block read from a
  // mapped, page-cached file (docs/PERFORMANCE.md, "Filter memory across
  // levels", has the measurements). A store whose tables are read from
  // storage must give its own read cost (MeasureFalsePositiveReadNanos):
  // there a read costs far more, and Ribbon pays in more levels.
  double bloom_probe_ns = 3;
  double ribbon_probe_ns = 11;
  double false_positive_read_ns = 225;

  FilterBudgetOptions();
};

struct LevelFilterAllocation {
  // Bits/key for the level's filters, a multiple of 0.01 in [0.1, 30] (in
  // [1.1, 30] for Ribbon), or 0 for no filter (write the level's tables with
  // a null filter policy).
  double bits_per_key = 0;
  // Bloom's k for those bits (0 without a filter or for Ribbon).
  int num_probes = 0;
  // Predicted FPR of one of the level's filters (1 without a filter).
  double fpr = 1;
  // Which filter (the budget chooses kNone, kBlockedBloom or kRibbon), and
  // its options: `bloom` is set for kBlockedBloom,
  // `ribbon` for kRibbon (bits_per_key as above, no target FPR), the other
  // left at its defaults. FilterPolicyFor builds the policy.
  FilterKind kind = FilterKind::kNone;
  BlockedBloomOptions bloom;
  RibbonOptions ribbon;

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
  // The kLookupTime objective, with the options' costs, in ns per
  // absent-key lookup.
  double expected_time_ns = 0;

  FilterAllocation();
  FilterAllocation(const FilterAllocation&);
  FilterAllocation(FilterAllocation&&) noexcept;
  FilterAllocation& operator=(const FilterAllocation&);
  FilterAllocation& operator=(FilterAllocation&&) noexcept;
  ~FilterAllocation();
};

// Each function below takes FilterBudgetOptions: the filter kinds a level
// may get and the objective to choose by. The default options (Bloom only,
// fewest false-positive reads) are the model above. MinimumFilterMemory's
// target is in the objective's units: false-positive reads, or ns for
// kLookupTime. Besides the errors each names: InvalidArgument if no kind
// is allowed, ribbon_from_level is below -1, or a cost is negative or not
// finite (the read's must be positive).

// The allocation of at most `budget_bytes` of filter memory that minimises
// the expected cost above. Bits/key never exceed 30 (FPR about 1e-5):
// memory beyond that is left unspent. InvalidArgument if `levels` is empty,
// no level has both keys and checks, a check count is negative or not
// finite, or the budget is not positive and finite.
absl::StatusOr<FilterAllocation> AllocateFilterMemory(
    absl::Span<const LevelFilterShape> levels, double budget_bytes,
    const FilterBudgetOptions& options = FilterBudgetOptions());

// The same with the budget given as an average: avg_bits_per_key times the
// keys of the levels that have checks, the memory uniform bits/key would
// use.
absl::StatusOr<FilterAllocation> AllocateFilterBitsPerKey(
    absl::Span<const LevelFilterShape> levels, double avg_bits_per_key,
    const FilterBudgetOptions& options = FilterBudgetOptions());

// Every level at `bits_per_key` (today's behaviour), for comparison: each
// level gets the kind the options allow (Ribbon where both are).
// InvalidArgument as above, or unless bits_per_key is 0 or in [0.1, 30]
// ([1.1, 30] for the Ribbon levels).
absl::StatusOr<FilterAllocation> UniformFilterAllocation(
    absl::Span<const LevelFilterShape> levels, double bits_per_key,
    const FilterBudgetOptions& options = FilterBudgetOptions());

// The inverse: the allocation of least memory (to within 0.1%) whose
// expected cost is at most `target_cost`. InvalidArgument for bad levels,
// a target that is not positive and finite, or one below what 30 bits/key
// everywhere reaches.
absl::StatusOr<FilterAllocation> MinimumFilterMemory(
    absl::Span<const LevelFilterShape> levels, double target_cost,
    const FilterBudgetOptions& options = FilterBudgetOptions());

// The expected cost (above) of filters with the given bits/key per level
// (0: no filter), k chosen by the model. REQUIRES: the spans have equal
// sizes; each bits/key is 0 or in [0.1, 1000].
double ExpectedFalsePositiveReads(absl::Span<const LevelFilterShape> levels,
                                  absl::Span<const double> bits_per_key);

// The policy to write a level's tables with: null for kNone, else
// NewBlockedBloomPolicy(level.bloom) or NewRibbonPolicy(level.ribbon).
// Readers need no setting: TableReadOptions' default filter policies (the
// built-in ones) read both kinds.
absl::StatusOr<std::shared_ptr<const FilterPolicy>> FilterPolicyFor(
    const LevelFilterAllocation& level);

// What one false-positive read costs on this table's storage, in ns, for
// FilterBudgetOptions::false_positive_read_ns: the median of `samples`
// reads of random data blocks of `table`, each the whole block and trailer
// through the table's own file (so direct reads measure the device, and a
// mapped file its memory), none through a block cache. A read that fails
// ends it with that error; InvalidArgument if samples < 1 or the table has
// no data block. Takes about samples device reads: call it once per device,
// not per lookup.
absl::StatusOr<double> MeasureFalsePositiveReadNanos(const Table& table, int samples = 64);

// The shape of a TableSet's current files, one entry per level (kNumLevels
// of them): each level's entries as its keys, checks = the file count for
// level 0 and 1 for every other non-empty level. With it and the stats'
// filter memory, a caller compares what it has against
// AllocateFilterMemory or UniformFilterAllocation at the same memory.
std::vector<LevelFilterShape> FilterShapesOf(const LookupStats& stats);

}  // namespace lsmbloom

#endif  // LSMBLOOM_LOOKUP_FILTER_BUDGET_H_
