// Which modules of modular filters a TableSet holds (LookupOptions::
// filter_memory_cap_bytes): chosen per file from the lookups' counted
// accesses, loaded off the lookup path, and published with a new version.
//
// The choice. A check of a file's filter for a key the file does not hold
// costs a false-positive read with the FPR of the modules held; module j+1
// multiplies that FPR by its own. A file's worth is w = its counted
// negative checks (halved at each rebalance, so the counts follow a
// changing workload) plus a small prior: its share of a uniform workload's
// checks (1 for a level-0 file, its share of its level's keys for a file of
// a sorted level). Every file holds module 0; then, greedily, the next
// module of greatest w * FPR_held * (1 - FPR_next) per byte while it fits
// under the cap. With no counts, or FilterAllocation::kUniform, the worths
// are the uniform shares, and the greedy split equalises the marginal FPR
// gain per bit across levels: Monkey's split, in modules.

#ifndef LSMBLOOM_SRC_LOOKUP_FILTER_RESIDENCY_H_
#define LSMBLOOM_SRC_LOOKUP_FILTER_RESIDENCY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include <unordered_map>
#include "lsmbloom/lookup/lookup.h"
#include "src/lookup/version.h"

namespace lsmbloom {
namespace internal {

// One file as the choice sees it.
struct ModularFile {
  std::vector<uint64_t> module_bytes;        // Modules 1.. in order.
  std::vector<double> module_fpr;            // Module 0 first.
  double worth = 0;
};

// How many modules (module 0 included) each file holds under `cap_bytes`,
// of which `fixed_bytes` (other filters, module 0s) are spent already.
std::vector<int> ChooseModules(const std::vector<ModularFile>& files, uint64_t fixed_bytes,
                               uint64_t cap_bytes);

// Modules 1..n of a file whose `header` is given, held: the first
// `had->count()` (if had) from `had`, the rest from `read` (modules
// had->count() + 1 ..., in order); interleaved when the header allows.
// Null if the memory for them could not be had.
std::shared_ptr<HeldModules> Hold(const ModularBloomHeader& header, const HeldModules* had,
                                  const std::vector<std::shared_ptr<const FilterModule>>& read,
                                  size_t n);

class FilterResidency {
 public:
  explicit FilterResidency(const LookupOptions& options) : options_(options) {}

  // Adds the accesses lookups counted on `current` to what was observed,
  // chooses the modules `next` holds and sets next->held: the modules
  // `current` held and `next` keeps, shared; the others read from their
  // tables now. A module that fails to read is not held (counted as a load
  // error); the files keep their other modules. REQUIRES: one call at a
  // time, before next->Index().
  void Rebalance(const Version& current, Version* next);

  // Adds the counters and the held modules of `v` to *stats.
  void AddStats(const Version& v, LookupStats* stats) const;
  void ResetStats();

 private:
  struct LevelCounters {
    std::atomic<uint64_t> loads{0}, load_bytes{0}, evictions{0}, load_errors{0};
  };

  const LookupOptions options_;
  // Halved-and-added negative checks per file number.
  std::unordered_map<uint64_t, double> observed_;
  std::array<LevelCounters, kNumLevels> counters_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_FILTER_RESIDENCY_H_
