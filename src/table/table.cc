#include "lsmbloom/table/table.h"

#include <cstdlib>
#include <functional>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/table/block.h"
#include "src/table/format.h"
#include "src/util/aligned_buffer.h"
#include "src/util/coding.h"

namespace lsmbloom {

using internal::Block;
using internal::BlockHandle;

namespace {

const std::vector<std::shared_ptr<const FilterPolicy>>& BuiltinPolicies() {
  static const auto* policies = new std::vector<std::shared_ptr<const FilterPolicy>>{
      NewBlockedBloomPolicy(), NewClassicBloomPolicy()};
  return *policies;
}

std::string SeekKey(std::string_view user_key) {
  std::string key;
  internal::AppendInternalKey(&key, user_key, kMaxSequenceNumber, EntryType::kValue);
  return key;
}

}  // namespace

struct Table::Rep {
  std::unique_ptr<RandomAccessFile> file;
  TableReadOptions options;
  internal::TableContext context;  // From the footer: what checksums bind to.
  std::unique_ptr<Block> index;
  TableLayout layout;
  std::map<std::string, std::string> properties;
  uint64_t num_entries = 0;
  std::string smallest_user_key, largest_user_key;  // Cached: lookups compare often.

  absl::Status filter_status = absl::NotFoundError("table has no filter");
  std::unique_ptr<internal::AlignedBuffer> filter_copy;  // When the bytes had to move.
  uint64_t filter_bytes = 0;
  std::string_view filter_contents;  // What `filter` reads; set with it.
  std::unique_ptr<FilterReader> filter;
  bool whole_key_filter = false;
  std::shared_ptr<const PrefixExtractor> prefix_extractor;  // Matched by name.

  mutable TableCounters counters;

  absl::StatusOr<std::unique_ptr<Block>> ReadDataBlock(const BlockHandle& h) const {
    counters.data_block_reads.fetch_add(1, std::memory_order_relaxed);
    return ReadDataBlockUncounted(h);
  }

  // `verify` overrides options.verify_checksums when true.
  absl::StatusOr<std::unique_ptr<Block>> ReadDataBlockUncounted(
      const BlockHandle& h, bool verify = false) const {
    absl::StatusOr<internal::BlockContents> contents =
        internal::ReadBlock(*file, h, internal::BlockKind::kData, context,
                            verify || options.verify_checksums);
    if (!contents.ok()) return contents.status();
    absl::StatusOr<Block> block = Block::Parse(std::move(*contents), "data block");
    if (!block.ok()) return block.status();
    return std::make_unique<Block>(std::move(*block));
  }

  void LoadFilter(const std::string& policy_name, const BlockHandle& handle);

