#include "src/table/table_lookup.h"

#include "src/table/table_rep.h"

namespace lsmbloom {
namespace internal {

const FilterProbe& TableLookup::Probe(const Table& table) { return table.rep_->probe; }

absl::Status TableLookup::GetAfterFilter(const Table& table, std::string_view user_key,
                                         uint64_t user_key_hash, uint64_t* blocks_read,
                                         LookupResult* result) {
  return table.rep_->Search(user_key, user_key_hash, /*filter_said_maybe=*/false, /*count=*/false,
                            blocks_read, result);
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
                                       uint64_t* blocks_read, LookupResult* result) {
  return table.rep_->SearchBlock(block, user_key, user_key_hash, /*filter_said_maybe=*/false,
                                 /*count=*/false, blocks_read, result);
}

}  // namespace internal
}  // namespace lsmbloom
