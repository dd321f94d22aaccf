// What the inspection library (lsmbloom/inspect/inspect.h) reads of an open table
// beyond its public API: where its parts are, its data blocks one by one,
// the filter bytes, and lookups that bypass the filter. Not part of the
// public API; tools reach all of it through lsmbloom/inspect/inspect.h.

#ifndef LSMBLOOM_SRC_TABLE_TABLE_INSPECTION_H_
#define LSMBLOOM_SRC_TABLE_TABLE_INSPECTION_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_layout.h"
#include "src/table/format.h"

namespace lsmbloom {
namespace internal {

class TableInspection {
 public:
  static const TableLayout& Layout(const Table& table);
  static const TableContext& Context(const Table& table);
  static const RandomAccessFile& File(const Table& table);

  // Every data block, in key order, as the index lists them. DataLoss if the
  // index holds a handle it cannot decode.
  static absl::StatusOr<std::vector<BlockHandle>> DataBlocks(const Table& table);
  // Reads one data block and checks it: checksum (always), decompression,
  // and every entry. OK, or the error a lookup there would get; for an intact
  // block written for another offset of this table, DataLoss saying
  // "misplaced" and which offset. Not counted.
  static absl::Status CheckDataBlock(const Table& table, const BlockHandle& block);

  // The filter block's bytes the filter reader was opened on; empty unless
  // filter_status() is OK. Valid as long as the table.
  static std::string_view FilterBytes(const Table& table);

  // The newest entry for `user_key` from the index and data, the filter not
  // consulted (so the answer stands even if the filter is wrong). Not counted.
  static absl::StatusOr<LookupResult> GetUnfiltered(const Table& table, std::string_view user_key);
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_TABLE_INSPECTION_H_
