// What a lookup in one table carries between its steps and what it cost:
// the types Table's state (table_rep.h) and the lookup path's view of a
// table (table_lookup.h) both name. Private to src/table.

#ifndef LSMBLOOM_SRC_TABLE_SEARCH_STATE_H_
#define LSMBLOOM_SRC_TABLE_SEARCH_STATE_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace internal {

// Where a search of a table's index stands between the two steps of
// TableLookup::StartLocate and LocateBlock.
struct IndexSearch {
  size_t first = 0;         // The answer, if settled; else where its group starts.
  uint64_t key_prefix = 0;  // The key's ordered prefix, past the common one.
  bool settled = false;     // The key lacks the separators' common prefix.
};

// What a lookup's data blocks cost it, added to its level's counts.
struct BlockReads {
  uint64_t blocks = 0;        // Data blocks searched.
  uint64_t cache_hits = 0;    // ... found in the block cache,
  uint64_t cache_misses = 0;  // ... looked for there in vain,
  uint64_t file_reads = 0;    // ... read from the file (pread or direct: not mapped, not cached),
  uint64_t file_bytes = 0;    // ... and their bytes, trailers included;
  uint64_t shared = 0;        // ... had from a read another search of the batch made.
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_SEARCH_STATE_H_
