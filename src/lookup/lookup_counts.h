// What one lookup (or one batch) counts as it goes, added to the TableSet's
// shared counters once at its end; and how a search names the file whose
// error ended it. Shared by the lookup paths (lookup.cc, storage_search.cc).

#ifndef LSMBLOOM_SRC_LOOKUP_LOOKUP_COUNTS_H_
#define LSMBLOOM_SRC_LOOKUP_LOOKUP_COUNTS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/lookup/lookup.h"
#include "src/lookup/version.h"
#include "src/table/table_lookup.h"

namespace lsmbloom {
namespace internal {

// Added to the shared counters once, at the end: an atomic add is a full
// barrier on x86, and a dozen of them in the middle of a lookup cost more
// than its filter probes.
struct LocalCounts {
  uint32_t lookups = 0;
  uint32_t checked[kNumLevels] = {}, ruled_out[kNumLevels] = {}, positive[kNumLevels] = {},
           true_positive[kNumLevels] = {}, reads[kNumLevels] = {}, range_skipped[kNumLevels] = {};
  // Where the data blocks came from, when not from a mapping.
  uint32_t cache_hits[kNumLevels] = {}, cache_misses[kNumLevels] = {},
           file_reads[kNumLevels] = {}, shared_reads[kNumLevels] = {};
  uint64_t file_bytes[kNumLevels] = {};
  bool any_from_storage = false;  // Some of the five above is not zero.
  // Sum of the checked filters' predicted FPRs over the checks of keys
  // their files did not have (every check adds, a true positive takes back).
  double expected_false_positives[kNumLevels] = {};

  // A filter probe's outcome, counted without branches: which way the
  // filter answers is the one thing here a predictor cannot learn.
  void AddProbe(int level, bool ruled_out, double predicted_fpr) {
    ++checked[level];
    this->ruled_out[level] += ruled_out;
    positive[level] += !ruled_out;
    expected_false_positives[level] += predicted_fpr;
  }

  // A file searched after its filter (if any) said "maybe".
  void AddSearch(int level, const BlockReads& block_reads, bool filter_true_positive,
                 double predicted_fpr) {
    reads[level] += static_cast<uint32_t>(block_reads.blocks);
    true_positive[level] += filter_true_positive;
    expected_false_positives[level] -= filter_true_positive ? predicted_fpr : 0.0;
    if ((block_reads.cache_hits | block_reads.cache_misses | block_reads.file_reads |
         block_reads.shared) != 0) {
      any_from_storage = true;
      cache_hits[level] += static_cast<uint32_t>(block_reads.cache_hits);
      cache_misses[level] += static_cast<uint32_t>(block_reads.cache_misses);
      file_reads[level] += static_cast<uint32_t>(block_reads.file_reads);
      file_bytes[level] += block_reads.file_bytes;
      shared_reads[level] += static_cast<uint32_t>(block_reads.shared);
    }
  }

  // Range skips count only for the levels the search reached.
  void AddRangeSkips(const RangeSkips& skips, int last_level) {
    range_skipped[0] += skips.level0;
    for (int level = 1; level <= last_level; ++level) {
      range_skipped[level] += (skips.level_mask >> level) & 1;
    }
  }
};

// `status` from searching `file`, naming it: "level L file N: ...".
inline absl::Status FileSearchError(const FileMeta& file, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("level ", file.level, " file ", file.file_number,
                                                  ": ", status.message()));
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_LOOKUP_COUNTS_H_
