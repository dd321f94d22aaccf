// What a table records about itself in its properties block
// (docs/FORMAT.md): counts, sizes, the options it was written with, its
// filter and its key range.
//
// On disk each property is a name and a string value. TableProperties is
// the typed form; EncodeTableProperties and DecodeTableProperties are the
// only code that turns one into the other. A property a writer did not
// record (an older writer) decodes to its default below; one recorded with
// a value that does not parse, or out of range, is DataLoss naming it.
//
//   absl::StatusOr<std::unique_ptr<Table>> t = Table::Open(...);
//   uint64_t tombstones = (*t)->properties().num_deletions;

#ifndef LSMBLOOM_TABLE_TABLE_PROPERTIES_H_
#define LSMBLOOM_TABLE_TABLE_PROPERTIES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "lsmbloom/table/options.h"

namespace lsmbloom {

struct TableProperties {
  // The names, as stored. They are part of the file format: never change one.
  static constexpr char kFormatVersion[] = "lsmbloom.format_version";
  static constexpr char kCreator[] = "lsmbloom.creator";
  static constexpr char kUniqueId[] = "lsmbloom.unique_id";
  static constexpr char kCreationTime[] = "lsmbloom.creation_time";
  static constexpr char kNumEntries[] = "lsmbloom.num_entries";
  static constexpr char kNumDeletions[] = "lsmbloom.num_deletions";
  static constexpr char kNumDataBlocks[] = "lsmbloom.num_data_blocks";
  static constexpr char kDataSize[] = "lsmbloom.data_size";
  static constexpr char kRawKeySize[] = "lsmbloom.raw_key_size";
  static constexpr char kRawValueSize[] = "lsmbloom.raw_value_size";
  static constexpr char kBlockSize[] = "lsmbloom.block_size";
  static constexpr char kRestartInterval[] = "lsmbloom.restart_interval";
  static constexpr char kCompression[] = "lsmbloom.compression";
  static constexpr char kFilterPolicy[] = "lsmbloom.filter.policy";
  static constexpr char kFilterSize[] = "lsmbloom.filter.size";
  static constexpr char kFilterParams[] = "lsmbloom.filter.params";
  static constexpr char kFilterHeadChecksum[] = "lsmbloom.filter.head_checksum";
  static constexpr char kFilterKeysAdded[] = "lsmbloom.filter.keys_added";
  static constexpr char kFilterWholeKey[] = "lsmbloom.filter.whole_key";
  static constexpr char kFilterPrefixExtractor[] = "lsmbloom.filter.prefix_extractor";
  static constexpr char kSmallestUserKey[] = "lsmbloom.smallest_user_key";
  static constexpr char kLargestUserKey[] = "lsmbloom.largest_user_key";

  uint32_t format_version = 0;  // The table format the writer wrote.
  std::string creator;          // "lsmbloom".
  uint64_t unique_id = 0;       // 16 hex digits on disk; 0 before version 2.
  int64_t creation_time = 0;    // Unix seconds.

  uint64_t num_entries = 0;    // Values and deletions.
  uint64_t num_deletions = 0;  // At most num_entries.
  uint64_t num_data_blocks = 0;
  uint64_t data_size = 0;     // Data blocks on disk, trailers included.
  uint64_t raw_key_size = 0;  // User keys, as added.
  uint64_t raw_value_size = 0;
  uint64_t block_size = 0;                       // TableOptions::block_size.
  int restart_interval = 0;                      // TableOptions::restart_interval.
  Compression compression = Compression::kNone;  // "none", "snappy", "zstd".

  std::string filter_policy;            // Its Name(); empty: the table has no filter.
  uint64_t filter_size = 0;             // Filter block bytes.
  std::string filter_params;            // The policy's description of the filter.
  // XXH3-64 of the filter's first bytes (its whole header, for a modular
  // filter: lsmbloom/filter/modular_bloom.h), 16 hex digits; 0 (absent)
  // for other filters. A reader that keeps part of a filter without
  // reading its block whole checks this instead of the block's checksum,
  // binding that part to this table as the properties block is.
  uint64_t filter_head_checksum = 0;
  uint64_t filter_keys_added = 0;       // Keys and prefixes given to the filter.
  bool filter_whole_key = false;        // "1": every user key is in the filter.
  std::string filter_prefix_extractor;  // Its Name(), or empty.

  std::string smallest_user_key, largest_user_key;  // Raw bytes.

  // Properties this version does not know (a newer writer's), by name, as
  // recorded. Kept so that reading and re-encoding loses nothing; nothing
  // here interprets them.
  std::map<std::string, std::string> unknown;
};

// Every property by name, values as stored: the known ones, then `unknown`
// (which cannot replace a known one).
std::map<std::string, std::string> EncodeTableProperties(const TableProperties& props);

// The typed form of a properties block's entries. DataLoss naming the
// property when a value does not parse or is out of range (for instance a
// number with a sign or beyond 64 bits, a compression this version does not
// know, num_deletions above num_entries).
absl::StatusOr<TableProperties> DecodeTableProperties(
    const std::map<std::string, std::string>& recorded);

// "none", "snappy", "zstd", as the compression property records them.
const char* CompressionName(Compression compression);

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_TABLE_PROPERTIES_H_