  // `error` from reading the data block at `h`, or a clearer one when the
  // block is intact but was written for another data block's offset.
  absl::Status ExplainMisplaced(const BlockHandle& h, const absl::Status& error) const {
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
    const std::optional<uint64_t> from = internal::WrittenForOffset(
        *file, h, internal::BlockKind::kData, context, offsets);
    if (!from.has_value()) return error;
    return absl::DataLossError(absl::StrCat(
        "data block at offset ", h.offset, " (", h.size,
        " bytes): misplaced: intact, but written for offset ", *from, " of this table"));
  }
};

void Table::Rep::LoadFilter(const std::string& policy_name,
                            const BlockHandle& handle) {
  const auto& candidates =
      options.filter_policies.empty() ? BuiltinPolicies() : options.filter_policies;
  const FilterPolicy* policy = nullptr;
  for (const auto& p : candidates) {
    if (p != nullptr && p->Name() == policy_name) policy = p.get();
  }
  if (policy == nullptr) {
    filter_status = absl::UnimplementedError(absl::StrCat(
        "filter policy '", policy_name, "' is not known to this reader"));
    return;
  }
  // The filter's checksum is verified whatever verify_checksums says: a
  // filter that lies would lose keys.
  absl::StatusOr<internal::BlockContents> contents =
      internal::ReadBlock(*file, handle, internal::BlockKind::kFilter, context,
                          /*verify_checksum=*/true);
  if (!contents.ok()) {
    filter_status = contents.status();
    return;
  }
  std::string_view bytes = contents->view();
  if (contents->is_owned || reinterpret_cast<uintptr_t>(bytes.data()) % 64 != 0) {
    filter_copy = std::make_unique<internal::AlignedBuffer>(bytes);
    bytes = filter_copy->view();
  }
  filter_bytes = bytes.size();
  absl::StatusOr<std::unique_ptr<FilterReader>> reader = policy->NewReader(bytes);
  if (!reader.ok()) {
    filter_status = reader.status();
    filter_copy.reset();
    return;
  }
  filter = std::move(*reader);
  filter_contents = bytes;
  filter_status = absl::OkStatus();
  whole_key_filter = properties["lsmbloom.filter.whole_key"] == "1";
  const std::string& px = properties["lsmbloom.filter.prefix_extractor"];
  for (const auto& e : options.prefix_extractors) {
    if (!px.empty() && e != nullptr && e->Name() == px) prefix_extractor = e;
  }
}

absl::StatusOr<std::unique_ptr<Table>> Table::Open(
    std::unique_ptr<RandomAccessFile> file, const TableReadOptions& options) {
  auto rep = std::make_unique<Rep>();
  rep->options = options;
  const uint64_t size = file->Size();
  if (size < internal::kFooterSize) {
    return absl::DataLossError(absl::StrCat("table: file of ", size,
                                            " bytes is too short to be a table"));
  }
  char footer_buf[internal::kFooterSize];
  std::string_view footer_bytes;
  absl::Status s = file->Read(size - internal::kFooterSize, internal::kFooterSize,
                              footer_buf, &footer_bytes);
  if (!s.ok()) return s;
  absl::StatusOr<internal::Footer> footer =
      internal::Footer::Decode(footer_bytes, size - internal::kFooterSize);
  if (!footer.ok()) {
    if (footer.status().message().find("bad magic") == std::string_view::npos) {
      return footer.status();
    }
    // The size does not fit a footer: say when the file is a table cut
    // short or appended to, rather than no table at all.
    const std::string why = internal::ExplainMissingMagic(*file);
    if (why.empty()) return footer.status();
    return absl::DataLossError(absl::StrCat("table footer: ", why));
  }
  rep->file = std::move(file);
  rep->context = footer->context;

  auto read_meta_block = [&](const BlockHandle& h, internal::BlockKind kind)
      -> absl::StatusOr<Block> {
    absl::StatusOr<internal::BlockContents> c =
        internal::ReadBlock(*rep->file, h, kind, rep->context, /*verify_checksum=*/true);
    if (!c.ok()) return c.status();
    return Block::Parse(std::move(*c), internal::BlockKindName(kind));
  };

  absl::StatusOr<Block> index = read_meta_block(footer->index, internal::BlockKind::kIndex);
  if (!index.ok()) return index.status();
  rep->index = std::make_unique<Block>(std::move(*index));

  absl::StatusOr<Block> meta = read_meta_block(footer->metaindex, internal::BlockKind::kMetaIndex);
  if (!meta.ok()) return meta.status();
  BlockHandle props_handle, filter_handle;
  std::string filter_name;
  bool have_props = false;
  Block::Iterator it(&*meta, internal::CompareBytes);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view v = it.value();
    BlockHandle h;
    if (!h.DecodeFrom(&v)) return absl::DataLossError("meta-index block: bad handle");
    const std::string_view name = it.key();
    if (name == internal::kPropertiesBlockName) {
      props_handle = h;
      have_props = true;
    } else if (name.substr(0, std::strlen(internal::kFilterBlockPrefix)) ==
               internal::kFilterBlockPrefix) {
      filter_name = std::string(name.substr(std::strlen(internal::kFilterBlockPrefix)));
      filter_handle = h;
    }
  }
  if (!it.status().ok()) return it.status();
  if (!have_props) return absl::DataLossError("table: no properties block");
  auto location = [](const BlockHandle& h) { return BlockLocation{h.offset, h.size}; };
  rep->layout.index = location(footer->index);
  rep->layout.metaindex = location(footer->metaindex);
  rep->layout.properties = location(props_handle);
  if (!filter_name.empty()) rep->layout.filter = location(filter_handle);
  rep->layout.footer_offset = size - internal::kFooterSize;

  absl::StatusOr<Block> props = read_meta_block(props_handle, internal::BlockKind::kProperties);
  if (!props.ok()) return props.status();
  Block::Iterator pit(&*props, internal::CompareBytes);
  for (pit.SeekToFirst(); pit.Valid(); pit.Next()) {
    rep->properties[std::string(pit.key())] = std::string(pit.value());
  }
  if (!pit.status().ok()) return pit.status();
  rep->num_entries = std::strtoull(rep->properties["lsmbloom.num_entries"].c_str(),
                                   nullptr, 10);
  rep->smallest_user_key = rep->properties["lsmbloom.smallest_user_key"];
  rep->largest_user_key = rep->properties["lsmbloom.largest_user_key"];

