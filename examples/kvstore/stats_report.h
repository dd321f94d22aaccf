// The `stats` report: files, entries, tombstones and filter memory per
// level, then how each level's filters answer lookups of absent keys,
// against what the filter model predicts.

#ifndef KVSTORE_STATS_REPORT_H_
#define KVSTORE_STATS_REPORT_H_

#include <cstdio>

#include "absl/status/status.h"
#include "store.h"

namespace kvstore {

// Writes the report to `out`. Runs 10000 lookups of absent keys, which
// resets the store's lookup counters. An error only if a table could not
// be read.
absl::Status PrintStats(Store& store, std::FILE* out);

}  // namespace kvstore

#endif  // KVSTORE_STATS_REPORT_H_
