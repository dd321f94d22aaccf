// The blocks of a table, read with the table reader's own block code: data
// blocks one by one, the index and the meta-index.

#include "absl/strings/str_cat.h"
#include "lsmbloom/inspect/inspect.h"
#include "src/table/block.h"
#include "src/table/format.h"
#include "src/table/table_inspection.h"

namespace lsmbloom {

namespace {

using internal::Block;
using internal::BlockHandle;
using internal::BlockKind;
using internal::TableInspection;

using internal::HandleOf;
using internal::LocationOf;

absl::StatusOr<Block> ReadParsed(const InspectedTable& t, const BlockLocation& where,
                                 BlockKind kind, Compression* compression = nullptr) {
  const Table& table = t.table();
  absl::StatusOr<internal::BlockContents> c =
      internal::ReadBlock(TableInspection::File(table), HandleOf(where), kind,
                          TableInspection::Context(table), /*verify_checksum=*/true);
  if (!c.ok()) return c.status();
  if (compression != nullptr) *compression = c->compression;
  const bool may_have_hash_index =
      kind == BlockKind::kData && TableInspection::Context(table).format_version >= 3;
  return Block::Parse(std::move(*c), internal::BlockKindName(kind), may_have_hash_index);
}

// Reads the entries of one data block into `info`.
void Describe(const InspectedTable& t, DataBlockInfo* info) {
  // Checksum and placement first, with the reader's own explanation of a
  // block written for another offset.
  info->status = CheckDataBlock(t.table(), info->location);
  if (!info->status.ok()) return;
  absl::StatusOr<Block> block = ReadParsed(t, info->location, BlockKind::kData, &info->compression);
  if (!block.ok()) {
    info->status = block.status();
    return;
  }
  info->raw_size = block->size();
  info->restarts = block->num_restarts();
  info->hash_buckets = block->num_hash_buckets();
  Block::Iterator it(&*block, internal::CompareInternalKeys);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    internal::ParsedInternalKey k;
    if (!internal::ParseInternalKey(it.key(), &k)) {
      info->status = absl::DataLossError("data block: bad internal key");
      return;
    }
    if (info->entries == 0) {
      info->first_key = std::string(k.user_key);
      info->first_sequence = k.sequence;
    }
    info->last_key = std::string(k.user_key);
    info->last_sequence = k.sequence;
    info->entries++;
    info->key_bytes += k.user_key.size();
    info->value_bytes += it.value().size();
  }
  info->status = it.status();
}

}  // namespace

TableLayout LayoutOf(const Table& table) {
  return TableInspection::Layout(table);
}

absl::StatusOr<std::vector<BlockLocation>> DataBlockLocations(const Table& table) {
  absl::StatusOr<std::vector<BlockHandle>> handles = TableInspection::DataBlocks(table);
  if (!handles.ok()) return handles.status();
  std::vector<BlockLocation> blocks;
  for (const BlockHandle& h : *handles) blocks.push_back(LocationOf(h));
  return blocks;
}

absl::Status CheckDataBlock(const Table& table, const BlockLocation& block) {
  return TableInspection::CheckDataBlock(table, HandleOf(block));
}

absl::StatusOr<LookupResult> GetUnfiltered(const Table& table, std::string_view user_key) {
  return TableInspection::GetUnfiltered(table, user_key);
}

uint64_t StoredSizeWith(std::string_view raw, Compression compression) {
  std::string compressed;
  absl::StatusOr<Compression> used = internal::CompressForStorage(raw, compression, &compressed);
  if (!used.ok() || *used == Compression::kNone) return raw.size();
  return compressed.size();
}

absl::StatusOr<std::vector<DataBlockInfo>> DescribeDataBlocks(
    const InspectedTable& t, const std::function<void(uint64_t)>& progress) {
  absl::StatusOr<std::vector<BlockLocation>> locations = DataBlockLocations(t.table());
  if (!locations.ok()) return locations.status();
  std::vector<DataBlockInfo> blocks(locations->size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    blocks[i].number = i;
    blocks[i].location = (*locations)[i];
    Describe(t, &blocks[i]);
    if (progress) progress(i + 1);
  }
  return blocks;
}

absl::StatusOr<std::string> ReadDataBlockContents(const InspectedTable& t,
                                                  const BlockLocation& block) {
  const Table& table = t.table();
  absl::StatusOr<internal::BlockContents> c =
      internal::ReadBlock(TableInspection::File(table), HandleOf(block), BlockKind::kData,
                          TableInspection::Context(table), /*verify_checksum=*/true);
  if (!c.ok()) return c.status();
  return std::string(c->view());
}

absl::StatusOr<std::vector<IndexEntry>> ReadIndex(const InspectedTable& t) {
  absl::StatusOr<Block> index = ReadParsed(t, LayoutOf(t.table()).index, BlockKind::kIndex);
  if (!index.ok()) return index.status();
  std::vector<IndexEntry> entries;
  Block::Iterator it(&*index, internal::CompareInternalKeys);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    internal::ParsedInternalKey k;
    std::string_view v = it.value();
    BlockHandle h;
    if (!internal::ParseInternalKey(it.key(), &k) || !h.DecodeFrom(&v)) {
      return absl::DataLossError(absl::StrCat("index block: bad entry ", entries.size()));
    }
    entries.push_back({std::string(k.user_key), k.sequence, {h.offset, h.size}});
  }
  if (!it.status().ok()) return it.status();
  return entries;
}

absl::StatusOr<std::vector<MetaIndexEntry>> ReadMetaIndex(const InspectedTable& t) {
  absl::StatusOr<Block> meta = ReadParsed(t, LayoutOf(t.table()).metaindex, BlockKind::kMetaIndex);
  if (!meta.ok()) return meta.status();
  std::vector<MetaIndexEntry> entries;
  Block::Iterator it(&*meta, internal::CompareBytes);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view v = it.value();
    BlockHandle h;
    if (!h.DecodeFrom(&v)) return absl::DataLossError("meta-index block: bad handle");
    entries.push_back({std::string(it.key()), {h.offset, h.size}});
  }
  if (!it.status().ok()) return it.status();
  return entries;
}

}  // namespace lsmbloom
