#include "lsmbloom/table/table.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/key_hash.h"
#include "src/table/block.h"
#include "src/table/format.h"
#include "src/table/table_rep.h"
#include "src/util/coding.h"
#include "src/util/prefetch.h"
#include "src/util/search.h"

namespace lsmbloom {

using internal::Block;
using internal::BlockHandle;

namespace internal {

std::string SeekKey(std::string_view user_key) {
  std::string key;
  AppendInternalKey(&key, user_key, kMaxSequenceNumber, EntryType::kValue);
  return key;
}

// SeekKey without an allocation when the key fits `buf`: a lookup builds
// one per data block it reads.
constexpr size_t kSeekKeyBuffer = 128;
std::string_view SeekKey(std::string_view user_key, char (&buf)[kSeekKeyBuffer],
                         std::string* spill) {
  if (user_key.size() + 8 > kSeekKeyBuffer) return *spill = SeekKey(user_key);
  std::memcpy(buf, user_key.data(), user_key.size());
  const uint64_t tag = (kMaxSequenceNumber << 8) | static_cast<uint8_t>(EntryType::kValue);
  for (int i = 0; i < 8; ++i) buf[user_key.size() + i] = static_cast<char>(tag >> (8 * i));
  return std::string_view(buf, user_key.size() + 8);
}

TableStats TableCounters::Snapshot() const {
  TableStats s;
  s.filters_checked = filters_checked.load(std::memory_order_relaxed);
  s.filter_ruled_out = filter_ruled_out.load(std::memory_order_relaxed);
  s.filter_positive = filter_positive.load(std::memory_order_relaxed);
  s.filter_true_positive = filter_true_positive.load(std::memory_order_relaxed);
  s.data_block_reads = data_block_reads.load(std::memory_order_relaxed);
  return s;
}

}  // namespace internal

absl::StatusOr<std::unique_ptr<Block>> Table::Rep::ReadDataBlock(const BlockHandle& h, bool count,
                                                                 bool verify) const {
  if (count) counters.data_block_reads.fetch_add(1, std::memory_order_relaxed);
  absl::StatusOr<internal::BlockContents> contents = internal::ReadBlock(
      *file, h, internal::BlockKind::kData, context, verify || options.verify_checksums);
  if (!contents.ok()) return contents.status();
  absl::StatusOr<Block> block =
      Block::Parse(std::move(*contents), "data block", /*may_have_hash_index=*/HasHashIndexes());
  if (!block.ok()) return block.status();
  return std::make_unique<Block>(std::move(*block));
}

absl::StatusOr<Block> Table::Rep::ReadIndexedBlock(size_t i, bool count,
                                                   internal::BlockReads* reads) const {
  if (count) counters.data_block_reads.fetch_add(1, std::memory_order_relaxed);
  if (verified[i].load(std::memory_order_relaxed)) {
    // Mapped, uncompressed, verified and parsed before: these bytes again.
    const std::string_view bytes = MappedBlock(i);
    if (bytes.size() >= internal::kBlockTrailerSize) {
      std::optional<Block> block =
          Block::Reparse(bytes.substr(0, bytes.size() - internal::kBlockTrailerSize), "data block",
                         /*may_have_hash_index=*/HasHashIndexes());
      if (block.has_value()) return *std::move(block);
    }
  }
  if (!file_mapped) {
    if (std::shared_ptr<const Block> hit = CachedBlock(i, reads)) return Block::Share(std::move(hit));
    std::string scratch;
    std::string_view bytes;
    absl::Status s = internal::ReadBlockBytes(*file, index_slots[i].handle,
                                              internal::BlockKind::kData, &scratch, &bytes);
    if (!s.ok()) return s;
    absl::StatusOr<std::shared_ptr<const Block>> block =
        BlockFromFileBytes(i, bytes, reads, &scratch);
    if (!block.ok()) return block.status();
    return Block::Share(*std::move(block));
  }
  const bool verify = options.verify_checksums && !verified[i].load(std::memory_order_relaxed);
  absl::StatusOr<internal::BlockContents> contents = internal::ReadBlock(
      *file, index_slots[i].handle, internal::BlockKind::kData, context, verify);
  if (!contents.ok()) return contents.status();
  const bool mapped = !contents->is_owned;
  absl::StatusOr<Block> block =
      Block::Parse(std::move(*contents), "data block", /*may_have_hash_index=*/HasHashIndexes());
  // Held only once the block has parsed too: a verified block is reparsed
  // without its checks.
  if (verify && mapped && block.ok()) verified[i].store(true, std::memory_order_relaxed);
  return block;
}

std::shared_ptr<const Block> Table::Rep::CachedBlock(size_t i, internal::BlockReads* reads) const {
  if (cache == nullptr) return nullptr;
  std::shared_ptr<const Block> hit = cache->Lookup(CacheKey(i));
  if (reads != nullptr) ++(hit != nullptr ? reads->cache_hits : reads->cache_misses);
  return hit;
}

absl::StatusOr<std::shared_ptr<const Block>> Table::Rep::BlockFromFileBytes(
    size_t i, std::string_view bytes, internal::BlockReads* reads, std::string* buffer) const {
  if (reads != nullptr) {
    ++reads->file_reads;
    reads->file_bytes += bytes.size();
  }
  absl::StatusOr<internal::BlockContents> contents =
      internal::DecodeReadBlock(bytes, buffer, index_slots[i].handle, internal::BlockKind::kData,
                                context, options.verify_checksums);
  if (!contents.ok()) return contents.status();
  absl::StatusOr<Block> block =
      Block::Parse(std::move(*contents), "data block", /*may_have_hash_index=*/HasHashIndexes());
  if (!block.ok()) return block.status();
  auto shared = std::make_shared<const Block>(*std::move(block));
  if (cache == nullptr) return shared;
  // Cached only verified (when verify_checksums) and parsed: a hit is
  // neither checked nor copied again.
  const size_t charge = internal::BlockCacheImpl::ChargeOf(*shared);
  return cache->Insert(CacheKey(i), std::move(shared), charge);
}

absl::Status Table::Rep::DecodeIndex() {
  // The block's keys are prefix-compressed (the iterator rebuilds each one
  // in its own buffer): copy them into one string, then point at it.
  std::vector<size_t> key_ends;
  Block::Iterator it(index.get(), internal::CompareInternalKeys);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view key = it.key();
    std::string_view handle_bytes = it.value();
    internal::IndexSlot slot;
    if (key.size() < 8 || !slot.handle.DecodeFrom(&handle_bytes)) {
      return absl::DataLossError(
          absl::StrCat("index block: bad entry for data block ", index_entries.size()));
    }
    // Checked once here, so no read of a data block (Get, MultiGet's
    // batches, the block cache's reads) sizes a buffer from a handle that
    // does not fit before the footer.
    absl::Status fits =
        internal::CheckBlockHandle(slot.handle, internal::BlockKind::kData, layout.footer_offset);
    if (!fits.ok()) {
      return absl::DataLossError(absl::StrCat("index block: entry for data block ",
                                              index_entries.size(), ": ", fits.message()));
    }
    index_keys.append(key.data(), key.size() - 8);
    key_ends.push_back(index_keys.size());
    index_entries.emplace_back();
    index_slots.push_back(slot);
  }
  if (!it.status().ok()) return it.status();
  for (size_t i = 0, begin = 0; i < index_entries.size(); begin = key_ends[i++]) {
    index_entries[i].separator_user_key =
        std::string_view(index_keys).substr(begin, key_ends[i] - begin);
  }
  if (!index_entries.empty()) {
    // Sorted: what the first and last share, all share.
    const std::string_view first = index_entries.front().separator_user_key;
    const std::string_view last = index_entries.back().separator_user_key;
    index_common_prefix.assign(first.data(), internal::CommonPrefixLength(first, last));
  }
  for (size_t i = 0; i < index_entries.size(); ++i) {
    index_slots[i].prefix = internal::OrderedPrefix8(index_entries[i].separator_user_key,
                                                     index_common_prefix.size());
  }
  index_group_last = internal::GroupLastValues(index_slots.size(),
                                               [&](size_t i) { return index_slots[i].prefix; });
  index_group_last_top = internal::GroupLastValues(index_group_last.size(),
                                                   [&](size_t g) { return index_group_last[g]; });
  verified.reset(new std::atomic<bool>[index_entries.size()]);
  for (size_t i = 0; i < index_entries.size(); ++i) verified[i].store(false);
  return absl::OkStatus();
}

