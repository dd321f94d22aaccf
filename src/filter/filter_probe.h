// How the lookup layer probes one table's filter: taken from its reader once,
// when the table opens, so that a lookup across many files probes every
// candidate's filter in one step on one path, whatever its kind.
//
// A kind with a batched probe hands over its view (a blocked Bloom filter its
// bits, a Ribbon filter its solution), and is probed with many others of its
// kind in one call, their lines in flight together (BlockedBloomProbeEach,
// RibbonProbeEach and their Pairs forms); any other reader is probed through
// FilterReader, with the key's hash when the reader takes precomputed hashes,
// else with the key. The kind comes from the reader itself
// (FilterReader::DescribeProbe, which the built-in kinds' adapter overrides:
// policy_adapter.h), never from its dynamic type. Internal to the library:
// the public FilterReader interface stays free of every kind's layout.

#ifndef LSMBLOOM_SRC_FILTER_FILTER_PROBE_H_
#define LSMBLOOM_SRC_FILTER_FILTER_PROBE_H_

#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_kind.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {

struct FilterProbe {
  FilterKind kind = FilterKind::kNone;   // kNone: no filter, every key may match.
  bool by_key = false;                   // The reader takes keys, not hashes.
  BlockedBloomView blocked;              // kBlockedBloom.
  RibbonView ribbon;                     // kRibbon.
  HashSpec hash;                         // Unless by_key.
  const FilterReader* reader = nullptr;  // Every kind but kNone.
  // A modular filter (modular_bloom.h): `blocked` is its module 0, and a
  // lookup probes any further module it holds after it.
  bool modular = false;

  // The probe of `reader` (null: kNone). Valid while the reader is.
  static FilterProbe Of(const FilterReader* reader) {
    FilterProbe probe;
    if (reader == nullptr) return probe;
    probe.reader = reader;
    reader->DescribeProbe(&probe);
    return probe;
  }

  // Whether the lookup layer probes this filter with others of its kind in
  // one call (the kinds with a batched probe, at the default HashSpec that
  // hashes a key once for every file); else through `reader`.
  bool batched() const {
    return (kind == FilterKind::kBlockedBloom || kind == FilterKind::kRibbon) &&
           hash == HashSpec();
  }

  // The answer for `key`, whose KeyHash with the default HashSpec is
  // `default_hash`: on the reader's own path (a batched kind through its
  // reader, as a batch would answer).
  bool MayMatch(std::string_view key, uint64_t default_hash) const {
    if (kind == FilterKind::kNone) return true;
    if (by_key) return reader->KeyMayMatch(key);
    return reader->HashMayMatch(hash == HashSpec() ? default_hash : KeyHash(key, hash));
  }
};

// The probe of `reader` (null: kNone). Valid while the reader is.
inline FilterProbe ProbeOf(const FilterReader* reader) { return FilterProbe::Of(reader); }

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_FILTER_PROBE_H_
