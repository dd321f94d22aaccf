// The filter-memory part of the demo: the LSM demo's layout written again
// with modular filters (lsmbloom/filter/modular_bloom.h), looked up under a
// cap of 5 bits/key with lookups skewed to a few key ranges, and the
// allocation the TableSet chose from the accesses it counted.

#ifndef LSMBLOOM_TOOLS_MEMORY_DEMO_H_
#define LSMBLOOM_TOOLS_MEMORY_DEMO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/lsm_fixture.h"

namespace lsmbloom {
namespace demo {

// Writes `layout` under `dir` (removed after), `lookups` lookups of each
// pass.
absl::Status RunMemoryDemo(const std::string& dir, const std::vector<fixture::FileSpec>& layout,
                           uint64_t lookups);

}  // namespace demo
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_MEMORY_DEMO_H_
