// How the lookup layer probes one table's filter: taken from its reader once,
// when the table opens, so that a lookup across many files probes every
// candidate's filter in one step on one path, whatever its policy.
//
// A built-in blocked Bloom filter hands over its bits, and a built-in Ribbon
// filter its solution (each kind probed with many others of its kind in one
// call, their lines in flight together: BlockedBloomProbeEach, RibbonProbeEach and their
// Pairs forms); any other reader is probed through FilterReader, with the
// key's hash when the reader takes precomputed hashes, else with the key. Internal to the
// library: the public FilterReader interface stays free of the blocked
// filter's layout.

#ifndef LSMBLOOM_SRC_FILTER_FILTER_PROBE_H_
#define LSMBLOOM_SRC_FILTER_FILTER_PROBE_H_

#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {

struct FilterProbe {
  enum class Kind : uint8_t {
    kNone,     // No filter: every key may match.
    kBlocked,  // A blocked Bloom filter: `blocked` below, hashed by `hash`.
    kRibbon,   // A Ribbon filter: `ribbon` below, hashed by `hash`.
    kHashed,   // reader->HashMayMatch(KeyHash(key, hash)).
    kKeyed,    // reader->KeyMayMatch(key).
  };
  Kind kind = Kind::kNone;
  BlockedBloomView blocked;              // kBlocked.
  RibbonView ribbon;                     // kRibbon.
  HashSpec hash;                         // kBlocked, kRibbon, kHashed.
  const FilterReader* reader = nullptr;  // Every kind but kNone.

  // The answer for `key`, whose KeyHash with the default HashSpec is
  // `default_hash`: on the reader's own path (a kBlocked or kRibbon filter
  // through its reader, as a batch would answer).
  bool MayMatch(std::string_view key, uint64_t default_hash) const {
    switch (kind) {
      case Kind::kNone:
        return true;
      case Kind::kKeyed:
        return reader->KeyMayMatch(key);
      default:
        return reader->HashMayMatch(hash == HashSpec() ? default_hash : KeyHash(key, hash));
    }
  }
};

// The probe of `reader` (null: kNone). Valid while the reader is.
FilterProbe ProbeOf(const FilterReader* reader);

// The RibbonReader behind `reader` if it is the Ribbon policy's reader, else
// null (ribbon_policy.cc).
const RibbonReader* RibbonReaderOf(const FilterReader* reader);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_FILTER_PROBE_H_
