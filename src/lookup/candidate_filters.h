// A lookup's filter probes across its candidate files when the version
// holds Ribbon filters or filters probed through their own readers: each
// kind's candidates of a key (or pairs of a batch of keys) probed in one
// call per group of 32, with the cache lines of the group in flight
// together. (A version of blocked filters alone needs none of this: every
// candidate goes to BlockedBloomProbeEach.)

#ifndef LSMBLOOM_SRC_LOOKUP_CANDIDATE_FILTERS_H_
#define LSMBLOOM_SRC_LOOKUP_CANDIDATE_FILTERS_H_

#include <cstddef>
#include <cstdint>

#include "src/lookup/version.h"

namespace lsmbloom {
namespace internal {

// maybe[j] = whether files[j]'s filter may hold the key of default KeyHash
// `hash`, for every j < n whose step is kNone (true), kBatch (BlockedBloomProbeEach) or
// kRibbon (RibbonProbeEach); kOwn answers are left to the caller.
void ProbeCandidatesByKind(const FileMeta* const* files, size_t n, uint64_t hash, bool* maybe);

// As ProbeCandidatesByKind, for n (file, key) pairs: files[p] and the key's
// default KeyHash hashes[p] (BlockedBloomProbePairs, RibbonProbePairs).
void ProbePairsByKind(const FileMeta* const* files, const uint64_t* hashes, size_t n, bool* maybe);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_CANDIDATE_FILTERS_H_