  if (!filter_name.empty()) rep->LoadFilter(filter_name, filter_handle);
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

const HashSpec* Table::filter_hash_spec() const {
  return rep_->whole_key_filter ? rep_->filter->hash_spec() : nullptr;
}

const FilterReader* Table::whole_key_filter() const {
  return rep_->whole_key_filter ? rep_->filter.get() : nullptr;
}

const absl::Status& Table::filter_status() const { return rep_->filter_status; }

const TableLayout& Table::layout() const { return rep_->layout; }

absl::StatusOr<std::vector<BlockLocation>> Table::DataBlocks() const {
  std::vector<BlockLocation> blocks;
  Block::Iterator index(rep_->index.get(), internal::CompareInternalKeys);
  for (index.SeekToFirst(); index.Valid(); index.Next()) {
    std::string_view handle_bytes = index.value();
    BlockHandle h;
    if (!h.DecodeFrom(&handle_bytes)) {
      return absl::DataLossError(absl::StrCat("index block: bad handle of data block ",
                                              blocks.size()));
    }
    blocks.push_back({h.offset, h.size});
  }
  if (!index.status().ok()) return index.status();
  return blocks;
}

absl::Status Table::CheckDataBlock(const BlockLocation& block) const {
  BlockHandle h;
  h.offset = block.offset;
  h.size = block.size;
  absl::StatusOr<std::unique_ptr<Block>> read =
      rep_->ReadDataBlockUncounted(h, /*verify=*/true);
  if (!read.ok()) return rep_->ExplainMisplaced(h, read.status());
  // Walk every entry: a block whose checksum holds can still be malformed
  // only if it was written so, but a verifier should say so too.
  Block::Iterator it(read->get(), internal::CompareInternalKeys);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
  }
  return it.status();
}

std::string_view Table::filter_bytes() const { return rep_->filter_contents; }

namespace {

// Counts one filter answer; true when it was "maybe".
bool CountFilterAnswer(TableCounters& c, bool maybe) {
  c.filter_checked.fetch_add(1, std::memory_order_relaxed);
  if (!maybe) c.filter_ruled_out.fetch_add(1, std::memory_order_relaxed);
  return maybe;
}

}  // namespace

bool Table::HashMayMatch(uint64_t hash) const {
  return CountFilterAnswer(rep_->counters, rep_->filter->HashMayMatch(hash));
}

void Table::HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const {
  rep_->filter->HashesMayMatch(hashes, out);
  size_t maybes = 0;
  for (bool m : out) maybes += m;
  TableCounters& c = rep_->counters;
  c.filter_checked.fetch_add(hashes.size(), std::memory_order_relaxed);
  c.filter_ruled_out.fetch_add(hashes.size() - maybes, std::memory_order_relaxed);
}

absl::StatusOr<LookupResult> Table::Get(std::string_view user_key) const {
  if (!rep_->whole_key_filter) return GetAfterFilter(user_key, false);
  if (!CountFilterAnswer(rep_->counters, rep_->filter->KeyMayMatch(user_key))) {
    return LookupResult();
  }
  return GetAfterFilter(user_key, true);
}

absl::StatusOr<LookupResult> Table::GetWithHash(std::string_view user_key,
                                                uint64_t hash) const {
  if (!HashMayMatch(hash)) return LookupResult();
  return GetAfterFilter(user_key, true);
}

absl::StatusOr<LookupResult> Table::GetAfterFilter(std::string_view user_key,
                                                   bool filter_said_maybe,
                                                   uint64_t* blocks_read) const {
  TableCounters& c = rep_->counters;
  if (filter_said_maybe) c.filter_positive.fetch_add(1, std::memory_order_relaxed);
  const std::string target = SeekKey(user_key);
  Block::Iterator index(rep_->index.get(), internal::CompareInternalKeys);
  index.Seek(target);
  if (!index.Valid()) {
    if (!index.status().ok()) return index.status();
    return LookupResult();  // Past the last key.
  }
  std::string_view handle_bytes = index.value();
  BlockHandle handle;
  if (!handle.DecodeFrom(&handle_bytes)) {
    return absl::DataLossError("index block: bad block handle");
  }
  if (blocks_read != nullptr) ++*blocks_read;
  absl::StatusOr<std::unique_ptr<Block>> block = rep_->ReadDataBlock(handle);
  if (!block.ok()) return block.status();
  Block::Iterator it(block->get(), internal::CompareInternalKeys);
  it.Seek(target);
  if (!it.Valid()) {
    if (!it.status().ok()) return it.status();
    return LookupResult();
  }
  internal::ParsedInternalKey parsed;
  if (!internal::ParseInternalKey(it.key(), &parsed)) {
    return absl::DataLossError("data block: bad internal key");
  }
  LookupResult result;
  if (parsed.user_key != user_key) return result;
  if (filter_said_maybe) c.filter_true_positive.fetch_add(1, std::memory_order_relaxed);
  result.sequence = parsed.sequence;
  if (parsed.type == EntryType::kDeletion) {
    result.kind = LookupResult::Kind::kDeleted;
  } else {
    result.kind = LookupResult::Kind::kFound;
    result.value.assign(it.value().data(), it.value().size());
  }
  return result;
}

