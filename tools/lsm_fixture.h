// A generated LSM tree of table files, shared by the demo and the lookup
// benchmark so both measure the same shape of data.
//
// Key ids: even ids exist, odd ids never do, so absent probes fall inside
// the files' key ranges and only filters can rule them out. In the standard
// shape the bottom level (3) holds every key in 24 files of consecutive
// ranges; levels 2 and 1 hold newer versions of 30% and 10% of the keys
// (one in 16 of them a tombstone); level 0 has 6 overlapping files with 6%.
// The deep shape has a bottom level 4 ten times the size of level 3, which
// is ten times level 2, and so on, under 4 small level-0 files.

#ifndef LSMBLOOM_TOOLS_LSM_FIXTURE_H_
#define LSMBLOOM_TOOLS_LSM_FIXTURE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/options.h"

namespace lsmbloom {
namespace fixture {

struct Entry {
  uint64_t id;
  uint64_t seq;
  bool tombstone;
};

// One file of the layout, in key order.
struct FileSpec {
  int level;
  std::vector<Entry> entries;
};

std::string KeyOf(uint64_t id);
std::string ValueOf(uint64_t id, uint64_t seq);  // 32 bytes.

// One level of a shape: its files and the fraction of keys with a version
// there. The first LevelSpec of a shape is the bottom level, with share 1.
struct LevelSpec {
  int level;
  int files;
  double share;
};
std::vector<LevelSpec> StandardShape();
std::vector<LevelSpec> DeepShape();

// The files for `num_keys` keys, oldest (bottom level) first.
std::vector<FileSpec> MakeLayout(uint64_t num_keys, uint64_t seed,
                                 const std::vector<LevelSpec>& shape = StandardShape());

// The layout as filter_budget.h sees it, one entry per level (kNumLevels):
// entries per level; every level-0 file is checked, one file of any other.
std::vector<LevelFilterShape> FilterShapes(const std::vector<FileSpec>& layout);

// Table options per level whose filters share the memory that
// `avg_bits_per_key` everywhere would take, split by
// AllocateFilterBitsPerKey under `budget` (Bloom only by default); a level
// allotted 0 bits/key gets no filter. `allocation` (if not null) receives
// the split.
absl::StatusOr<std::array<TableOptions, kNumLevels>> BudgetedTableOptions(
    const std::vector<FileSpec>& layout, double avg_bits_per_key, FilterAllocation* allocation,
    const FilterBudgetOptions& budget = FilterBudgetOptions());

// Table options per level with the filter `allocation` gives each level
// (one LevelFilterAllocation per level, kNumLevels of them).
absl::StatusOr<std::array<TableOptions, kNumLevels>> TableOptionsFor(
    const FilterAllocation& allocation);

// Writes each FileSpec as a table "<dir>/<file_number>.sst" (read back as
// `access` says, with the built-in filter policies) and returns the edit
// that adds them all. `progress(done, total)` is called after each file.
absl::Status WriteTables(const std::vector<FileSpec>& layout, const std::string& dir,
                         const TableOptions& options, VersionEdit* edit,
                         const std::function<void(uint64_t, uint64_t)>& progress,
                         FileAccess access = FileAccess::kMmap);

// The same with each level's tables written with options[level].
absl::Status WriteTables(const std::vector<FileSpec>& layout, const std::string& dir,
                         const std::array<TableOptions, kNumLevels>& options, VersionEdit* edit,
                         const std::function<void(uint64_t, uint64_t)>& progress,
                         FileAccess access = FileAccess::kMmap);

}  // namespace fixture
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_LSM_FIXTURE_H_
