// Point lookups across the tables of an LSM tree.
//
// A TableSet holds the current version: level 0 files, which may overlap
// and are searched newest first, and levels 1 and up, whose files do not
// overlap and are kept in key order, so each level has at most one
// candidate file (found by binary search). A lookup hashes the key once,
// skips files whose key range excludes it without touching their filter,
// skips files whose filter rules it out without touching their index or
// data, and stops at the newest entry for the key. A tombstone ends the
// search with Kind::kDeleted, which callers read as "not found".
//
// Flushes and compactions change the set with Apply(); every lookup sees
// one consistent version, and a table removed from the set is freed when
// the last lookup using it finishes. All methods are thread-safe.

#ifndef LSMBLOOM_LOOKUP_LOOKUP_H_
#define LSMBLOOM_LOOKUP_LOOKUP_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/table/table.h"

namespace lsmbloom {

inline constexpr int kNumLevels = 7;

struct LookupOptions {
  // Consult filters at all (off: for measuring what they save).
  bool use_filters = true;
  // Skip the last non-empty level's filters, where most lookups that get
  // that far find their key (RocksDB's optimize_filters_for_hits).
  bool skip_last_level_filters = false;
  // Keep the per-level counters of stats(). Each lookup then tallies its
  // counts and adds them with a few atomic adds, a noticeable share of an
  // absent-key Get (docs/PERFORMANCE.md); off, it does neither, and stats()
  // reports the files and filter sizes and zero counts.
  bool count_stats = true;
  // How MultiGet reads the data blocks its filters let through, from tables
  // whose files are read from storage (FileAccess::kPread or kDirect). It
  // reads in rounds: each takes every unanswered key's next candidate that
  // may hold it, so a key reads the blocks its Get would. kInFlight issues a
  // round's reads together, through io_uring where the kernel allows it,
  // and one after another where it does not (as kOneAfterAnother always
  // does). Answers and errors are the same either way. Mapped tables need
  // no reads.
  enum class StorageReads { kInFlight, kOneAfterAnother };
  StorageReads multiget_reads = StorageReads::kInFlight;
  // Filter memory for modular filters (lsmbloom/filter/modular_bloom.h),
  // in bytes: every filter the set's tables hold counts (module 0 of a
  // modular one, all of any other), and further modules of modular filters
  // are held while they fit, the files whose lookups they spare most reads
  // first (src/lookup/filter_residency.h has the rule). 0: no cap, every
  // module of every modular filter held. Chosen again, and modules read or
  // dropped, at every Apply and RebalanceFilterMemory, on the caller's
  // thread: lookups never wait for a module. Module 0s alone above the cap:
  // held all the same (a file's filter is never dropped whole).
  uint64_t filter_memory_cap_bytes = 0;
  // What a file's worth is judged by: its lookups' checks counted since the
  // last choice (one lookup in 8 per thread is counted, each count halved
  // at every choice), or a uniform workload's (Monkey's split in modules;
  // also what the counts fall back to before any lookup).
  enum class FilterAllocation { kObservedAccess, kUniform };
  FilterAllocation filter_allocation = FilterAllocation::kObservedAccess;
};

// One file in the set. file_number orders level 0: higher is newer.
struct TableFile {
  int level = 0;
  uint64_t file_number = 0;
  std::shared_ptr<const Table> table;
  // What the caller recorded of this file when it was written (a store's
  // MANIFEST): Apply refuses a table whose unique id or size differs, as a
  // file replaced by another valid table (an older generation, another
  // level's file, a botched restore) would otherwise answer with stale
  // values. 0 leaves that check out.
  uint64_t expected_unique_id = 0;
  uint64_t expected_file_size = 0;
};

// Files to add and remove in one atomic step.
struct VersionEdit {
  std::vector<TableFile> added;
  struct Removed {
    int level;
    uint64_t file_number;
  };
  std::vector<Removed> removed;
};

// Every member function and constructor of the two types below that touches
// floating point is out of line: compiled inline, each includer would
// compile it with its own target flags (tests/public_headers_odr_test.sh).

struct LevelStats {
  uint64_t files = 0;
  // Entries in the level's files (what their filters were sized from).
  uint64_t entries = 0;
  // Filter memory held, modules held beyond module 0 included.
  uint64_t filter_bytes = 0;
  // Modular filters (LookupOptions::filter_memory_cap_bytes): the bytes of
  // the modules held beyond each file's module 0 (part of filter_bytes),
  // the modules held (module 0s included), and since construction (or
  // ResetStats) the modules read from storage, their bytes, the modules
  // dropped, and the reads that failed (those modules left unheld).
  uint64_t filter_module_bytes = 0;
  uint64_t filter_modules_held = 0;
  uint64_t filter_module_loads = 0;
  uint64_t filter_module_load_bytes = 0;
  uint64_t filter_module_evictions = 0;
  uint64_t filter_module_load_errors = 0;
  // Filter bits per entry, over the files with a trusted whole-key filter
  // (weighted by entries); 0 if none has one.
  double bits_per_key = 0;
  uint64_t filters_checked = 0;
  uint64_t filters_ruled_out = 0;
  uint64_t filters_positive = 0;
  uint64_t filters_true_positive = 0;
  // Data blocks searched, and how they were had: from the block cache
  // (hits), read from the file, through pread or direct reads (misses
  // where the table has a cache), or from a read another key of the same
  // MultiGet round made of the same block (shared_reads). A mapped table's
  // blocks are in memory and count in none of these; for direct reads
  // file_reads are device reads.
  uint64_t data_block_reads = 0;
  uint64_t block_cache_hits = 0;
  uint64_t block_cache_misses = 0;
  uint64_t file_reads = 0;
  uint64_t file_read_bytes = 0;
  uint64_t shared_reads = 0;
  // Files a lookup passed over because the key is outside their key range
  // (their filters untouched), counted for the levels the search reached.
  uint64_t files_range_skipped = 0;
  // Mean of the files' predicted FPR (0 without filters; a modular
  // filter's with the modules held): the model's
  // view of the level (filter_budget.h), whichever files lookups consult.
  double predicted_fpr = 0;
  // The false positives the checked filters' own predicted FPRs expect
  // over the checks of keys their files did not have: what
  // false_positives() is to be compared with. Unlike predicted_fpr, it
  // weighs each file by how often lookups consulted it.
  double expected_false_positives = 0;

