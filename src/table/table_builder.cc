#include "lsmbloom/table/table_builder.h"

#include <ctime>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/table/table_properties.h"
#include "src/table/block_builder.h"
#include "src/table/filter_key_selector.h"
#include "src/table/format.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

namespace lsmbloom {

using internal::BlockBuilder;
using internal::BlockHandle;

struct TableBuilder::Rep {
  Rep(const TableOptions& opts, std::unique_ptr<WritableFile> f)
      : options(opts),
        file(std::move(f)),
        data_block(opts.restart_interval, opts.data_block_hash_index),
        index_block(1),
        filter_keys(opts.whole_key_filtering, opts.prefix_extractor.get()) {
    context.unique_id = opts.unique_id != 0 ? opts.unique_id : internal::NewUniqueId();
    context.format_version = opts.data_block_hash_index ? internal::kTableFormatVersion
                                                        : internal::kPlainTableFormatVersion;
    if (options.filter_policy != nullptr &&
        (options.whole_key_filtering || options.prefix_extractor != nullptr)) {
      filter = options.filter_policy->NewBuilder();
      if (filter == nullptr) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "filter policy '", options.filter_policy->Name(), "' gave no filter builder"));
      }
    }
  }

  TableOptions options;
  internal::TableContext context;  // Every block's checksum is bound to it.
  std::unique_ptr<WritableFile> file;
  uint64_t offset = 0;
  absl::Status status;  // The first error; once set, every call returns it.
  bool done = false;

  BlockBuilder data_block;
  BlockBuilder index_block;
  std::string key;       // Internal key of the entry being added.
  std::string last_key;  // Internal key of the last entry added.
  std::unique_ptr<FilterBuilder> filter;
  internal::FilterKeySelector filter_keys;
  TableProperties props;  // Counts kept as entries arrive; the rest at Finish.
  // Meta-index entries (block name -> encoded handle), sorted by name.
  std::map<std::string, std::string> meta;

  // Builds the entry's internal key into `key` and checks it may come next.
  absl::Status CheckEntry(std::string_view user_key, uint64_t seq, EntryType type,
                          std::string_view value) {
    if (user_key.size() + value.size() > (size_t{1} << 30)) {
      return absl::InvalidArgumentError("an entry's key and value exceed 1 GiB");
    }
    if (seq > kMaxSequenceNumber) {
      return absl::InvalidArgumentError(absl::StrCat("sequence number ", seq, " exceeds 2^56 - 1"));
    }
    key.clear();
    internal::AppendInternalKey(&key, user_key, seq, type);
    if (props.num_entries > 0 && internal::CompareInternalKeys(key, last_key) <= 0) {
      return absl::InvalidArgumentError(
          "entries must come in order: user keys ascending, and for one key "
          "sequence numbers descending, each (key, sequence) once");
    }
    return absl::OkStatus();
  }

  absl::Status Write(std::string_view raw, internal::BlockKind kind, BlockHandle* handle) {
    absl::StatusOr<BlockHandle> h =
        internal::WriteBlock(file.get(), offset, raw, kind, options.compression, context);
    if (!h.ok()) return h.status();
    *handle = *h;
    offset += h->size + internal::kBlockTrailerSize;
    return absl::OkStatus();
  }

  // With block_align: whether the block being built, with an entry of
  // `key` and `value` more (its varints, a restart and hash-index bytes at
  // most), would outgrow one page with its trailer.
  bool EntryWouldOutgrowPage(std::string_view key, std::string_view value) const {
    constexpr size_t kEntryOverhead = 3 * 5 + 4 + 3;
    return !data_block.empty() && data_block.SizeEstimate() + key.size() + value.size() +
                                          kEntryOverhead + internal::kBlockTrailerSize >
                                      kDirectReadAlignment;
  }

  // With block_align: zeros up to the next page where a block of `size`
  // bytes (trailer included) would straddle two, and fits one.
  absl::Status PadForBlock(size_t size) {
    const size_t in_page = offset % kDirectReadAlignment;
    if (size > kDirectReadAlignment || in_page + size <= kDirectReadAlignment) {
      return absl::OkStatus();
    }
    const size_t pad = kDirectReadAlignment - in_page;
    absl::Status s = file->Append(std::string(pad, '\0'));
    if (s.ok()) offset += pad;
    return s;
  }

  absl::Status FlushDataBlock() {
    if (data_block.empty()) return absl::OkStatus();
    const std::string_view raw = data_block.Finish();
    if (options.block_align) {
      absl::Status padded = PadForBlock(raw.size() + internal::kBlockTrailerSize);
      if (!padded.ok()) return padded;
    }
    BlockHandle handle;
    absl::Status s = Write(raw, internal::BlockKind::kData, &handle);
    if (!s.ok()) return s;
    props.data_size += handle.size + internal::kBlockTrailerSize;
    ++props.num_data_blocks;
    data_block.Reset();
    // Index key: the block's last key, so Seek(target) in the index finds
    // the first block that can hold target.
    std::string encoded;
    handle.EncodeTo(&encoded);
    index_block.Add(last_key, encoded);
    return absl::OkStatus();
  }

  // Everything after the last data block, in file order.
  absl::Status WriteTail() {
    absl::Status s = FlushDataBlock();
    if (s.ok()) s = WriteFilter();
    if (s.ok()) s = WriteProperties();
    internal::Footer footer;
    footer.context = context;
    if (s.ok()) s = WriteMetaIndex(&footer.metaindex);
    if (s.ok()) s = Write(index_block.Finish(), internal::BlockKind::kIndex, &footer.index);
    if (s.ok()) s = WriteFooter(footer);
    if (s.ok()) s = file->Sync();
    if (s.ok()) s = file->Close();  // Publishes the file.
    return s;
  }

  absl::Status WriteFilter();
  absl::Status WriteProperties();
  absl::Status WriteMetaIndex(BlockHandle* handle);
  absl::Status WriteFooter(const internal::Footer& footer);
};

