// What sst_inspect computes about a table, apart from how it is printed:
// the health of a blocked Bloom filter measured against the table's own
// keys, false-positive measurements on keys verified absent, and a full
// verification pass. Everything about the file itself comes from
// lsmbloom/inspect/inspect.h.

#ifndef LSMBLOOM_TOOLS_SST_INSPECT_ANALYSIS_H_
#define LSMBLOOM_TOOLS_SST_INSPECT_ANALYSIS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/inspect/inspect.h"
#include "tools/sst_inspect_common.h"

namespace lsmbloom {
namespace inspect {

// ---------------------------------------------------------------- filter

struct LoadBin {
  uint64_t from, to;  // Keys per block, inclusive.
  uint64_t blocks;    // Blocks with a load in [from, to].
  double expected;    // Blocks a Poisson load with the same mean would put here.
};

struct FilterHealth {
  uint64_t bits_set = 0, bits_total = 0;
  double fill = 0;           // bits_set / bits_total.
  double fpr_from_fill = 0;  // Mean over blocks of FprFromFill(block fill, k).
  double fpr_model = 0;      // The blocked model at this geometry.

  // The keys the builder was given, recomputed from the table's entries.
  uint64_t entries = 0;
  uint64_t distinct_hashes = 0;
  bool keys_complete = true;     // False if prefixes could not be recomputed.
  uint64_t false_negatives = 0;  // Recomputed keys the filter rules out.

  uint64_t load_min = 0, load_max = 0;
  double load_mean = 0, load_stddev = 0;
  std::vector<LoadBin> histogram;
};

// REQUIRES: t.filter().blocked().
absl::StatusOr<FilterHealth> AnalyzeBlockedFilter(const InspectedTable& t, Progress* progress);

// For filters other than the blocked one that place keys by a hash (Ribbon,
// classic): the keys the builder was given, recomputed, against the filter.
struct FilterKeyCheck {
  uint64_t entries = 0;
  uint64_t distinct_hashes = 0;
  bool keys_complete = true;     // False if prefixes could not be recomputed.
  uint64_t false_negatives = 0;  // Recomputed keys the filter rules out.
};

// REQUIRES: t.filter().reader() with a hash_spec().
absl::StatusOr<FilterKeyCheck> CheckFilterKeys(const InspectedTable& t, Progress* progress);

// The probe keys: "sst_inspect.probe." and 16 hex digits, fixed per index.
std::string ProbeKey(uint64_t i);

// Up to `count` keys inside the table's key range that it does not hold: a
// table key (sampled evenly) followed by a 0 byte and 8 hex digits, kept
// when at most the largest key. Such keys share prefixes with real ones.
absl::StatusOr<std::vector<std::string>> InRangeKeys(const InspectedTable& t, uint64_t count);

// Keys from a file, one per line, written as ShowBytes writes them.
absl::StatusOr<std::vector<std::string>> ReadKeyFile(const Style& style, const std::string& path);

struct ProbeResult {
  uint64_t generated = 0;
  uint64_t excluded = 0;  // Present in the table after all, so not counted.
  uint64_t absent = 0;    // Verified absent: the denominator.
  uint64_t false_positives = 0;
  double fpr = 0, low = 0, high = 0;  // Measured, with a 95% Wilson interval.
};

// Probes `reader` with key(0) .. key(count - 1). Each is first looked up in
// the table without the filter (index and data block), and only those
// verified absent count.
absl::StatusOr<ProbeResult> MeasureFpr(const Table& table, const FilterReader& reader,
                                       uint64_t count,
                                       const std::function<std::string(uint64_t)>& key,
                                       Progress* progress);

// ---------------------------------------------------------------- verify

struct Problem {
  std::string check;  // "open", "checksum", "order", "properties", "lookup", "filter".
  std::string message;
};

struct FalseNegative {
  std::string bytes;  // The key, or prefix, the filter rules out.
  bool is_prefix = false;
  int64_t filter_block = -1;  // For blocked Bloom filters; else -1.
};

struct VerifyReport {
  uint64_t data_blocks_checked = 0;  // Each read on its own, past damage.
  uint64_t damaged_data_blocks = 0;
  bool read_all = false;  // Every entry was read (no damaged data block).
  uint64_t entries = 0, keys = 0, deletions = 0;
  uint64_t data_blocks = 0;  // As the properties record them, once read_all.
  uint64_t lookups_ok = 0;
  uint64_t filter_keys_checked = 0;      // Whole keys the filter was asked about,
  uint64_t filter_prefixes_checked = 0;  // and prefixes.
  bool filter_used = false;              // A trusted filter was checked.
  uint64_t false_negative_count = 0;
  std::vector<FalseNegative> false_negatives;  // The first kMaxListed.
  std::vector<Problem> problems;               // The first kMaxListed.
  uint64_t problem_count = 0;
  std::vector<std::string> warnings;

  static constexpr size_t kMaxListed = 20;
  bool ok() const { return problem_count == 0; }
};

// Checks every data block on its own (checksum, decompression, structure;
// a damaged block does not stop the pass, and each is named by number and
// offset), then reads every entry and checks their order, the properties, a
// lookup of every key, and that the filter answers "maybe" for every key
// and prefix the table holds. Progress goes to `blocks`, then `entries`.
VerifyReport Verify(const InspectedTable& t, Progress* blocks, Progress* entries);

}  // namespace inspect
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_SST_INSPECT_ANALYSIS_H_
