// The storage part of the demo: the LSM demo's table files opened again
// with direct reads (O_DIRECT) and a block cache of 5% of their bytes, and
// what a lookup costs there: device reads, cache hits, latency, and the
// device's own read time, which the filter budget weighs.

#ifndef LSMBLOOM_TOOLS_STORAGE_DEMO_H_
#define LSMBLOOM_TOOLS_STORAGE_DEMO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {
namespace demo {

// Opens every file of `edit` (named "<dir>/<file number>.sst") for direct
// reads, or pread where the file system refuses O_DIRECT (said so), and
// looks up `lookups` of `present` and of `absent` through Get and MultiGet.
absl::Status RunStorageDemo(const std::string& dir, const VersionEdit& edit,
                            const std::vector<std::string>& present,
                            const std::vector<std::string>& absent, uint64_t lookups);

}  // namespace demo
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_STORAGE_DEMO_H_
