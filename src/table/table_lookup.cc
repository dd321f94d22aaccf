#include "src/table/table_lookup.h"

#include "src/table/table_rep.h"

namespace lsmbloom {
namespace internal {

const FilterProbe& TableLookup::Probe(const Table& table) { return table.rep_->probe; }

absl::Status TableLookup::GetAfterFilter(const Table& table, std::string_view user_key,
                                         uint64_t user_key_hash, BlockReads* reads,
                                         LookupResult* result) {
  return table.rep_->Search(user_key, user_key_hash, /*filter_said_maybe=*/false, /*count=*/false,
                            reads, result);
}

IndexSearch TableLookup::StartLocate(const Table& table, std::string_view user_key) {
  const IndexSearch start = table.rep_->StartIndexSearch(user_key);
  table.rep_->PrefetchIndexGroup(start);
  return start;
}

size_t TableLookup::LocateBlock(const Table& table, std::string_view user_key,
                                const IndexSearch& start) {
  return table.rep_->FinishIndexSearch(start, user_key);
}

void TableLookup::PrefetchBlockTail(const Table& table, size_t block) {
  table.rep_->PrefetchBlockTail(block);
}

void TableLookup::PrefetchSearch(const Table& table, size_t block, uint64_t user_key_hash) {
  table.rep_->PrefetchSearch(block, user_key_hash);
}

absl::Status TableLookup::GetFromBlock(const Table& table, size_t block,
                                       std::string_view user_key, uint64_t user_key_hash,
                                       BlockReads* reads, LookupResult* result) {
  return table.rep_->SearchBlock(block, user_key, user_key_hash, /*filter_said_maybe=*/false,
                                 /*count=*/false, reads, result);
}

bool TableLookup::Mapped(const Table& table) { return table.rep_->file_mapped; }

size_t TableLookup::NumDataBlocks(const Table& table) { return table.rep_->index_slots.size(); }

void TableLookup::DataBlockRange(const Table& table, size_t block, uint64_t* offset,
                                 size_t* size) {
  const BlockHandle& h = table.rep_->index_slots[block].handle;
  *offset = h.offset;
  *size = static_cast<size_t>(h.size) + kBlockTrailerSize;
}

const RandomAccessFile& TableLookup::File(const Table& table) { return *table.rep_->file; }

void TableLookup::PlanFetch(const Table& table, size_t block, BlockFetch* fetch,
                            BlockReads* reads) {
  const Table::Rep& rep = *table.rep_;
  *fetch = BlockFetch();
  if (block >= rep.index_slots.size()) return;  // Past the last key: nothing to read.
  if (std::shared_ptr<const Block> hit = rep.CachedBlock(block, reads)) {
    fetch->cached = std::move(hit);
    return;
  }
  const BlockHandle& h = rep.index_slots[block].handle;
  fetch->needs_read = true;
  fetch->offset = h.offset;
  fetch->size = static_cast<size_t>(h.size) + kBlockTrailerSize;
}

absl::StatusOr<std::shared_ptr<const void>> TableLookup::DecodeFetched(
    const Table& table, size_t block, std::string_view bytes, const absl::Status& read_status,
    BlockReads* reads) {
  if (!read_status.ok()) {
    if (reads != nullptr) ++reads->file_reads;
    return read_status;
  }
  absl::StatusOr<std::shared_ptr<const Block>> b =
      table.rep_->BlockFromFileBytes(block, bytes, reads);
  if (!b.ok()) return b.status();
  return std::shared_ptr<const void>(*std::move(b));
}

absl::Status TableLookup::GetFromHeld(const Table& table, size_t block,
                                      const std::shared_ptr<const void>& held,
                                      std::string_view user_key, uint64_t user_key_hash,
                                      BlockReads* reads, LookupResult* result) {
  result->Reset();
  if (reads != nullptr) ++reads->blocks;
  const Block shared = Block::Share(std::static_pointer_cast<const Block>(held));
  return table.rep_->SearchInBlock(shared, user_key, user_key_hash, false, false, result);
}

}  // namespace internal
}  // namespace lsmbloom