namespace {

class TwoLevelIterator : public TableIterator {
 public:
  TwoLevelIterator(const Block* index,
                   std::function<absl::StatusOr<std::unique_ptr<Block>>(const BlockHandle&)> read)
      : index_(index, internal::CompareInternalKeys), read_(std::move(read)) {}

  bool Valid() const override { return data_ != nullptr && data_->Valid(); }

  void SeekToFirst() override {
    index_.SeekToFirst();
    LoadBlock();
    if (data_ != nullptr) data_->SeekToFirst();
    SkipEmpty();
  }

  void Seek(std::string_view user_key) override {
    const std::string target = SeekKey(user_key);
    index_.Seek(target);
    LoadBlock();
    if (data_ != nullptr) data_->Seek(target);
    SkipEmpty();
  }

  void Next() override {
    if (!Valid()) return;
    data_->Next();
    SkipEmpty();
  }

  TableEntry entry() const override {
    internal::ParsedInternalKey parsed;
    internal::ParseInternalKey(data_->key(), &parsed);
    return TableEntry{parsed.user_key, parsed.sequence, parsed.type, data_->value()};
  }

  absl::Status status() const override { return status_; }

 private:
  void LoadBlock() {
    data_.reset();
    block_.reset();
    if (!status_.ok()) return;
    if (!index_.Valid()) {
      status_ = index_.status();
      return;
    }
    std::string_view v = index_.value();
    BlockHandle h;
    if (!h.DecodeFrom(&v)) {
      status_ = absl::DataLossError("index block: bad block handle");
      return;
    }
    absl::StatusOr<std::unique_ptr<Block>> block = read_(h);
    if (!block.ok()) {
      status_ = block.status();
      return;
    }
    block_ = std::move(*block);
    data_ = std::make_unique<Block::Iterator>(block_.get(), internal::CompareInternalKeys);
  }

  // Moves past exhausted blocks, and checks each entry's key parses.
  void SkipEmpty() {
    while (data_ != nullptr && !data_->Valid()) {
      if (!data_->status().ok()) {
        status_ = data_->status();
        data_.reset();
        return;
      }
      index_.Next();
      LoadBlock();
      if (data_ != nullptr) data_->SeekToFirst();
    }
    internal::ParsedInternalKey parsed;
    if (data_ != nullptr && !internal::ParseInternalKey(data_->key(), &parsed)) {
      status_ = absl::DataLossError("data block: bad internal key");
      data_.reset();
    }
  }

  Block::Iterator index_;
  std::function<absl::StatusOr<std::unique_ptr<Block>>(const BlockHandle&)> read_;
  std::unique_ptr<Block> block_;
  std::unique_ptr<Block::Iterator> data_;
  absl::Status status_;
};

}  // namespace

std::unique_ptr<TableIterator> Table::NewIterator() const {
  const Rep* rep = rep_.get();
  return std::make_unique<TwoLevelIterator>(
      rep->index.get(), [rep](const BlockHandle& h) { return rep->ReadDataBlock(h); });
}

const std::map<std::string, std::string>& Table::properties() const {
  return rep_->properties;
}

std::string_view Table::smallest_user_key() const { return rep_->smallest_user_key; }
std::string_view Table::largest_user_key() const { return rep_->largest_user_key; }

uint64_t Table::num_entries() const { return rep_->num_entries; }
uint64_t Table::unique_id() const { return rep_->context.unique_id; }
uint32_t Table::format_version() const { return rep_->context.format_version; }
uint64_t Table::file_size() const { return rep_->file->Size(); }
uint64_t Table::filter_memory() const {
  return rep_->filter != nullptr ? rep_->filter_bytes : 0;
}
uint64_t Table::index_memory() const { return rep_->index->size(); }
TableCounters& Table::counters() const { return rep_->counters; }

}  // namespace lsmbloom
