// Table's state, shared by table.cc and the two internal views of a table
// that read it: the lookup path's (table_lookup.cc) and the inspection
// library's (table_inspection.cc). Depends on neither view's header.
// Private to src/table.

#ifndef LSMBLOOM_SRC_TABLE_TABLE_REP_H_
#define LSMBLOOM_SRC_TABLE_TABLE_REP_H_

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/table/table.h"
#include "src/filter/filter_probe.h"
#include "src/table/block.h"
#include "src/table/block_cache_impl.h"
#include "src/table/format.h"
#include "src/table/search_state.h"
#include "src/util/aligned_buffer.h"

namespace lsmbloom {
namespace internal {

// Filter outcomes and reads of one table; relaxed.
struct TableCounters {
  std::atomic<uint64_t> filters_checked{0};
  std::atomic<uint64_t> filter_ruled_out{0};
  std::atomic<uint64_t> filter_positive{0};
  std::atomic<uint64_t> filter_true_positive{0};
  std::atomic<uint64_t> data_block_reads{0};

  TableStats Snapshot() const;
  // Counts one filter answer; returns `maybe`.
  bool CountFilterAnswer(bool maybe) {
    filters_checked.fetch_add(1, std::memory_order_relaxed);
    if (!maybe) filter_ruled_out.fetch_add(1, std::memory_order_relaxed);
    return maybe;
  }
};

// An internal key that sorts before every entry of `user_key`.
std::string SeekKey(std::string_view user_key);

// One data block as the index names it, decoded once at Open: a lookup
// binary-searches these instead of re-parsing the index block.
struct IndexSeparator {
  // The user part of the index key: >= every user key of the block and
  // below those of the next. The block to read for a key is the first whose
  // separator's user part is >= the key (the first of its versions sorts
  // before every separator with that user part: it has the top sequence).
  std::string_view separator_user_key;
};

// What a lookup's search of the index reads last: a separator's 8 bytes
// after the common prefix (see OrderedPrefix8) beside its block's handle,
// so the lines that settle the search also say which bytes to read.
struct IndexSlot {
  uint64_t prefix = 0;
  BlockHandle handle;
};

}  // namespace internal

struct Table::Rep {
  std::unique_ptr<RandomAccessFile> file;
  TableReadOptions options;
  internal::TableContext context;  // From the footer: what checksums bind to.
  std::unique_ptr<internal::Block> index;
  std::vector<internal::IndexSeparator> index_entries;  // Keys: views into index_keys.
  std::string index_keys;
  // The separators' longest common prefix; one slot per data block; and
  // the prefix of the last slot of each full group of slots, for
  // GroupedLowerBound (src/util/search.h): out of cache, one round of misses
  // settles a lookup's search, and the handle arrives with it. Full keys
  // are compared only on ties.
  std::string index_common_prefix;
  std::vector<internal::IndexSlot> index_slots;
  std::vector<uint64_t> index_group_last;
  // The same summary of index_group_last: its few lines stay cached where
  // a large table's index_group_last does not, so the search of the latter
  // reads one line of it rather than a chain of halvings.
  std::vector<uint64_t> index_group_last_top;
  // Per data block: its checksum held and its restart array parsed once,
  // over bytes that stay mapped in memory (so a later read sees the very
  // same bytes). Blocks read into a buffer (pread) are verified on every read.
  std::unique_ptr<std::atomic<bool>[]> verified;
  TableLayout layout;  // Where the footer and meta-index put the parts.
  TableProperties properties;

  absl::Status filter_status = absl::NotFoundError("table has no filter");
  std::unique_ptr<internal::AlignedBuffer> filter_copy;  // When the bytes had to move.
  std::string_view filter_contents;                      // What `filter` reads; set with it.
  std::unique_ptr<FilterReader> filter;
  bool whole_key_filter = false;
  // How a lookup probes `filter` for whole keys; kNone when the table has no
  // trusted whole-key filter. Set once by LoadFilter.
  internal::FilterProbe probe;
  std::shared_ptr<const PrefixExtractor> prefix_extractor;  // Matched by name.
  // A modular filter's header, and where its block starts: `filter` holds
  // module 0, and ReadFilterModule reads the others (table_filter_modules.cc).
  std::optional<ModularBloomHeader> modular;
  uint64_t filter_offset = 0;

  // Counting is not a change to the table: lookups count from const paths.
  mutable internal::TableCounters counters;

  // Every data block is in memory: the file is mapped (or in memory).
  bool file_mapped = false;
  // The block cache's, when the file is read from storage and a cache was
  // given (null otherwise); the id it gave this table; its charge for the
  // table's index and filter memory, if asked.
  internal::BlockCacheImpl* cache = nullptr;
  std::shared_ptr<BlockCache> cache_owner;
  uint64_t cache_table_id = 0;
  std::unique_ptr<internal::CacheReservation> cache_reservation;
  internal::BlockCacheKey CacheKey(size_t i) const {
    return internal::BlockCacheKey{cache_table_id, context.unique_id, index_slots[i].handle.offset};
  }

