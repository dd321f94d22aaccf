// The LSM part of the demo: dozens of table files in several levels, point
// lookups of present and absent keys, and what the filters saved.

#ifndef LSMBLOOM_TOOLS_LSM_DEMO_H_
#define LSMBLOOM_TOOLS_LSM_DEMO_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace lsmbloom {
namespace demo {

struct LsmDemoOptions {
  uint64_t num_keys = 3000000;  // Distinct keys in the bottom level.
  uint64_t lookups = 200000;    // Of present keys, and again of absent keys.
  double bits_per_key = 10.0;
  // Split the memory bits_per_key would take in every level across the
  // levels by filter_budget.h instead (off: the same bits/key everywhere).
  bool filter_budget = false;
  // Ribbon filters (bits_per_key of them) instead of blocked Bloom ones.
  // The budget models blocked filters: not with filter_budget.
  bool ribbon = false;
  std::string dir;  // Where the table files go; a fresh temp dir if empty.
  // Lookups of each kind in the storage part (storage_demo.h); 0 skips it.
  uint64_t storage_lookups = 2000;
  // Lookups of each pass in the filter-memory part (memory_demo.h); 0 skips
  // it.
  uint64_t memory_lookups = 200000;
};

absl::Status RunLsmDemo(const LsmDemoOptions& options);

}  // namespace demo
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_LSM_DEMO_H_