  LevelStats();

  // Filter "maybe"s for keys the file did not have: each one cost a
  // data-block read for nothing.
  uint64_t false_positives() const {
    return filters_positive - std::min(filters_true_positive, filters_positive);
  }
  // False positives among filter checks of keys the file did not have.
  // (Counters are read one by one while lookups run: clamp, never wrap.)
  double observed_fpr() const;
  // The FPR the checked filters predict for those same checks; before any
  // such check, the level's mean (predicted_fpr), so there is always a
  // prediction to show beside observed_fpr().
  double predicted_fpr_of_checks() const;
  // Filter checks of keys the file did not have.
  uint64_t negative_checks() const {
    const uint64_t tp = std::min(filters_true_positive, filters_positive);
    return filters_checked > tp ? filters_checked - tp : 0;
  }
};

struct LookupStats {
  std::array<LevelStats, kNumLevels> levels;
  uint64_t lookups = 0;
  uint64_t total_filter_bytes = 0;

  // Filter false positives per lookup, as counted: each one cost a useless
  // data-block read. When every lookup was of an absent key, this is what
  // PredictedFalsePositiveReads() predicts.
  double false_positives_per_lookup() const;
  // What the checked filters' own predicted FPRs expect of
  // false_positives_per_lookup() for the checks these lookups made.
  double expected_false_positives_per_lookup() const;
  // The model's false-positive reads per absent-key lookup with the current
  // files, as filter_budget.h counts them: the key is taken to fall in the
  // range of every level-0 file and of one file of each deeper level (with
  // level-0 files of disjoint ranges, as sequential loads make, this
  // overestimates). Files without a filter count as FPR 0 here.
  double PredictedFalsePositiveReads() const;
  // Over every level: data blocks read from their files per lookup (device
  // reads, for direct reads), and the block cache's hit rate among the
  // blocks looked for there (0 when none was).
  double file_reads_per_lookup() const;
  double block_cache_hit_rate() const;
};

class TableSet {
 public:
  explicit TableSet(const LookupOptions& options = LookupOptions());
  ~TableSet();
  TableSet(const TableSet&) = delete;
  TableSet& operator=(const TableSet&) = delete;

  // Applies `edit` atomically. InvalidArgument (and no change) if a level is
  // out of range, a removed file is not there, an added file number is
  // already in the set, or files of a level >= 1 would overlap; DataLoss
  // (and no change) if an added table's unique id or size is not the one
  // its TableFile expects.
  absl::Status Apply(const VersionEdit& edit);

  // The newest entry for `key` across all files. An error from a file (a
  // damaged block: DataLoss) ends the lookup, never skipped, and names the
  // file: "level L file N: ...".
  absl::StatusOr<LookupResult> Get(std::string_view key) const;
  // As Get, into *result: its value's capacity is reused, so a loop that
  // keeps one LookupResult allocates nothing once it has held the longest
  // value. On error *result is unspecified.
  absl::Status Get(std::string_view key, LookupResult* result) const;

  // Get for each key: hashes all keys once, probes the filters of every
  // (key, candidate file) pair of the batch with many blocks in flight at
  // once, and reads data blocks only for the pairs that survive, each key's
  // files newest first. results[i] answers keys[i].
  std::vector<absl::StatusOr<LookupResult>> MultiGet(absl::Span<const std::string_view> keys) const;

  // Chooses again which modules of modular filters to hold
  // (LookupOptions::filter_memory_cap_bytes) from the accesses counted so
  // far, reads the ones newly chosen and drops the others; lookups go on
  // meanwhile with the modules they had. Apply does the same after every
  // edit. A module that fails to read is left unheld and counted
  // (LevelStats::filter_module_load_errors): never an error of the call.
  void RebalanceFilterMemory();

  // Counters since construction (or ResetStats), plus the current files.
  LookupStats stats() const;
  // Zeroes every counter stats() reports. Lookups here count only in
  // these counters, never in a table's own (Table::stats()), so no count a
  // lookup made survives a reset, and sets sharing a table stay apart.
  void ResetStats();

  // The files of the current version, per level, in search order.
  std::vector<std::vector<TableFile>> files() const;

 private:
  class Impl;  // src/lookup/lookup.cc
  std::unique_ptr<Impl> impl_;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_LOOKUP_LOOKUP_H_
