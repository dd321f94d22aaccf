// The lookup path's access to a table (src/lookup), as LevelDB's table
// cache has to its tables: Table::Get taken apart, so that a lookup across
// many tables can hash a key once, probe many filters together and search
// only the tables whose filter said "maybe". Nothing here counts in
// Table::stats(): TableSet keeps (and resets) its own counters, and tables
// shared by several sets are not coupled through theirs. Not public API.

#ifndef LSMBLOOM_SRC_TABLE_TABLE_LOOKUP_H_
#define LSMBLOOM_SRC_TABLE_TABLE_LOOKUP_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/table/table.h"
#include "src/filter/filter_probe.h"
#include "src/table/search_state.h"

namespace lsmbloom {
namespace internal {

// A data block a batch of lookups fetches for one search: where its bytes
// lie, for a read in flight with the batch's others (src/io/batch_read.h),
// or the block itself, found in the block cache.
struct BlockFetch {
  bool needs_read = false;
  uint64_t offset = 0;
  size_t size = 0;                      // Block and trailer.
  std::shared_ptr<const void> cached;   // The cached block, when found there.
};

class TableLookup {
 public:
  // How to probe the table's whole-key filter (kNone: it has none, or
  // none that is trusted): taken once when the table opened, valid while it
  // is open.
  static const FilterProbe& Probe(const Table& table);

  // The lookup once the filter said "maybe" or was not consulted: the index
  // and one data block. Adds what the data block cost to *reads.
  // The answer goes to *result, whose value keeps its capacity. Here and
  // below, user_key_hash is KeyHash(user_key) with the default HashSpec.
  static absl::Status GetAfterFilter(const Table& table, std::string_view user_key,
                                     uint64_t user_key_hash, BlockReads* reads,
                                     LookupResult* result);

  // GetAfterFilter in steps, so that a batch can keep many tables' index
  // slots and data blocks loading at once, each step taken for the whole
  // batch before the next: StartLocate takes the index search as far as its
  // cached summary goes and starts loading the slots that settle it;
  // LocateBlock, given that start once the slots have had time to arrive,
  // finishes it (the block that may hold the key); PrefetchBlockTail starts
  // loading the block's tail; PrefetchSearch, once that tail has had time to
  // arrive, starts loading the entries a search reads; GetFromBlock searches
  // it. Prefetching helps mapped files only. A prefetch into a page the TLB
  // lacks waits for its page walk, so the tails are requested in a loop of
  // their own: there the walks of the batch overlap.
  static IndexSearch StartLocate(const Table& table, std::string_view user_key);
  static size_t LocateBlock(const Table& table, std::string_view user_key,
                            const IndexSearch& start);
  static void PrefetchBlockTail(const Table& table, size_t block);
  static void PrefetchSearch(const Table& table, size_t block, uint64_t user_key_hash);
  static absl::Status GetFromBlock(const Table& table, size_t block, std::string_view user_key,
                                   uint64_t user_key_hash, BlockReads* reads,
                                   LookupResult* result);

  // For batches over tables read from storage. Mapped: the table's blocks
  // are in memory (mapped or in-memory file): GetFromBlock reads none.
  static bool Mapped(const Table& table);
  // The table's data blocks, and where block i and its trailer lie.
  static size_t NumDataBlocks(const Table& table);
  static void DataBlockRange(const Table& table, size_t block, uint64_t* offset, size_t* size);
  static const RandomAccessFile& File(const Table& table);
  // What GetFromBlock would need for `block`: nothing (past the last
  // block), the cached block (counted in *reads as a hit), or a read of
  // the range *fetch names (counted as a miss where a cache was asked).
  // REQUIRES: !Mapped(table).
  static void PlanFetch(const Table& table, size_t block, BlockFetch* fetch, BlockReads* reads);
  // The block read for a fetch: `bytes` as the read returned them with
  // `read_status` (its error, if any, is the answer), checked, parsed and
  // cached as GetFromBlock's own read is, and counted as a file read. Held
  // for every search of the batch that needs it.
  static absl::StatusOr<std::shared_ptr<const void>> DecodeFetched(const Table& table, size_t block,
                                                                   std::string_view bytes,
                                                                   const absl::Status& read_status,
                                                                   BlockReads* reads);
  // GetFromBlock over a block the batch holds: a fetch's cached block, or
  // DecodeFetched's.
  static absl::Status GetFromHeld(const Table& table, size_t block,
                                  const std::shared_ptr<const void>& held,
                                  std::string_view user_key, uint64_t user_key_hash,
                                  BlockReads* reads, LookupResult* result);
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_TABLE_LOOKUP_H_
