// Writes one SSTable: sorted entries in data blocks, then the filter block,
// a properties block, the meta-index, the index, and a footer
// (docs/FORMAT.md). Every block carries a checksum.
//
// Entries are (user key, sequence number, type). Order: user keys
// ascending; for one user key, sequence numbers descending (newest first).
// Deletions (tombstones) are entries too and go into the filter: otherwise a
// lookup of a deleted key would be "ruled out" here and fall through to an
// older table that still has the value.
//
// Call order: (Add)* then Finish() or Abandon(). The first error is latched:
// later calls return it, an entry Add() rejected included (out of order, too
// large, a bad sequence number), so a table can never be published without
// an entry its writer meant it to hold. Until Finish() succeeds the file is
// not complete (no footer; with NewPosixWritableFile not even at its final
// name), so no reader accepts a half-written table. Not thread-safe.

#ifndef LSMBLOOM_TABLE_TABLE_BUILDER_H_
#define LSMBLOOM_TABLE_TABLE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/entry.h"
#include "lsmbloom/table/options.h"

namespace lsmbloom {

class TableBuilder {
 public:
  // Writes to `file`, which Finish() syncs and closes.
  TableBuilder(const TableOptions& options, std::unique_ptr<WritableFile> file);
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // REQUIRES: after every earlier entry in the order above;
  // seq <= kMaxSequenceNumber; key and value together at most 1 GiB.
  // InvalidArgument otherwise, latched: Finish() then returns it too.
  absl::Status Add(std::string_view user_key, uint64_t seq, EntryType type, std::string_view value);

  // Writes the filter, properties, meta-index, index and footer, then syncs
  // and closes the file (which publishes it). On any error, now or latched
  // earlier, returns it and discards the file instead.
  absl::Status Finish();
  // Stops without completing the file.
  void Abandon();

  uint64_t num_entries() const;
  // Bytes written so far (the final file size after Finish).
  uint64_t file_size() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_TABLE_BUILDER_H_
