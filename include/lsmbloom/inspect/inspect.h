// Looking inside a table file, for tools such as sst_inspect: the parts of
// the file and every block, the filter as a view (its parameters, the block a
// hash selects, the bits of each block), which keys the table builder gave
// the filter, and what a block would take on disk under each compression.
//
// Everything here reads; nothing changes a file. Answers come from the same
// code the table reader uses, so a tool re-derives nothing from FORMAT.md.
//
//   absl::StatusOr<InspectedTable> t = InspectedTable::Open("t.sst");
//   TableLayout parts = LayoutOf(t->table());
//   for (const DataBlockInfo& b : *DescribeDataBlocks(*t)) ...
//   if (t->filter().blocked()) t->filter().BlockOfHash(hash);

#ifndef LSMBLOOM_INSPECT_INSPECT_H_
#define LSMBLOOM_INSPECT_INSPECT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/options.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_layout.h"  // BlockLocation, TableLayout.
#include "lsmbloom/table/table_properties.h"

namespace lsmbloom {

namespace internal {
class FilterKeySelector;
}  // namespace internal

// The built-in policy or prefix extractor of that name (any length of
// NewFixedPrefixExtractor), or null.
std::shared_ptr<const FilterPolicy> BuiltinFilterPolicy(std::string_view name);
std::shared_ptr<const PrefixExtractor> BuiltinPrefixExtractor(std::string_view name);

// Where the footer, index, meta-index, properties and filter are.
TableLayout LayoutOf(const Table& table);

// Every data block, in key order, as the index lists them. DataLoss if the
// index holds a handle it cannot decode.
absl::StatusOr<std::vector<BlockLocation>> DataBlockLocations(const Table& table);

// Reads one data block and checks it: checksum, decompression, and the
// block's own structure. OK, or the error a lookup there would get (naming
// the block's offset); for an intact block that was written for another
// offset of this table, DataLoss saying "misplaced" and which offset. Not
// counted in Table::stats().
absl::Status CheckDataBlock(const Table& table, const BlockLocation& block);

// The newest entry for `user_key` from the index and data blocks, the
// filter not consulted: an answer that stands even if the filter is wrong.
// Not counted in Table::stats().
absl::StatusOr<LookupResult> GetUnfiltered(const Table& table, std::string_view user_key);

// A table's filter as the table recorded it and the reader took it.
class FilterView {
 public:
  // The policy recorded; empty when the table has no filter.
  const std::string& policy() const { return policy_; }
  // Table::filter_status(): OK when the filter is trusted.
  const absl::Status& status() const { return status_; }
  // Whether a non-OK status means damage (the filter is corrupt), rather
  // than no filter or one of a policy, version or hash this build lacks.
  bool damaged() const;
  bool whole_keys() const { return whole_keys_; }
  // Also holds prefixes by this extractor, when not empty.
  const std::string& prefix_extractor() const { return prefix_extractor_; }
  // The prefixes can be recomputed: the extractor is a built-in one.
  bool prefixes_reproducible() const { return prefixes_reproducible_; }
  uint64_t size() const { return size_; }              // Filter block bytes.
  uint64_t keys_added() const { return keys_added_; }  // Keys and prefixes given.

  // The reader, when the filter is trusted (for prefix-only filters, one
  // opened on the same bytes); else null.
  const FilterReader* reader() const { return reader_; }
  // For a trusted blocked Bloom filter: its reader and its header's format
  // version; else null and 0. Set too for the blocked Bloom filter a Ribbon
  // policy's builder fell back to (RibbonOptions::max_construction_bytes).
  const BlockedBloomReader* blocked() const { return blocked_ ? &*blocked_ : nullptr; }
  int blocked_format_version() const { return blocked_ ? blocked_->format_version() : 0; }
  // The same for a trusted Ribbon filter.
  const RibbonReader* ribbon() const { return ribbon_ ? &*ribbon_ : nullptr; }
  int ribbon_format_version() const { return ribbon_ ? ribbon_->format_version() : 0; }

  // The filter block a hash selects (docs/FORMAT.md).
  // REQUIRES: blocked() and at least one block.
  uint64_t BlockOfHash(uint64_t hash) const;
  // As BlockOfHash, for a key hashed with the filter's hash and seed.
  uint64_t BlockOfKey(std::string_view key) const;
  // Bits set in block `b`. REQUIRES: blocked(), b < num_blocks.
  int BitsSetInBlock(uint64_t b) const;

 private:
  friend class InspectedTable;
  std::string policy_;
  absl::Status status_;
  bool whole_keys_ = false;
  std::string prefix_extractor_;
  bool prefixes_reproducible_ = false;
  uint64_t size_ = 0;
  uint64_t keys_added_ = 0;
  const FilterReader* reader_ = nullptr;
  std::unique_ptr<FilterReader> own_reader_;  // Backs reader_ if the table has none.
  std::optional<BlockedBloomReader> blocked_;
  std::optional<RibbonReader> ribbon_;
};

// A table opened for inspection: with the built-in prefix extractor its
// filter was written with, when there is one, so prefix queries filter too.
class InspectedTable {
 public:
  // Opens `path`. Errors carry the reason without the path. A file that
  // is a table cut short by a few bytes, or followed by extra bytes, says so
  // rather than "bad magic".
  static absl::StatusOr<InspectedTable> Open(const std::string& path);

