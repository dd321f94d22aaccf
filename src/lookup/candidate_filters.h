// The one place the lookup path dispatches on filter kind: a lookup's
// filter probes across its candidate files. A version of batched blocked
// Bloom filters alone probes every candidate in one BlockedBloomProbeEach
// (or BlockedBloomProbePairs) call, inline here; a version with other
// kinds splits each group of 32 candidates (or pairs) by kind and probes
// each batched kind in one call, the group's cache lines in flight
// together; the filters no kind batches are then probed through their own
// readers. Counting needs no kind: a file is counted as filtered exactly
// when its FileMeta::kind is not kNone (Filtered below).

#ifndef LSMBLOOM_SRC_LOOKUP_CANDIDATE_FILTERS_H_
#define LSMBLOOM_SRC_LOOKUP_CANDIDATE_FILTERS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_kind.h"
#include "src/lookup/scratch.h"
#include "src/lookup/version.h"

namespace lsmbloom {
namespace internal {

// Whether lookups consult `file`'s filter (and count its probes).
inline bool Filtered(const FileMeta& file) { return file.kind != FilterKind::kNone; }

// maybe[j] = whether files[j]'s filter may hold the key of default KeyHash
// `hash`, for every j < n whose filter is absent (true) or batched; the
// others' answers are left to ProbeThroughReaders.
void ProbeCandidatesByKind(const FileMeta* const* files, size_t n, uint64_t hash, bool* maybe);

// As ProbeCandidatesByKind, for n (file, key) pairs: files[p] and the key's
// default KeyHash hashes[p] (BlockedBloomProbePairs, RibbonProbePairs).
void ProbePairsByKind(const FileMeta* const* files, const uint64_t* hashes, size_t n, bool* maybe);

// Where files[j] holds modules beyond module 0 and maybe[j] is still true:
// its answer with those modules too, in rounds: module 1 of every such
// candidate, their lines fetched together and then probed, then module 2
// of those still "maybe", and so on.
// ProbeHeldModules for one key of default KeyHash `hash`; the Pairs form
// for files[p] and hashes[p].
void ProbeHeldModules(const FileMeta* const* files, size_t n, uint64_t hash, bool* maybe);
void ProbeHeldModulePairs(const FileMeta* const* files, const uint64_t* hashes, size_t n,
                          bool* maybe);

// maybe[j] for every j < n whose filter no kind batches: through its own
// reader, with `key` (of default KeyHash `hash`).
inline void ProbeThroughReaders(const FileMeta* const* files, size_t n, std::string_view key,
                                uint64_t hash, bool* maybe) {
  for (size_t j = 0; j < n; ++j) {
    const FileMeta& file = *files[j];
    if (Filtered(file) && !file.batched) maybe[j] = file.own->MayMatch(key, hash);
  }
}

// maybe[j] for all n candidates of `key` (default KeyHash `hash`) in `v`.
inline void ProbeCandidates(const Version& v, const FileMeta* const* files, size_t n,
                            std::string_view key, uint64_t hash, bool* maybe) {
  if (v.any_other_batched || v.any_own_filter) {
    ProbeCandidatesByKind(files, n, hash, maybe);
  } else if (n != 0) {
    StackScratch<const BlockedBloomView*, 32> views(n);
    for (size_t j = 0; j < n; ++j) views[j] = &files[j]->filter;
    BlockedBloomProbeEach({views.data(), n}, hash, {maybe, n});
  }
  if (v.any_held_modules) ProbeHeldModules(files, n, hash, maybe);
  if (v.any_own_filter) ProbeThroughReaders(files, n, key, hash, maybe);
}

// maybe[p] for n pairs of `v`: files[p] with views[p] == &files[p]->filter
// and hashes[p]. The filters no kind batches are left to the caller's
// ProbeThroughReaders of each key (when v.any_own_filter).
inline void ProbeCandidatePairs(const Version& v, const FileMeta* const* files,
                                const BlockedBloomView* const* views, const uint64_t* hashes,
                                size_t n, bool* maybe) {
  if (v.any_other_batched || v.any_own_filter) {
    ProbePairsByKind(files, hashes, n, maybe);
  } else if (n != 0) {
    BlockedBloomProbePairs({views, n}, {hashes, n}, {maybe, n});
  }
  if (v.any_held_modules) ProbeHeldModulePairs(files, hashes, n, maybe);
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_CANDIDATE_FILTERS_H_