internal::IndexSearch Table::Rep::StartIndexSearch(std::string_view user_key) const {
  internal::IndexSearch s;
  const std::string_view common = index_common_prefix;
  const int c = internal::CompareBytes(user_key.substr(0, common.size()), common);
  if (c != 0) {
    s.settled = true;
    s.first = c < 0 ? 0 : index_entries.size();  // Below or above every separator.
    return s;
  }
  s.key_prefix = internal::OrderedPrefix8(user_key, common.size());
  s.first =
      internal::kSearchGroup *
      internal::GroupedLowerBound(index_group_last_top.data(), index_group_last.size(),
                                  s.key_prefix, [&](size_t g) { return index_group_last[g]; });
  return s;
}

void Table::Rep::PrefetchIndexGroup(const internal::IndexSearch& search) const {
  if (search.settled || search.first >= index_slots.size()) return;
  const char* begin = reinterpret_cast<const char*>(index_slots.data() + search.first);
  const size_t end = std::min(search.first + internal::kSearchGroup, index_slots.size());
  const char* last = reinterpret_cast<const char*>(index_slots.data() + end) - 1;
  for (const char* p = begin; p <= last; p += 64) internal::PrefetchForRead(p);
  internal::PrefetchForRead(last);
}

size_t Table::Rep::FinishIndexSearch(const internal::IndexSearch& search,
                                     std::string_view user_key) const {
  if (search.settled) return search.first;
  const size_t n = index_slots.size();
  const uint64_t key_prefix = search.key_prefix;
  size_t i = internal::LowerBoundInGroup(search.first, n, key_prefix,
                                         [&](size_t j) { return index_slots[j].prefix; });
  while (i < n && index_slots[i].prefix == key_prefix &&
         index_entries[i].separator_user_key < user_key) {
    ++i;  // Equal prefixes: the full keys decide.
  }
  return i;
}

