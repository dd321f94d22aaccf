#include "src/table/table_inspection.h"

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/key_hash.h"
#include "src/table/block.h"
#include "src/table/table_rep.h"

namespace lsmbloom {
namespace internal {

const TableLayout& TableInspection::Layout(const Table& table) { return table.rep_->layout; }

const TableContext& TableInspection::Context(const Table& table) { return table.rep_->context; }

const RandomAccessFile& TableInspection::File(const Table& table) { return *table.rep_->file; }

absl::StatusOr<std::vector<BlockHandle>> TableInspection::DataBlocks(const Table& table) {
  std::vector<BlockHandle> blocks;
  Block::Iterator index(table.rep_->index.get(), CompareInternalKeys);
  for (index.SeekToFirst(); index.Valid(); index.Next()) {
    std::string_view handle_bytes = index.value();
    BlockHandle h;
    if (!h.DecodeFrom(&handle_bytes)) {
      return absl::DataLossError(
          absl::StrCat("index block: bad handle of data block ", blocks.size()));
    }
    blocks.push_back(h);
  }
  if (!index.status().ok()) return index.status();
  return blocks;
}

absl::Status TableInspection::CheckDataBlock(const Table& table, const BlockHandle& block) {
  const Table::Rep& r = *table.rep_;
  absl::StatusOr<std::unique_ptr<Block>> read =
      r.ReadDataBlock(block, /*count=*/false, /*verify=*/true);
  if (!read.ok()) return r.ExplainMisplaced(block, read.status());
  // Walk every entry: a block whose checksum holds can still be malformed
  // only if it was written so, but a verifier should say so too.
  Block::Iterator it(read->get(), CompareInternalKeys);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
  }
  return it.status();
}

std::string_view TableInspection::FilterBytes(const Table& table) {
  return table.rep_->filter_contents;
}

absl::StatusOr<LookupResult> TableInspection::GetUnfiltered(const Table& table,
                                                            std::string_view user_key) {
  LookupResult result;
  absl::Status s =
      table.rep_->Search(user_key, KeyHash(user_key), /*filter_said_maybe=*/false, /*count=*/false,
                         nullptr, &result);
  if (!s.ok()) return s;
  return result;
}

}  // namespace internal
}  // namespace lsmbloom
