// Reads one SSTable written by TableBuilder.
//
// Open() reads the footer, index, meta-index, properties and filter, and
// verifies their checksums. Data or index corruption is an error (DataLoss),
// never a wrong answer. So is a block in the wrong place: every checksum
// (format version 2) is bound to the table's unique id, the block's offset
// and its kind, so a block moved or swapped within the file, or copied from
// another table, fails its check with DataLoss naming the block's kind and
// offset. The filter is advisory: when it is missing, of an
// unknown policy, or fails its checks, the table still opens and answers
// every lookup correctly, only without filtering, and filter_status() says
// why.
//
// Get() consults the filter before touching the index or any data block.
// All const methods are safe to call from many threads at once.

#ifndef LSMBLOOM_TABLE_TABLE_H_
#define LSMBLOOM_TABLE_TABLE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/entry.h"
#include "lsmbloom/table/options.h"

namespace lsmbloom {

struct LookupResult {
  enum class Kind { kNotFound, kFound, kDeleted };
  Kind kind = Kind::kNotFound;
  uint64_t sequence = 0;  // Of the entry found (kFound, kDeleted).
  std::string value;      // kFound only.
};

// Filter outcomes and reads of one table; relaxed counters.
struct TableCounters {
  std::atomic<uint64_t> filter_checked{0};     // Lookups the filter answered.
  std::atomic<uint64_t> filter_ruled_out{0};   // ... with a certain "no".
  std::atomic<uint64_t> filter_positive{0};    // ... with "maybe".
  std::atomic<uint64_t> filter_true_positive{0};  // "maybe" and the key was there.
  std::atomic<uint64_t> data_block_reads{0};
};

// One entry, as an iterator yields it.
struct TableEntry {
  std::string_view user_key;
  uint64_t sequence;
  EntryType type;
  std::string_view value;
};

class TableIterator {
 public:
  virtual ~TableIterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  // First entry whose user key is >= user_key.
  virtual void Seek(std::string_view user_key) = 0;
  virtual void Next() = 0;
  // REQUIRES: Valid(). Views stay valid until the next move.
  virtual TableEntry entry() const = 0;
  // Not OK if a block could not be read or was corrupt; Valid() is then false.
  virtual absl::Status status() const = 0;
};

// Where one block sits in a table file: its offset and size, not counting
// the 9-byte trailer (compression byte, checksum) that follows it.
struct BlockLocation {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The parts of a table file as its footer and meta-index name them
// (docs/FORMAT.md).
struct TableLayout {
  BlockLocation index, metaindex, properties;
  BlockLocation filter;        // Size 0 if the table has no filter block.
  uint64_t footer_offset = 0;  // Of the 64-byte footer: file size - 64.
};

class Table {
 public:
  static absl::StatusOr<std::unique_ptr<Table>> Open(
      std::unique_ptr<RandomAccessFile> file,
      const TableReadOptions& options = TableReadOptions());
  ~Table();

  // The newest entry for `user_key`.
  absl::StatusOr<LookupResult> Get(std::string_view user_key) const;
  // As Get, with hash == KeyHash(user_key, *filter_hash_spec()) computed by
  // the caller once for many tables. REQUIRES: filter_hash_spec() != null.
  absl::StatusOr<LookupResult> GetWithHash(std::string_view user_key,
                                           uint64_t hash) const;
  // The lookup after a filter said "maybe" (or none was consulted). Counts
  // the outcome as a filter positive when `filter_said_maybe`. Adds the
  // data blocks it read to *blocks_read, if given.
  absl::StatusOr<LookupResult> GetAfterFilter(std::string_view user_key,
                                              bool filter_said_maybe,
                                              uint64_t* blocks_read = nullptr) const;

  // The filter's answer for hash == KeyHash(key, *filter_hash_spec()),
  // counted in counters(). REQUIRES: filter_hash_spec() != null.
  bool HashMayMatch(uint64_t hash) const;
  // Batched HashMayMatch (SIMD, prefetching). REQUIRES: sizes equal.
  void HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const;

  // False only if the table certainly has no entry for `user_key`.
  // Not counted: a query, not a lookup.
  bool KeyMayMatch(std::string_view user_key) const;
  // False only if no key in the table starts with `prefix`. Filters only
  // when the reader was given the table's prefix extractor (by name) and
  // `prefix` is exactly what it extracts (Transform(prefix) == prefix);
  // otherwise true.
  bool PrefixMayMatch(std::string_view prefix) const;

  // Non-null when the filter is trusted and takes precomputed hashes.
  const HashSpec* filter_hash_spec() const;
  // The filter when it is trusted and filters whole keys; else null.
  const FilterReader* whole_key_filter() const;
  // OK if the filter is in use; otherwise why not (NotFound: the table has
  // none; DataLoss/InvalidArgument/Unimplemented: it cannot be trusted).
  const absl::Status& filter_status() const;
  // The filter block's bytes the filter reader was opened on, for tools that
  // inspect a filter; empty unless filter_status() is OK. Valid as long as
  // the table.
  std::string_view filter_bytes() const;

  // REQUIRES: the iterator is destroyed before the table.
  std::unique_ptr<TableIterator> NewIterator() const;

  // Where the footer, index, meta-index, properties and filter are.
  const TableLayout& layout() const;
  // Every data block, in key order, as the index lists them. DataLoss if the
  // index holds a handle it cannot decode.
  absl::StatusOr<std::vector<BlockLocation>> DataBlocks() const;
  // Reads one data block and checks it: checksum, decompression, and the
  // block's own structure. OK, or the error a lookup there would get (naming
  // the block's offset); for an intact block that was written for another
  // offset of this table, DataLoss saying "misplaced" and which offset. Not
  // counted in counters().
  absl::Status CheckDataBlock(const BlockLocation& block) const;

  // Everything the properties block recorded, as strings.
  const std::map<std::string, std::string>& properties() const;
  std::string_view smallest_user_key() const;
  std::string_view largest_user_key() const;
  uint64_t num_entries() const;
  uint64_t file_size() const;
  // The 64-bit id the builder drew at random for this table (also the
  // property lsmbloom.unique_id, 16 hex digits). Usable as the table's
  // unique id: two tables collide with probability 2^-64, so a store of a
  // million tables has about a 3 in 10^8 chance of any collision. 0 for
  // format version 1 tables, which have none.
  uint64_t unique_id() const;
  // The table's format version (docs/FORMAT.md): 2, or 1 for older tables
  // whose checksums do not bind blocks to their place.
  uint32_t format_version() const;
  // Bytes held in memory for the filter, and for the index.
  uint64_t filter_memory() const;
  uint64_t index_memory() const;

  TableCounters& counters() const;

 private:
  struct Rep;
  explicit Table(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_TABLE_H_