size_t Table::Rep::FindDataBlock(std::string_view user_key) const {
  return FinishIndexSearch(StartIndexSearch(user_key), user_key);
}

std::string_view Table::Rep::MappedBlock(size_t i) const {
  return i < index_slots.size() ? internal::MappedBlockBytes(*file, index_slots[i].handle)
                                : std::string_view();
}

void Table::Rep::PrefetchTail(std::string_view block) const {
  if (block.size() < 64) return;
  // The restart array (and hash index, about 2 bytes a key: a few lines)
  // end where the trailer starts; the trailer may span a line.
  const char* trailer = block.data() + block.size() - internal::kBlockTrailerSize;
  const int lines_before = HasHashIndexes() ? 4 : 1;
  for (int line = lines_before; line >= 1; --line) {
    if (static_cast<size_t>(64 * line - 16) <= block.size()) {
      internal::PrefetchForRead(trailer - (64 * line - 16));
    }
  }
  internal::PrefetchForRead(trailer);
  internal::PrefetchForRead(trailer + internal::kBlockTrailerSize - 1);
}

void Table::Rep::PrefetchBlockTail(size_t i) const { PrefetchTail(MappedBlock(i)); }

void Table::Rep::PrefetchBlock(size_t i) const {
  const std::string_view block = MappedBlock(i);
  PrefetchTail(block);
  if (block.size() > kMaxWholeBlockPrefetch) return;
  // (Into L2 only, to spare L1, measured slower: the entries then miss L1.)
  for (size_t at = 0; at < block.size(); at += 64) internal::PrefetchForRead(block.data() + at);
}

void Table::Rep::PrefetchSearch(size_t i, uint64_t user_key_hash) const {
  const std::string_view block = MappedBlock(i);
  if (block.empty()) return;
  Block::PrefetchSearch(block.substr(0, block.size() - internal::kBlockTrailerSize),
                        user_key_hash);
}

absl::Status Table::Rep::ExplainMisplaced(const BlockHandle& h, const absl::Status& error) const {
  if (error.code() != absl::StatusCode::kDataLoss ||
      error.message().find("checksum mismatch") == std::string_view::npos) {
    return error;
  }
  std::vector<uint64_t> offsets;
  Block::Iterator it(index.get(), internal::CompareInternalKeys);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view v = it.value();
    BlockHandle other;
    if (other.DecodeFrom(&v)) offsets.push_back(other.offset);
  }
  const std::optional<uint64_t> from =
      internal::WrittenForOffset(*file, h, internal::BlockKind::kData, context, offsets);
  if (!from.has_value()) return error;
  return absl::DataLossError(absl::StrCat("data block at offset ", h.offset, " (", h.size,
                                          " bytes): misplaced: intact, but written for offset ",
                                          *from, " of this table"));
}