absl::Status TableBuilder::Rep::WriteFilter() {
  if (filter == nullptr) return absl::OkStatus();
  // Start the filter on a 64-byte boundary so its blocks are cache-line
  // aligned wherever the file is mapped or read to an aligned buffer.
  const size_t pad = (64 - offset % 64) % 64;
  if (pad > 0) {
    absl::Status s = file->Append(std::string(pad, '\0'));
    if (!s.ok()) return s;
    offset += pad;
  }
  absl::StatusOr<std::string> bytes = filter->Finish();
  if (!bytes.ok()) return bytes.status();
  BlockHandle handle;
  absl::Status s = Write(*bytes, internal::BlockKind::kFilter, &handle);
  if (!s.ok()) return s;
  const FilterPolicy& policy = *options.filter_policy;
  props.filter_policy = policy.Name();
  props.filter_size = handle.size;
  if (policy.Name() == kModularBloomPolicyName) {
    // The header a reader keeps without reading the block whole.
    absl::StatusOr<ModularBloomHeader> header = ParseModularBloomHeader(*bytes);
    if (header.ok()) {
      props.filter_head_checksum = internal::Checksum64(bytes->data(), header->header_size);
    }
  }
  props.filter_whole_key = options.whole_key_filtering;
  if (options.prefix_extractor != nullptr) {
    props.filter_prefix_extractor = options.prefix_extractor->Name();
  }
  // The parameters as the policy reads them back (bits/key, k, ...), so
  // tools can show them without knowing the policy's encoding.
  absl::StatusOr<std::unique_ptr<FilterReader>> reader = policy.NewReader(*bytes);
  if (reader.ok()) props.filter_params = (*reader)->Describe();
  handle.EncodeTo(&meta[internal::kFilterBlockPrefix + props.filter_policy]);
  return absl::OkStatus();
}

