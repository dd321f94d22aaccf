// What every filter kind shares: the kind's name in the library's one enum,
// and the options every kind's reader opens its bytes with
// (BlockedBloomReader::Open, RibbonReader::Open).
//
// Plain values, part of the core API: a store names a kind here when it
// chooses filters (lookup/filter_budget.h) without including any kind's
// own header. docs/ARCHITECTURE.md, "Adding a filter kind", lists what a
// new kind adds here and elsewhere.

#ifndef LSMBLOOM_FILTER_FILTER_KIND_H_
#define LSMBLOOM_FILTER_FILTER_KIND_H_

#include <cstdint>

namespace lsmbloom {

// The kinds of filter the library knows, for every layer: the filter
// budget's choice per level, and how a lookup probes a table's filter.
enum class FilterKind : uint8_t {
  kNone,          // No filter: every key may match (every check reads a block).
  kBlockedBloom,  // blocked_bloom.h; NewBlockedBloomPolicy.
  kRibbon,        // ribbon.h; NewRibbonPolicy.
  kClassicBloom,  // NewClassicBloomPolicy: the accuracy reference.
  kCustom,        // A store's own FilterPolicy, reached only through FilterReader.
};

// How a reader opens a filter's bytes, the same for every kind.
struct FilterReadOptions {
  // Verify the checksum of the filter's body at Open (one pass over it).
  // Turn off only when an outer layer has verified the same bytes.
  bool verify_checksum = true;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_FILTER_KIND_H_
