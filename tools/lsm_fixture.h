// A generated LSM tree of table files, shared by the demo and the lookup
// benchmark so both measure the same shape of data.
//
// Key ids: even ids exist, odd ids never do, so absent probes fall inside
// the files' key ranges and only filters can rule them out. The bottom
// level (3) holds every key in 24 files of consecutive ranges; levels 2 and
// 1 hold newer versions of 30% and 10% of the keys (one in 16 of them a
// tombstone); level 0 has 6 overlapping files with 6%.

#ifndef LSMBLOOM_TOOLS_LSM_FIXTURE_H_
#define LSMBLOOM_TOOLS_LSM_FIXTURE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lsmbloom/lookup.h"
#include "lsmbloom/options.h"

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

// The files for `num_keys` keys, oldest (bottom level) first.
std::vector<FileSpec> MakeLayout(uint64_t num_keys, uint64_t seed);

// Writes each FileSpec as a table under `dir` (mmap'd when read back) and
// returns the edit that adds them all. `progress(done, total)` is called
// after each file.
absl::Status WriteTables(const std::vector<FileSpec>& layout, const std::string& dir,
                         const TableOptions& options, VersionEdit* edit,
                         const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace fixture
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_LSM_FIXTURE_H_