absl::Status TableBuilder::Rep::WriteProperties() {
  props.format_version = context.format_version;
  props.creator = "lsmbloom";
  props.unique_id = context.unique_id;
  props.creation_time = options.creation_time != 0 ? options.creation_time
                                                   : static_cast<int64_t>(std::time(nullptr));
  props.block_size = options.block_size;
  props.restart_interval = options.restart_interval;
  props.compression = options.compression;
  if (props.num_entries > 0) props.largest_user_key = last_key.substr(0, last_key.size() - 8);
  BlockBuilder block(1);
  for (const auto& [name, value] : EncodeTableProperties(props)) block.Add(name, value);
  BlockHandle handle;
  absl::Status s = Write(block.Finish(), internal::BlockKind::kProperties, &handle);
  if (s.ok()) handle.EncodeTo(&meta[internal::kPropertiesBlockName]);
  return s;
}

absl::Status TableBuilder::Rep::WriteMetaIndex(BlockHandle* handle) {
  BlockBuilder block(1);
  for (const auto& [name, encoded] : meta) block.Add(name, encoded);
  return Write(block.Finish(), internal::BlockKind::kMetaIndex, handle);
}

absl::Status TableBuilder::Rep::WriteFooter(const internal::Footer& footer) {
  const std::string encoded = footer.Encode(offset);
  absl::Status s = file->Append(encoded);
  if (s.ok()) offset += encoded.size();
  return s;
}

TableBuilder::TableBuilder(const TableOptions& options, std::unique_ptr<WritableFile> file)
    : rep_(new Rep(options, std::move(file))) {
  if (options.block_align && options.compression != Compression::kNone) {
    rep_->status = absl::InvalidArgumentError(
        "block_align needs uncompressed blocks (compression kNone): a compressed block's size "
        "is known only once it is written");
  }
  if (options.block_size == 0 || options.restart_interval < 1) {
    rep_->status = absl::InvalidArgumentError("block_size and restart_interval must be positive");
  }
}

TableBuilder::~TableBuilder() = default;

absl::Status TableBuilder::Add(std::string_view user_key, uint64_t seq, EntryType type,
                               std::string_view value) {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.done) return absl::FailedPreconditionError("table already finished");
  // A rejected entry latches: the table it belonged in can no longer be
  // complete, so Finish() must not publish one without it.
  r.status = r.CheckEntry(user_key, seq, type, value);
  if (!r.status.ok()) return r.status;
  if (r.props.num_entries == 0) r.props.smallest_user_key.assign(user_key.data(), user_key.size());
  if (r.filter != nullptr) {
    const internal::FilterKeySelector::Added added = r.filter_keys.Next(user_key);
    if (added.has_key) r.filter->AddKey(user_key);
    if (added.has_prefix) r.filter->AddKey(added.prefix);
    r.props.filter_keys_added += added.has_key + added.has_prefix;
  }

  if (r.options.block_align && r.EntryWouldOutgrowPage(r.key, value)) {
    r.status = r.FlushDataBlock();
    if (!r.status.ok()) return r.status;
  }
  r.data_block.Add(r.key, value);
  r.last_key.swap(r.key);
  ++r.props.num_entries;
  if (type == EntryType::kDeletion) ++r.props.num_deletions;
  r.props.raw_key_size += user_key.size();
  r.props.raw_value_size += value.size();
  if (r.data_block.SizeEstimate() >= r.options.block_size) {
    r.status = r.FlushDataBlock();
  }
  return r.status;
}

absl::Status TableBuilder::Finish() {
  Rep& r = *rep_;
  if (r.status.ok() && r.done) return absl::FailedPreconditionError("table already finished");
  r.done = true;
  if (r.status.ok()) r.status = r.WriteTail();
  // On failure this discards the partial file: nothing is published.
  r.file.reset();
  return r.status;
}

void TableBuilder::Abandon() {
  rep_->done = true;
  rep_->file.reset();
}

uint64_t TableBuilder::num_entries() const { return rep_->props.num_entries; }
uint64_t TableBuilder::file_size() const { return rep_->offset; }

}  // namespace lsmbloom