void Table::Rep::LoadFilter(const std::string& policy_name, const BlockHandle& handle) {
  const std::vector<std::shared_ptr<const FilterPolicy>> candidates =
      options.filter_policies.empty() ? BuiltinFilterPolicies() : options.filter_policies;
  const FilterPolicy* policy = nullptr;
  for (const auto& p : candidates) {
    if (p != nullptr && p->Name() == policy_name) policy = p.get();
  }
  if (policy == nullptr) {
    filter_status = absl::UnimplementedError(
        absl::StrCat("filter policy '", policy_name, "' is not known to this reader"));
    return;
  }
  absl::Status fits =
      internal::CheckBlockHandle(handle, internal::BlockKind::kFilter, layout.footer_offset);
  if (!fits.ok()) {
    filter_status = fits;
    return;
  }
  std::string_view bytes;
  if (policy_name == kModularBloomPolicyName) {
    // Module 0 alone: a TableSet reads the others as its cap allows.
    absl::StatusOr<std::string_view> prefix = ReadModularPrefix(handle);
    if (!prefix.ok()) {
      filter_status = prefix.status();
      return;
    }
    bytes = *prefix;
  } else {
    // The filter's checksum is verified whatever verify_checksums says: a
    // filter that lies would lose keys.
    absl::StatusOr<internal::BlockContents> contents =
        internal::ReadBlock(*file, handle, internal::BlockKind::kFilter, context,
                            /*verify_checksum=*/true);
    if (!contents.ok()) {
      filter_status = contents.status();
      return;
    }
    bytes = contents->view();
    if (contents->is_owned || reinterpret_cast<uintptr_t>(bytes.data()) % 64 != 0) {
      filter_copy = std::make_unique<internal::AlignedBuffer>(bytes);
      bytes = filter_copy->view();
    }
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> reader = policy->NewReader(bytes);
  if (!reader.ok()) {
    filter_status = reader.status();
    filter_copy.reset();
    modular.reset();
    return;
  }
  filter = std::move(*reader);
  filter_contents = bytes;
  filter_status = absl::OkStatus();
  whole_key_filter = properties.filter_whole_key;
  if (whole_key_filter) probe = internal::ProbeOf(filter.get());
  const std::string& px = properties.filter_prefix_extractor;
  for (const auto& e : options.prefix_extractors) {
    if (!px.empty() && e != nullptr && e->Name() == px) prefix_extractor = e;
  }
}

namespace {

absl::StatusOr<internal::Footer> ReadFooter(const RandomAccessFile& file) {
  const uint64_t size = file.Size();
  if (size < internal::kFooterSize) {
    return absl::DataLossError(
        absl::StrCat("table: file of ", size, " bytes is too short to be a table"));
  }
  char buf[internal::kFooterSize];
  std::string_view bytes;
  absl::Status s = file.Read(size - internal::kFooterSize, internal::kFooterSize, buf, &bytes);
  if (!s.ok()) return s;
  absl::StatusOr<internal::Footer> footer =
      internal::Footer::Decode(bytes, size - internal::kFooterSize);
  if (footer.ok() || footer.status().message().find("bad magic") == std::string_view::npos) {
    return footer;
  }
  // The size does not fit a footer: say when the file is a table cut short
  // or appended to, rather than no table at all.
  const std::string why = internal::ExplainMissingMagic(file);
  if (why.empty()) return footer.status();
  return absl::DataLossError(absl::StrCat("table footer: ", why));
}

absl::StatusOr<Block> ReadMetaBlock(const RandomAccessFile& file, const BlockHandle& h,
                                    internal::BlockKind kind,
                                    const internal::TableContext& context) {
  absl::StatusOr<internal::BlockContents> c =
      internal::ReadBlock(file, h, kind, context, /*verify_checksum=*/true);
  if (!c.ok()) return c.status();
  return Block::Parse(std::move(*c), internal::BlockKindName(kind));
}

// Finds the properties and filter blocks in the meta-index; sets
// *filter_policy to the filter's policy name, or leaves it empty.
absl::Status FindMetaBlocks(const Block& meta, TableLayout* layout,
                            std::string* filter_policy) {
  const std::string_view filter_prefix = internal::kFilterBlockPrefix;
  bool have_props = false;
  Block::Iterator it(&meta, internal::CompareBytes);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view v = it.value();
    BlockHandle h;
    if (!h.DecodeFrom(&v)) return absl::DataLossError("meta-index block: bad handle");
    const std::string_view name = it.key();
    if (name == internal::kPropertiesBlockName) {
      layout->properties = internal::LocationOf(h);
      have_props = true;
    } else if (name.substr(0, filter_prefix.size()) == filter_prefix) {
      *filter_policy = std::string(name.substr(filter_prefix.size()));
      layout->filter = internal::LocationOf(h);
    }
  }
  if (!it.status().ok()) return it.status();
  if (!have_props) return absl::DataLossError("table: no properties block");
  if (filter_policy->empty()) layout->filter = BlockLocation();
  return absl::OkStatus();
}

absl::StatusOr<TableProperties> ReadProperties(const Block& block) {
  std::map<std::string, std::string> recorded;
  Block::Iterator it(&block, internal::CompareBytes);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    recorded.emplace(std::string(it.key()), std::string(it.value()));
  }
  if (!it.status().ok()) return it.status();
  return DecodeTableProperties(recorded);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Table>> Table::Open(std::unique_ptr<RandomAccessFile> file,
                                                   const TableReadOptions& options) {
  absl::StatusOr<internal::Footer> footer = ReadFooter(*file);
  if (!footer.ok()) return footer.status();
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  rep->context = footer->context;
  rep->layout.index = internal::LocationOf(footer->index);
  rep->layout.metaindex = internal::LocationOf(footer->metaindex);
  rep->layout.footer_offset = file->Size() - internal::kFooterSize;
  rep->file = std::move(file);
  const RandomAccessFile& f = *rep->file;

  absl::StatusOr<Block> index =
      ReadMetaBlock(f, footer->index, internal::BlockKind::kIndex, rep->context);
  if (!index.ok()) return index.status();
  rep->index = std::make_unique<Block>(std::move(*index));
  absl::Status decoded = rep->DecodeIndex();
  if (!decoded.ok()) return decoded;

  absl::StatusOr<Block> meta =
      ReadMetaBlock(f, footer->metaindex, internal::BlockKind::kMetaIndex, rep->context);
  if (!meta.ok()) return meta.status();
  std::string filter_policy;
  absl::Status s = FindMetaBlocks(*meta, &rep->layout, &filter_policy);
  if (!s.ok()) return s;

  absl::StatusOr<Block> props =
      ReadMetaBlock(f, internal::HandleOf(rep->layout.properties), internal::BlockKind::kProperties, rep->context);
  if (!props.ok()) return props.status();
  absl::StatusOr<TableProperties> properties = ReadProperties(*props);
  if (!properties.ok()) return properties.status();
  rep->properties = *std::move(properties);

  if (!filter_policy.empty()) rep->LoadFilter(filter_policy, internal::HandleOf(rep->layout.filter));

  const std::string_view mapped = rep->file->MappedContents();
  rep->file_mapped = !mapped.empty() && mapped.size() == rep->file->Size();
  if (options.block_cache != nullptr && !rep->file_mapped) {
    rep->cache_owner = options.block_cache;
    rep->cache = &internal::BlockCacheImpl::Of(*options.block_cache);
    rep->cache_table_id = rep->cache->NewTableId();
  }
  if (options.block_cache != nullptr && options.charge_table_memory_to_cache) {
    const uint64_t held = (rep->filter != nullptr ? rep->filter_contents.size() : 0) +
                          rep->index->size() + rep->index_keys.size() +
                          rep->index_slots.size() * sizeof(internal::IndexSlot) +
                          rep->index_entries.size() * sizeof(internal::IndexSeparator);
    absl::StatusOr<std::unique_ptr<internal::CacheReservation>> charged =
        internal::CacheReservation::Charge(options.block_cache, held);
    if (!charged.ok()) return charged.status();
    rep->cache_reservation = *std::move(charged);
  }
  return std::unique_ptr<Table>(new Table(std::move(rep)));
}

Table::Table(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Table::~Table() = default;

bool Table::KeyMayMatch(std::string_view user_key) const {
  return !rep_->whole_key_filter || rep_->filter->KeyMayMatch(user_key);
}

bool Table::PrefixMayMatch(std::string_view prefix) const {
  // The filter holds Transform(key) for each key in the domain: only a
  // prefix of exactly that shape can be ruled out. Anything else (a shorter
  // or longer prefix) is "maybe".
  const PrefixExtractor* px = rep_->prefix_extractor.get();
  if (px == nullptr || !px->InDomain(prefix) || px->Transform(prefix) != prefix) {
    return true;
  }
  return rep_->filter->KeyMayMatch(prefix);
}

const FilterReader* Table::whole_key_filter() const {
  return rep_->whole_key_filter ? rep_->filter.get() : nullptr;
}

const absl::Status& Table::filter_status() const { return rep_->filter_status; }

absl::StatusOr<LookupResult> Table::Get(std::string_view user_key) const {
  LookupResult result;
  absl::Status s = Get(user_key, &result);
  if (!s.ok()) return s;
  return result;
}

absl::Status Table::Get(std::string_view user_key, LookupResult* result) const {
  // One hash for the filter and the search (a data block's hash index).
  const uint64_t hash = KeyHash(user_key);
  if (!rep_->whole_key_filter) {
    return rep_->Search(user_key, hash, false, true, nullptr, result);
  }
  if (rep_->counters.CountFilterAnswer(rep_->probe.MayMatch(user_key, hash))) {
    return rep_->Search(user_key, hash, true, true, nullptr, result);
  }
  result->Reset();
  return absl::OkStatus();
}

absl::Status Table::Rep::Search(std::string_view user_key, uint64_t user_key_hash,
                                bool filter_said_maybe, bool count, internal::BlockReads* reads,
                                LookupResult* result) const {
  const size_t entry = FindDataBlock(user_key);
  PrefetchBlock(entry);
  return SearchBlock(entry, user_key, user_key_hash, filter_said_maybe, count, reads, result);
}

absl::Status Table::Rep::SearchBlock(size_t entry, std::string_view user_key,
                                     uint64_t user_key_hash, bool filter_said_maybe, bool count,
                                     internal::BlockReads* reads, LookupResult* result) const {
  result->Reset();
  if (count && filter_said_maybe) {
    counters.filter_positive.fetch_add(1, std::memory_order_relaxed);
  }
  if (entry >= index_entries.size()) return absl::OkStatus();  // Past the last key.
  if (reads != nullptr) ++reads->blocks;
  absl::StatusOr<Block> block = ReadIndexedBlock(entry, count, reads);
  if (!block.ok()) return block.status();
  return SearchInBlock(*block, user_key, user_key_hash, filter_said_maybe, count, result);
}

absl::Status Table::Rep::SearchInBlock(const Block& block, std::string_view user_key,
                                       uint64_t user_key_hash, bool filter_said_maybe, bool count,
                                       LookupResult* result) const {
  // The restart interval the hash index names, or kUseSearch to binary-search
  // the restarts (as in blocks without an index).
  const int restart =
      block.num_hash_buckets() == 0 ? Block::kUseSearch : block.HashLookup(user_key_hash);
  if (restart == Block::kNotInBlock) return absl::OkStatus();  // Most false positives.
  if (restart == Block::kBadBucket) {
    return absl::DataLossError("data block: hash index names a restart the block lacks");
  }
  Block::Iterator it(&block, internal::CompareInternalKeys);
  if (restart == Block::kUseSearch) {
    char buf[internal::kSeekKeyBuffer];
    std::string spill;
    it.SeekUserKey(internal::SeekKey(user_key, buf, &spill), user_key);
  } else {
    it.SeekUserKeyInInterval(static_cast<uint32_t>(restart), user_key);
  }
  if (!it.Valid()) return it.status();
  internal::ParsedInternalKey parsed;
  if (!internal::ParseInternalKey(it.key(), &parsed)) {
    return absl::DataLossError("data block: bad internal key");
  }
  if (parsed.user_key != user_key) return absl::OkStatus();
  if (count && filter_said_maybe) {
    counters.filter_true_positive.fetch_add(1, std::memory_order_relaxed);
  }
  result->sequence = parsed.sequence;
  if (parsed.type == EntryType::kDeletion) {
    result->kind = LookupResult::Kind::kDeleted;
  } else {
    result->kind = LookupResult::Kind::kFound;
    result->value.assign(it.value().data(), it.value().size());
  }
  return absl::OkStatus();
}

const TableProperties& Table::properties() const { return rep_->properties; }
std::string_view Table::smallest_user_key() const { return rep_->properties.smallest_user_key; }
std::string_view Table::largest_user_key() const { return rep_->properties.largest_user_key; }
uint64_t Table::num_entries() const { return rep_->properties.num_entries; }
uint64_t Table::unique_id() const { return rep_->context.unique_id; }
uint32_t Table::format_version() const { return rep_->context.format_version; }
uint64_t Table::file_size() const { return rep_->file->Size(); }
uint64_t Table::filter_memory() const {
  return rep_->filter != nullptr ? rep_->filter_contents.size() : 0;
}
uint64_t Table::index_memory() const { return rep_->index->size(); }
TableStats Table::stats() const { return rep_->counters.Snapshot(); }

}  // namespace lsmbloom
