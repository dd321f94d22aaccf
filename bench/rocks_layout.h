// RocksDB over a generated layout (tools/lsm_fixture.h), for the benches
// that compare with it: each file written with SstFileWriter and ingested
// in order with auto compactions off, so RocksDB places each file as deep
// as it fits without overlap: the bottom files at the last level, newer
// ones above them, overlapping ones in level 0.

#ifndef LSMBLOOM_BENCH_ROCKS_LAYOUT_H_
#define LSMBLOOM_BENCH_ROCKS_LAYOUT_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb/db.h"
#include "tools/lsm_fixture.h"

namespace lsmbloom {
namespace bench {

// A new DB in `dir` opened with `options`, `layout`'s files ingested; a
// file for which `skip_filter` (if set) is true is written without a
// filter. The error RocksDB gave, as Internal, otherwise.
absl::StatusOr<rocksdb::DB*> IngestLayout(
    const rocksdb::Options& options, const std::string& dir,
    const std::vector<fixture::FileSpec>& layout,
    const std::function<bool(const fixture::FileSpec&)>& skip_filter = {});

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_ROCKS_LAYOUT_H_
