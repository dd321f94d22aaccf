// Options for writing and reading tables.

#ifndef LSMBLOOM_TABLE_OPTIONS_H_
#define LSMBLOOM_TABLE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/block_cache.h"

namespace lsmbloom {

// Maps a key to the prefix a prefix filter indexes. Its Name() is stored in
// the table; a reader uses the prefix part of a filter only with an
// extractor of the same name.
class PrefixExtractor {
 public:
  virtual ~PrefixExtractor() = default;
  virtual std::string Name() const = 0;
  // Whether `key` has a prefix at all (keys outside the domain are not
  // added as prefixes and prefix queries for them cannot be filtered).
  virtual bool InDomain(std::string_view key) const = 0;
  // REQUIRES: InDomain(key).
  virtual std::string_view Transform(std::string_view key) const = 0;
};

// The first `length` bytes of every key at least that long.
// Name "lsmbloom.FixedPrefix.<length>". InvalidArgument for length 0 (every
// key would share one prefix).
absl::StatusOr<std::shared_ptr<const PrefixExtractor>> NewFixedPrefixExtractor(size_t length);

// Data-block compression, chosen per table and recorded per block. Filter,
// index and meta blocks are never compressed.
enum class Compression : uint8_t { kNone = 0, kSnappy = 1, kZstd = 2 };

struct TableOptions {
  // Null writes a table without a filter.
  std::shared_ptr<const FilterPolicy> filter_policy = DefaultFilterPolicy();
  // Put whole user keys in the filter (point lookups).
  bool whole_key_filtering = true;
  // Also put prefixes in the filter (prefix seeks), if set.
  std::shared_ptr<const PrefixExtractor> prefix_extractor;
  // Target uncompressed size of a data block.
  size_t block_size = 4096;
  // Entries between full keys (restart points) inside a data block.
  int restart_interval = 16;
  // Give each data block a hash index (2 bytes per key): a point lookup then
  // reads one restart interval of the block instead of binary-searching its
  // restart points, and, for most keys the block does not hold, nothing
  // past the block's tail. On, the table is format 3 (docs/FORMAT.md): a
  // reader must know format 3 to open it, and one that knows only formats 1
  // and 2 refuses it. Off, the table is format 2.
  bool data_block_hash_index = false;
  Compression compression = Compression::kNone;
  // For tables read with direct reads (FileAccess::kDirect): no data block
  // straddles two 4 KiB pages (kDirectReadAlignment). A block ends before
  // it and its trailer outgrow a page (or at block_size, if smaller), and
  // starts on a new page where it would cross into the next, so a read of
  // one block reads one page, not two, and a batch of reads moves half the
  // bytes (RocksDB's block_align). Costs the padding between blocks, a few
  // percent of the data. Uncompressed tables only: InvalidArgument with
  // another compression. Readers need no setting.
  bool block_align = false;
  // The table's unique id (Table::unique_id()), which every block checksum
  // is bound to. 0, the default, draws a fresh random id for each table.
  // Set it only to write reproducible bytes in tests: two tables sharing an
  // id can have same-offset blocks swapped between them undetected.
  uint64_t unique_id = 0;
  // The table's lsmbloom.creation_time property, Unix seconds. 0, the
  // default, records the time Finish() runs. Set it only to write
  // reproducible bytes (golden files, tests).
  int64_t creation_time = 0;
};

struct TableReadOptions {
  // Policies this reader can load filters of, matched by Name(). Empty means
  // the built-in ones. A table whose policy is not here still opens and
  // answers correctly, without filtering.
  std::vector<std::shared_ptr<const FilterPolicy>> filter_policies;
  // Extractors a prefix filter may have been written with, matched by Name().
  std::vector<std::shared_ptr<const PrefixExtractor>> prefix_extractors;
  // Verify the checksum of every block read (the filter's always is). A
  // data block whose bytes are mapped in memory (an mmap'd or in-memory
  // file) is verified on its first read only: later reads see the same
  // bytes, as a peer's block cache serves the bytes it verified once.
  // Blocks read into a buffer (pread) are verified on every read.
  bool verify_checksums = true;
  // Holds data blocks read from the file, verified and parsed, for tables
  // read from storage (FileAccess::kPread or kDirect); one cache serves
  // every table opened with it (lsmbloom/table/block_cache.h). Mapped and
  // in-memory files do not use it: their blocks are in memory already.
  // Point lookups fill it; iterators read around it. Null: no cache.
  std::shared_ptr<BlockCache> block_cache;
  // Charge the table's index and filter memory to block_cache while the
  // table is open, ahead of every data block: one capacity then bounds the
  // index, filter and cached data block memory (lsmbloom/table/block_cache.h
  // states the bound; modules a TableSet holds beyond a modular filter's
  // module 0 fall under its own cap instead). ResourceExhausted from Open
  // where a cache with strict_capacity_limit has no room for them. (The
  // memory stays the table's either way: an index or filter is never
  // evicted.)
  bool charge_table_memory_to_cache = false;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_OPTIONS_H_
