// An immutable snapshot of the files of a TableSet, laid out for lookups:
// choosing the candidate files of a key and probing their filters reads a
// few small arrays that stay in cache, never the tables themselves.

#ifndef LSMBLOOM_SRC_LOOKUP_VERSION_H_
#define LSMBLOOM_SRC_LOOKUP_VERSION_H_

#include <array>
#include <atomic>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/lookup/lookup.h"
#include "src/filter/filter_probe.h"
#include "src/lookup/held_modules.h"
#include "src/util/search.h"

namespace lsmbloom {
namespace internal {

// One file as a lookup sees it. What candidate selection and the filter
// probe read comes first and fits one cache line; the full bounds are read
// only when 8-byte prefixes tie.
struct alignas(64) FileMeta {
  // The 8 bytes of each bound after the version's common prefix,
  // big-endian, zero-padded.
  uint64_t smallest_prefix = 0;
  uint64_t largest_prefix = 0;
  // For a batched blocked Bloom filter, a copy of its view, valid while the
  // table is; otherwise a filter that matches every key, so that a lookup
  // probes all its candidates in one call alike.
  BlockedBloomView filter;
  // The kind of the file's filter as lookups consult it: kNone when they do
  // not (no trusted whole-key filter, or the options skip its level).
  FilterKind kind = FilterKind::kNone;
  // Probed with the other candidates of its kind in one call
  // (FilterProbe::batched: `filter` above, or own->ribbon); else through
  // *own, after the batches.
  bool batched = false;
  int level = 0;
  const Table* table = nullptr;  // The TableFile's table, without the two hops.
  // Any filter but a batched blocked Bloom one: the table's filter probe
  // (TableLookup::Probe); else null.
  const FilterProbe* own = nullptr;
  // The filter's predicted FPR when lookups consult it, else 0: what the
  // counters expect of each check.
  double predicted_fpr = 0;
  // Full bounds, for the compares 8-byte prefixes cannot settle: from the
  // second cache line on.
  std::string_view smallest, largest;
  uint64_t file_number = 0;  // Named in a search's errors.
  // A modular filter's modules held beyond module 0 (`filter`), probed
  // with ModuleHash(hash, m) for m = 1.. (held_modules.h), or null; and
  // where lookups count the checks that could have cost this file a
  // false-positive read (null unless the file's filter is modular).
  const HeldModules* held = nullptr;
  std::atomic<uint64_t>* accesses = nullptr;
};

// Files a key's range ruled out, per level, without touching their filters.
struct RangeSkips {
  uint32_t level0 = 0;      // Level-0 files passed over.
  uint32_t level_mask = 0;  // Bit L: the sorted level L had no file for it.
};

static_assert(offsetof(FileMeta, own) + sizeof(FileMeta::own) <= 64,
              "what a lookup reads of a candidate stays in one cache line");

struct Version {
  // Level 0 newest first; levels >= 1 by smallest key.
  std::array<std::vector<TableFile>, kNumLevels> levels;
  int last_nonempty_level = -1;
  // Some file's filter is batched with a kind other than blocked Bloom, or
  // is probed through its own reader (not batched): lookups then look at
  // each candidate's kind (candidate_filters.h); otherwise they need not
  // touch a candidate's FileMeta before the batch probe does.
  bool any_other_batched = false;
  bool any_own_filter = false;
  // Some file is read from storage (not mapped): MultiGet then reads data
  // blocks in rounds (storage_search.h).
  bool any_unmapped = false;
  // Some file's filter is modular (lookups then count its accesses), and
  // some file has modules held beyond module 0 (lookups then probe them).
  bool any_modular = false;
  bool any_held_modules = false;
  // The modules held beyond module 0, by file number (set before Index,
  // which points each FileMeta at its own), and the access counters Index
  // made for this version's modular files.
  HeldModulesMap held;
  std::shared_ptr<std::atomic<uint64_t>[]> accesses;

  // Rebuilds everything below from `levels`. Call after any change to them.
  void Index(const LookupOptions& options);

  // The most files one key can have to search: every level-0 file and one
  // of each other level.
  size_t max_candidates() const { return meta[0].size() + kNumLevels - 1; }

  // The files whose range holds `key`, newest first, and in *skips the
  // ones passed over. The list is the version's own (valid while it is)
  // when the interval map has it, else written to `scratch`: no copy.
  // REQUIRES: scratch has room for max_candidates().
  absl::Span<const FileMeta* const> FindCandidates(std::string_view key, const FileMeta** scratch,
                                                   RangeSkips* skips) const;

  // What lookups read, per level, in the order of `levels`.
  std::array<std::vector<FileMeta>, kNumLevels> meta;
  // The bounds' prefixes of each file again, packed: choosing candidates
  // reads these few lines, and a FileMeta only once it is a candidate.
  std::array<std::vector<uint64_t>, kNumLevels> smallest_prefix, largest_prefix;
  // The longest prefix every file's bounds share ("user0000" of
  // "user000012345678"). A key without it is outside every file; with it,
  // the 8 bytes after it tell most keys and bounds apart.
  std::string common_prefix;

  // Every file's candidates at once, for versions of at most
  // kMaxMappedFiles files whose lists take at most kMaxMappedEntries
  // pointers (512 KiB): the distinct prefixes of all bounds, sorted, cut
  // the key space into intervals, and a key whose prefix lies strictly
  // inside interval i (between bound_prefixes[i - 1] and [i]) has the
  // candidates interval_files[interval_first[i], interval_first[i + 1]),
  // newest first, and the range skips interval_skips[i]. A key whose
  // prefix equals a bound's takes the per-level search.
  static constexpr size_t kMaxMappedFiles = 256;
  static constexpr size_t kMaxMappedEntries = size_t{1} << 16;
  BucketedLowerBound bound_prefixes;  // Sorted, distinct; searched by bucket.
  std::vector<uint32_t> interval_first;
  std::vector<const FileMeta*> interval_files;
  std::vector<RangeSkips> interval_skips;

 private:
  void MapIntervals();
  // FindCandidates by searching each level.
  size_t SearchLevels(std::string_view key, uint64_t key_prefix, const FileMeta** out,
                      RangeSkips* skips) const;
};

// Applies `edit` to `version`'s levels (version_edit.cc): removes, then
// adds, each checked (InvalidArgument for a level out of range, a file not
// there to remove, a file number already in the set, or files that overlap
// in a sorted level; DataLoss for a table whose unique id or size is not
// the one expected), then sorts level 0 newest first and the others by
// smallest key, and sets last_nonempty_level. On error `version` is left
// part-edited: apply to a copy. The caller then calls version->Index.
absl::Status ApplyEdit(const VersionEdit& edit, Version* version);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_VERSION_H_