  // Reads, checks and parses the data block at `h`. `verify` overrides
  // options.verify_checksums when true. Counted when `count`.
  absl::StatusOr<std::unique_ptr<internal::Block>> ReadDataBlock(const internal::BlockHandle& h,
                                                                 bool count,
                                                                 bool verify = false) const;

  // Fills index_entries and what searches them from `index`.
  absl::Status DecodeIndex();
  // The first data block whose separator's user key is >= user_key (the
  // block that holds the key's newest entry, if any); index_entries.size()
  // when none is.
  size_t FindDataBlock(std::string_view user_key) const;
  // FindDataBlock in two steps (TableLookup::StartLocate): the search of
  // the summaries, index_group_last_top (cached) and then one line of
  // index_group_last; the start of loading the group of slots they name;
  // and the count within that group.
  internal::IndexSearch StartIndexSearch(std::string_view user_key) const;
  void PrefetchIndexGroup(const internal::IndexSearch& search) const;
  size_t FinishIndexSearch(const internal::IndexSearch& search, std::string_view user_key) const;
  // For a mapped file, start loading what searching data block `i` reads
  // first: its tail (restart array, hash index, trailer), then, once that
  // is in cache, what Block::PrefetchSearch says. No-ops otherwise, or for
  // i past the end.
  void PrefetchBlockTail(size_t i) const;
  void PrefetchSearch(size_t i, uint64_t user_key_hash) const;
  // For a lone lookup, which learns where in the block to read only from its
  // tail (one miss, then another for the entries): the tail, then the whole
  // block, all loading at once. Blocks over kMaxWholeBlockPrefetch bytes
  // get the tail only.
  void PrefetchBlock(size_t i) const;
  static constexpr size_t kMaxWholeBlockPrefetch = 16 << 10;
  // Data block `i` and its trailer where the file is mapped; empty if it is
  // not, or for i past the end.
  std::string_view MappedBlock(size_t i) const;
  // PrefetchBlockTail's loads, for a block's mapped bytes.
  void PrefetchTail(std::string_view block) const;
  // Data blocks may carry hash indexes (table format 3).
  bool HasHashIndexes() const { return context.format_version >= 3; }
  // The data block of index entry `i`, for a lookup: parsed in place, its
  // checksum verified on the first read only when its bytes are mapped;
  // after that (`verified`), its mapped bytes are taken as they are, only
  // located again (most false positives of a filter then end at the
  // block's hash index, read from its tail).
  // From storage: from the block cache when it holds it, else read, then
  // verified, parsed and cached. Adds the cost to *reads, if given.
  absl::StatusOr<internal::Block> ReadIndexedBlock(size_t i, bool count,
                                                   internal::BlockReads* reads) const;
  // Block i from the block cache, or null; counts the hit or miss.
  std::shared_ptr<const internal::Block> CachedBlock(size_t i, internal::BlockReads* reads) const;
  // Block i from `bytes` (block and trailer) read from the file: verified
  // as options say, parsed, cached. Counts the file read. Takes the bytes
  // from *buffer instead of copying them, if given and `bytes` start it.
  absl::StatusOr<std::shared_ptr<const internal::Block>> BlockFromFileBytes(
      size_t i, std::string_view bytes, internal::BlockReads* reads,
      std::string* buffer = nullptr) const;

  // The newest entry for `user_key` from the index and one data block, the
  // filter not consulted. Counts, when `count`, the block read and (when
  // `filter_said_maybe`) the filter's positive. Adds what the data block
  // cost to *reads, if given. Writes the answer to *result, reusing its
  // value's capacity; on error *result is unspecified. user_key_hash is
  // KeyHash(user_key) with the default HashSpec (for hash indexes).
  absl::Status Search(std::string_view user_key, uint64_t user_key_hash, bool filter_said_maybe,
                      bool count, internal::BlockReads* reads, LookupResult* result) const;
  // Search, with FindDataBlock(user_key) already known.
  absl::Status SearchBlock(size_t entry, std::string_view user_key, uint64_t user_key_hash,
                           bool filter_said_maybe, bool count, internal::BlockReads* reads,
                           LookupResult* result) const;
  // The search of the data block itself, once it is in hand.
  absl::Status SearchInBlock(const internal::Block& block, std::string_view user_key,
                             uint64_t user_key_hash, bool filter_said_maybe, bool count,
                             LookupResult* result) const;

  void LoadFilter(const std::string& policy_name, const internal::BlockHandle& handle);
  // LoadFilter's read of a modular filter: its header, checked against the
  // properties' filter_head_checksum, and module 0 (into filter_copy).
  absl::StatusOr<std::string_view> ReadModularPrefix(const internal::BlockHandle& handle);

  // `error` from reading the data block at `h`, or a clearer one when the
  // block is intact but was written for another data block's offset.
  absl::Status ExplainMisplaced(const internal::BlockHandle& h, const absl::Status& error) const;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_TABLE_REP_H_
