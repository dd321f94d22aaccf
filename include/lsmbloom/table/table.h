// Reads one SSTable written by TableBuilder.
//
// Open() reads the footer, index, meta-index, properties and filter, and
// verifies their checksums. Data or index corruption is an error (DataLoss),
// never a wrong answer. So is a block in the wrong place: every checksum
// (format versions 2 and 3) is bound to the table's unique id, the block's offset
// and its kind, so a block moved or swapped within the file, or copied from
// another table, fails its check with DataLoss naming the block's kind and
// offset. So is a property whose value does not parse (table_properties.h).
// The filter is advisory: when it is missing, of an unknown policy, or fails
// its checks, the table still opens and answers every lookup correctly,
// only without filtering, and filter_status() says why.
//
// Get() consults the filter before touching the index or any data block.
// All const methods are safe to call from many threads at once. Lookups
// across the tables of an LSM tree go through TableSet
// (lsmbloom/lookup/lookup.h); looking inside a table file, through
// lsmbloom/inspect/inspect.h.

#ifndef LSMBLOOM_TABLE_TABLE_H_
#define LSMBLOOM_TABLE_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/entry.h"
#include "lsmbloom/table/options.h"
#include "lsmbloom/table/table_properties.h"

namespace lsmbloom {

struct LookupResult {
  enum class Kind { kNotFound, kFound, kDeleted };
  Kind kind = Kind::kNotFound;
  uint64_t sequence = 0;  // Of the entry found (kFound, kDeleted).
  std::string value;      // kFound only.

  // Back to "not found", keeping the value's capacity for the next answer.
  void Reset() {
    kind = Kind::kNotFound;
    sequence = 0;
    value.clear();
  }
};

// What this table's own Get() found (a TableSet counts its lookups in its
// own stats, not here). A snapshot.
struct TableStats {
  uint64_t filters_checked = 0;        // Lookups the filter answered,
  uint64_t filter_ruled_out = 0;      // ... with a certain "no",
  uint64_t filter_positive = 0;       // ... with "maybe",
  uint64_t filter_true_positive = 0;  // ... "maybe", and the key was there.
  uint64_t data_block_reads = 0;
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
  // For salvage: after status() reported a damaged data block, moves to the
  // first entry of the next data block and clears status(), so a caller can
  // go on past the damage, having reported it. The rest of the damaged block
  // is lost. Returns false, and changes nothing, when status() is OK or the
  // damage is one no later block can be found past (the index's).
  virtual bool SkipDamagedBlock() { return false; }
};

struct ModularBloomHeader;  // lsmbloom/filter/modular_bloom.h
class FilterModule;

namespace internal {
class TableLookup;      // The lookup path's access (src/table/table_lookup.h).
class TableInspection;  // lsmbloom/inspect/inspect.h's (src/table/table_inspection.h).
}  // namespace internal

class Table {
 public:
  static absl::StatusOr<std::unique_ptr<Table>> Open(
      std::unique_ptr<RandomAccessFile> file, const TableReadOptions& options = TableReadOptions());
  ~Table();

  // The newest entry for `user_key`. Consults the filter first; counted in
  // stats().
  absl::StatusOr<LookupResult> Get(std::string_view user_key) const;
  // As Get, into *result, whose value's capacity is reused: a loop that
  // keeps one LookupResult allocates nothing once it has held the longest
  // value, and leaves no absl::StatusOr code to the caller (which an
  // unoptimised build of the caller runs slowly). On error *result is
  // unspecified.
  absl::Status Get(std::string_view user_key, LookupResult* result) const;

  // False only if the table certainly has no entry for `user_key`.
  // Not counted: a query, not a lookup.
  bool KeyMayMatch(std::string_view user_key) const;
  // False only if no key in the table starts with `prefix`. Filters only
  // when the reader was given the table's prefix extractor (by name) and
  // `prefix` is exactly what it extracts (Transform(prefix) == prefix);
  // otherwise true.
  bool PrefixMayMatch(std::string_view prefix) const;

  // The filter when it is trusted and filters whole keys; else null.
  const FilterReader* whole_key_filter() const;
  // OK if the filter is in use; otherwise why not (NotFound: the table has
  // none; DataLoss/InvalidArgument/Unimplemented: it cannot be trusted).
  const absl::Status& filter_status() const;

  // A modular filter (lsmbloom/filter/modular_bloom.h): its header when the
  // trusted whole-key filter is one, else null. The table holds its module
  // 0 (filter_memory()); a TableSet holds further modules as its filter
  // memory cap allows (lookup.h).
  const ModularBloomHeader* filter_modules() const;
  // Module m (1 <= m < the header's count) read from the file, in one read
  // of its bytes, and verified: DataLoss naming the offset when it is
  // damaged, InvalidArgument when there is no such module.
  absl::StatusOr<std::shared_ptr<const FilterModule>> ReadFilterModule(int m) const;

  // REQUIRES: the iterator is destroyed before the table.
  std::unique_ptr<TableIterator> NewIterator() const;

  // What the properties block recorded (lsmbloom/table/table_properties.h).
  const TableProperties& properties() const;
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
  // The table's format version (docs/FORMAT.md): 3 for tables whose data
  // blocks carry hash indexes (TableOptions::data_block_hash_index), 2 for
  // the others as TableBuilder writes them now, 1 for older tables whose
  // checksums do not bind blocks to their place.
  uint32_t format_version() const;
  // Bytes held in memory for the filter, and for the index.
  uint64_t filter_memory() const;
  uint64_t index_memory() const;

  // Counts of Get() since the table was opened.
  TableStats stats() const;

 private:
  friend class internal::TableLookup;
  friend class internal::TableInspection;
  struct Rep;
  explicit Table(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_TABLE_H_