  InspectedTable(InspectedTable&&) = default;
  InspectedTable& operator=(InspectedTable&&) = default;

  const Table& table() const { return *table_; }
  const TableProperties& properties() const { return table_->properties(); }
  const FilterView& filter() const { return *filter_; }
  // Null unless the filter holds prefixes of a built-in extractor.
  const PrefixExtractor* prefix_extractor() const { return prefix_extractor_.get(); }

  // Every property as the properties block records it, by name: the known
  // ones in their stored form and any this version does not know.
  const std::map<std::string, std::string>& recorded_properties() const {
    return recorded_properties_;
  }

 private:
  InspectedTable() = default;
  void LoadFilterView();
  std::unique_ptr<Table> table_;
  std::shared_ptr<const PrefixExtractor> prefix_extractor_;
  std::unique_ptr<FilterView> filter_;  // Points into table_.
  std::map<std::string, std::string> recorded_properties_;
};

// Replays what TableBuilder gives its filter: each user key once (when the
// filter holds whole keys) and each run of equal prefixes once (when it
// holds prefixes by a reproducible extractor), in entry order.
// The rule is TableBuilder's own (one implementation serves both).
class FilterKeys {
 public:
  explicit FilterKeys(const InspectedTable& t);
  ~FilterKeys();
  // Calls fn(key, is_prefix) for each filter key that `user_key`, the next
  // entry's key, adds.
  void Add(std::string_view user_key,
           const std::function<void(std::string_view key, bool is_prefix)>& fn);

 private:
  std::unique_ptr<internal::FilterKeySelector> selector_;
};

// One module of a modular filter (lsmbloom/filter/modular_bloom.h): what
// the filter's header says of it, and whether its bytes in the file verify.
struct FilterModuleCheck {
  int index = 0;
  FilterModuleInfo info;     // Offset from the filter's start, size, geometry.
  uint64_t file_offset = 0;  // Where its bytes start in the file.
  double bits_per_key = 0;   // 512 bits a block over the header's key count.
  // The FPR a reader holding the modules 0..index that verify answers with:
  // the product of their predicted FPRs (a damaged module adds nothing).
  double cumulative_fpr = 1;
  absl::Status status;  // OK, or why the module is not used (DataLoss).

  // Out of line, as every constructor of a public type holding floating
  // point is (tests/public_headers_odr_test.sh).
  FilterModuleCheck();
  FilterModuleCheck(const FilterModuleCheck&);
  FilterModuleCheck& operator=(const FilterModuleCheck&);
  ~FilterModuleCheck();
};

// For a table whose trusted filter is modular: every module its header
// names, each read from the file and verified as Table::ReadFilterModule
// does (checksum, its own header, the header's geometry). Empty for any
// other filter. A module that cannot be read says so in its status.
std::vector<FilterModuleCheck> CheckFilterModules(const InspectedTable& t);

// One data block, as read from the file.
struct DataBlockInfo {
  uint64_t number = 0;                           // In key order, from 0.
  BlockLocation location;                        // Offset and stored size (without trailer).
  Compression compression = Compression::kNone;  // As its trailer records.
  absl::Status status;                           // Why the block could not be read, else OK.
  // The rest only when status is OK.
  uint64_t raw_size = 0;  // Uncompressed, as the block's entries use it.
  uint64_t entries = 0, restarts = 0;
  uint64_t hash_buckets = 0;                // Of its hash index (format 3); 0: none.
  uint64_t key_bytes = 0, value_bytes = 0;  // User keys and values.
  std::string first_key, last_key;          // User keys.
  uint64_t first_sequence = 0, last_sequence = 0;
};

// Every data block of the table, in key order, each read and checked on its
// own (a damaged block is reported in its status and does not stop the
// rest). Calls progress(done) after each block, if given. Fails only if the
// index cannot be read.
absl::StatusOr<std::vector<DataBlockInfo>> DescribeDataBlocks(
    const InspectedTable& t, const std::function<void(uint64_t)>& progress = nullptr);

// The uncompressed bytes of a data block (checksum verified).
absl::StatusOr<std::string> ReadDataBlockContents(const InspectedTable& t,
                                                  const BlockLocation& block);

// An entry of the index block: the separator (an internal key: user key and
// sequence) that bounds a data block from above, and that block.
struct IndexEntry {
  std::string separator;  // User key part.
  uint64_t sequence = 0;
  BlockLocation block;
};
absl::StatusOr<std::vector<IndexEntry>> ReadIndex(const InspectedTable& t);

// An entry of the meta-index block: a block's name and where it is.
struct MetaIndexEntry {
  std::string name;  // "lsmbloom.properties", "filter.<policy>".
  BlockLocation block;
};
absl::StatusOr<std::vector<MetaIndexEntry>> ReadMetaIndex(const InspectedTable& t);

// The bytes `raw` would take on disk as a data block written with
// `compression`, as TableBuilder stores it: compressed only when that saves
// at least 1/8, so never more than raw.size(). Without the trailer.
uint64_t StoredSizeWith(std::string_view raw, Compression compression);

}  // namespace lsmbloom

#endif  // LSMBLOOM_INSPECT_INSPECT_H_
