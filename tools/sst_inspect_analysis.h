// What sst_inspect computes about a table, apart from how it is printed:
// opening a table with everything needed to look at its filter, the health
// of a blocked Bloom filter measured against the table's own keys, a
// false-positive measurement on keys verified absent, and a full
// verification pass.

#ifndef LSMBLOOM_TOOLS_SST_INSPECT_ANALYSIS_H_
#define LSMBLOOM_TOOLS_SST_INSPECT_ANALYSIS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lsmbloom/blocked_bloom.h"
#include "lsmbloom/filter_policy.h"
#include "lsmbloom/options.h"
#include "lsmbloom/table.h"

namespace lsmbloom {
namespace inspect {

inline constexpr char kBlockedBloomPolicyName[] = "lsmbloom.BlockedBloom.v1";

// Reports how far a long pass over a table has come: on stderr, at most
// about once a second, overwriting one line; nothing when disabled.
class Progress {
 public:
  // `what` names the pass ("verify t.sst"); `total` `units` are expected.
  Progress(bool enabled, std::string what, uint64_t total,
           std::string units = "entries");
  ~Progress();  // Clears the line if one was written.
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Cheap enough to call once per entry.
  void Update(uint64_t done) {
    if (enabled_ && (done & 1023) == 0) MaybePrint(done);
  }

 private:
  void MaybePrint(uint64_t done);

  bool enabled_;
  std::string what_;
  uint64_t total_;
  std::string units_;
  absl::Time next_;
  bool printed_ = false;
};

// A table's filter as this tool sees it.
struct FilterInfo {
  std::string policy;            // As recorded; empty when the table has none.
  absl::Status status;           // Table::filter_status().
  bool whole_keys = false;       // Holds whole user keys.
  std::string prefix_extractor;  // Also holds prefixes by this extractor, if set.
  bool prefixes_reproducible = false;  // This tool can recompute those prefixes.
  uint64_t size = 0;             // Bytes of the filter block.
  uint64_t keys_added = 0;       // Keys (and prefixes) the builder was given.

  // Set only when the filter is trusted (status OK).
  const FilterReader* reader = nullptr;
  std::optional<BlockedBloomReader> blocked;  // When it is a blocked Bloom filter.
  int blocked_format_version = 0;
  std::unique_ptr<FilterReader> own_reader;  // Backs `reader` if the table has none.
};

// An open table plus what it takes to inspect its filter.
struct InspectedTable {
  std::unique_ptr<Table> table;
  // The extractor its prefix filter was written with, when this tool can
  // recreate it (lsmbloom.FixedPrefix.N); else null.
  std::shared_ptr<const PrefixExtractor> prefix_extractor;
  FilterInfo filter;
};

// Opens `path`. Errors carry the reason alone, without the path.
absl::StatusOr<InspectedTable> OpenInspectedTable(const std::string& path);

// A numeric property, 0 when missing or malformed; a string property, "" when
// missing.
uint64_t PropertyUint(const Table& table, const std::string& name);
std::string Property(const Table& table, const std::string& name);

// Whether a filter status means the file is damaged (the filter is corrupt),
// rather than that it has no filter or one this build cannot read.
bool FilterStatusIsProblem(const absl::Status& status);

// The filter block a hash selects (docs/FORMAT.md).
inline uint64_t FilterBlockOf(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}

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
  bool keys_complete = true;  // False if prefixes could not be recomputed.
  uint64_t false_negatives = 0;  // Recomputed keys the filter rules out.

  uint64_t load_min = 0, load_max = 0;
  double load_mean = 0, load_stddev = 0;
  std::vector<LoadBin> histogram;
};

// REQUIRES: t.filter.blocked is set.
absl::StatusOr<FilterHealth> AnalyzeBlockedFilter(const InspectedTable& t,
                                                  Progress* progress);

// The probe keys: "sst_inspect.probe." and 16 hex digits, fixed per index.
std::string ProbeKey(uint64_t i);

struct ProbeResult {
  uint64_t generated = 0;
  uint64_t excluded = 0;  // Present in the table after all, so not counted.
  uint64_t absent = 0;    // Verified absent: the denominator.
  uint64_t false_positives = 0;
  double fpr = 0, low = 0, high = 0;  // Measured, with a 95% Wilson interval.
};

// Probes `reader` with `count` ProbeKey()s. Each is first looked up in the
// table without the filter (index and data block), and only those verified
// absent count.
absl::StatusOr<ProbeResult> MeasureFpr(const Table& table, const FilterReader& reader,
                                       uint64_t count);

// ---------------------------------------------------------------- verify

struct Problem {
  std::string check;  // "open", "checksum", "order", "properties", "lookup", "filter".
  std::string message;
};

struct FalseNegative {
  std::string bytes;       // The key, or prefix, the filter rules out.
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
  bool filter_used = false;     // A trusted filter was checked.
  uint64_t false_negative_count = 0;
  std::vector<FalseNegative> false_negatives;  // The first kMaxListed.
  std::vector<Problem> problems;  // The first kMaxListed.
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
