#include "lsmbloom/table/table_builder.h"

#include <ctime>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/table/block_builder.h"
#include "src/table/format.h"
#include "src/util/coding.h"

namespace lsmbloom {

using internal::BlockBuilder;
using internal::BlockHandle;

struct TableBuilder::Rep {
  Rep(const TableOptions& opts, std::unique_ptr<WritableFile> f)
      : options(opts),
        file(std::move(f)),
        data_block(opts.restart_interval),
        index_block(1) {
    context.unique_id = opts.unique_id != 0 ? opts.unique_id : internal::NewUniqueId();
    if (options.filter_policy != nullptr &&
        (options.whole_key_filtering || options.prefix_extractor != nullptr)) {
      filter = options.filter_policy->NewBuilder();
    }
  }

  TableOptions options;
  internal::TableContext context;  // Every block's checksum is bound to it.
  std::unique_ptr<WritableFile> file;
  uint64_t offset = 0;
  absl::Status status;
  bool done = false;

  BlockBuilder data_block;
  BlockBuilder index_block;
  std::string last_key;  // Internal key of the last entry added.
  std::string first_user_key;
  std::unique_ptr<FilterBuilder> filter;
  std::string last_filtered_key, last_filtered_prefix;
  bool has_filtered_prefix = false;

  uint64_t num_entries = 0, num_deletions = 0, num_data_blocks = 0;
  uint64_t raw_key_bytes = 0, raw_value_bytes = 0, filter_keys = 0;
  uint64_t data_bytes = 0;

  absl::Status Write(std::string_view raw, internal::BlockKind kind, BlockHandle* handle) {
    absl::StatusOr<BlockHandle> h =
        internal::WriteBlock(file.get(), offset, raw, kind, options.compression, context);
    if (!h.ok()) return h.status();
    *handle = *h;
    offset += h->size + internal::kBlockTrailerSize;
    return absl::OkStatus();
  }

  absl::Status FlushDataBlock() {
    if (data_block.empty()) return absl::OkStatus();
    BlockHandle handle;
    absl::Status s = Write(data_block.Finish(), internal::BlockKind::kData, &handle);
    if (!s.ok()) return s;
    data_bytes += handle.size + internal::kBlockTrailerSize;
    ++num_data_blocks;
    data_block.Reset();
    // Index key: the block's last key, so Seek(target) in the index finds
    // the first block that can hold target.
    std::string encoded;
    handle.EncodeTo(&encoded);
    index_block.Add(last_key, encoded);
    return absl::OkStatus();
  }
};

TableBuilder::TableBuilder(const TableOptions& options,
                           std::unique_ptr<WritableFile> file)
    : rep_(new Rep(options, std::move(file))) {
  if (options.block_size == 0 || options.restart_interval < 1) {
    rep_->status = absl::InvalidArgumentError(
        "block_size and restart_interval must be positive");
  }
}

TableBuilder::~TableBuilder() = default;

absl::Status TableBuilder::Add(std::string_view user_key, uint64_t seq,
                               EntryType type, std::string_view value) {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.done) return absl::FailedPreconditionError("table already finished");
  if (user_key.size() + value.size() > (size_t{1} << 30)) {
    return absl::InvalidArgumentError("an entry's key and value exceed 1 GiB");
  }
  if (seq > kMaxSequenceNumber) {
    return absl::InvalidArgumentError(absl::StrCat("sequence number ", seq,
                                                   " exceeds 2^56 - 1"));
  }
  std::string key;
  internal::AppendInternalKey(&key, user_key, seq, type);
  if (r.num_entries > 0 && internal::CompareInternalKeys(key, r.last_key) <= 0) {
    // Out of order is the caller's bug, not a reason to poison the table.
    return absl::InvalidArgumentError(
        "entries must come in order: user keys ascending, and for one key "
        "sequence numbers descending, each (key, sequence) once");
  }
  if (r.num_entries == 0) r.first_user_key.assign(user_key.data(), user_key.size());

  if (r.filter != nullptr) {
    // Tombstones too: a deleted key must not be ruled out here.
    if (r.options.whole_key_filtering &&
        (r.num_entries == 0 || user_key != r.last_filtered_key)) {
      r.filter->AddKey(user_key);
      ++r.filter_keys;
      r.last_filtered_key.assign(user_key.data(), user_key.size());
    }
    const PrefixExtractor* px = r.options.prefix_extractor.get();
    if (px != nullptr && px->InDomain(user_key)) {
      const std::string_view prefix = px->Transform(user_key);
      if (!r.has_filtered_prefix || prefix != r.last_filtered_prefix) {
        r.filter->AddKey(prefix);
        ++r.filter_keys;
        r.last_filtered_prefix.assign(prefix.data(), prefix.size());
        r.has_filtered_prefix = true;
      }
    }
  }

  r.data_block.Add(key, value);
  r.last_key.swap(key);
  ++r.num_entries;
  if (type == EntryType::kDeletion) ++r.num_deletions;
  r.raw_key_bytes += user_key.size();
  r.raw_value_bytes += value.size();
  if (r.data_block.SizeEstimate() >= r.options.block_size) {
    r.status = r.FlushDataBlock();
  }
  return r.status;
}

absl::Status TableBuilder::Finish() {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.done) return absl::FailedPreconditionError("table already finished");
  r.done = true;
  absl::Status& s = r.status;
  s = r.FlushDataBlock();

  std::map<std::string, std::string> meta;  // Meta-index, sorted by name.
  uint64_t filter_size = 0;
  std::string filter_params;  // The policy's own description of the filter.
  if (s.ok() && r.filter != nullptr) {
    // Start the filter on a 64-byte boundary so its blocks are cache-line
    // aligned wherever the file is mapped or read to an aligned buffer.
    const size_t pad = (64 - r.offset % 64) % 64;
    if (pad > 0) {
      s = r.file->Append(std::string(pad, '\0'));
      r.offset += pad;
    }
    absl::StatusOr<std::string> filter = r.filter->Finish();
    if (s.ok()) s = filter.status();
    BlockHandle handle;
    if (s.ok()) s = r.Write(*filter, internal::BlockKind::kFilter, &handle);
    if (s.ok()) {
      filter_size = handle.size;
      // The parameters as the policy reads them back (bits/key, k, ...), so
      // tools can show them without knowing the policy's encoding.
      auto reader = r.options.filter_policy->NewReader(*filter);
      filter_params = reader.ok() ? (*reader)->Describe() : "";
      handle.EncodeTo(&meta[internal::kFilterBlockPrefix + r.options.filter_policy->Name()]);
    }
  }

  if (s.ok()) {
    const char* compression_names[] = {"none", "snappy", "zstd"};
    std::map<std::string, std::string> props = {
        {"lsmbloom.format_version", absl::StrCat(internal::kTableFormatVersion)},
        {"lsmbloom.creator", "lsmbloom"},
        {"lsmbloom.unique_id", absl::StrFormat("%016x", r.context.unique_id)},
        {"lsmbloom.creation_time", absl::StrCat(static_cast<int64_t>(std::time(nullptr)))},
        {"lsmbloom.num_entries", absl::StrCat(r.num_entries)},
        {"lsmbloom.num_deletions", absl::StrCat(r.num_deletions)},
        {"lsmbloom.num_data_blocks", absl::StrCat(r.num_data_blocks)},
        {"lsmbloom.data_size", absl::StrCat(r.data_bytes)},
        {"lsmbloom.raw_key_size", absl::StrCat(r.raw_key_bytes)},
        {"lsmbloom.raw_value_size", absl::StrCat(r.raw_value_bytes)},
        {"lsmbloom.block_size", absl::StrCat(r.options.block_size)},
        {"lsmbloom.restart_interval", absl::StrCat(r.options.restart_interval)},
        {"lsmbloom.compression",
         compression_names[static_cast<int>(r.options.compression) % 3]},
        {"lsmbloom.filter.policy",
         r.filter != nullptr ? r.options.filter_policy->Name() : ""},
        {"lsmbloom.filter.size", absl::StrCat(filter_size)},
        {"lsmbloom.filter.params", filter_params},
        {"lsmbloom.filter.keys_added", absl::StrCat(r.filter_keys)},
        {"lsmbloom.filter.whole_key",
         r.filter != nullptr && r.options.whole_key_filtering ? "1" : "0"},
        {"lsmbloom.filter.prefix_extractor",
         r.filter != nullptr && r.options.prefix_extractor != nullptr
             ? r.options.prefix_extractor->Name()
             : ""},
        {"lsmbloom.smallest_user_key", r.first_user_key},
        {"lsmbloom.largest_user_key",
         r.num_entries > 0 ? r.last_key.substr(0, r.last_key.size() - 8) : ""},
    };
    BlockBuilder props_block(1);
    for (const auto& [k, v] : props) props_block.Add(k, v);
    BlockHandle handle;
    s = r.Write(props_block.Finish(), internal::BlockKind::kProperties, &handle);
    if (s.ok()) handle.EncodeTo(&meta[internal::kPropertiesBlockName]);
  }

  internal::Footer footer;
  footer.context = r.context;
  if (s.ok()) {
    BlockBuilder meta_block(1);
    for (const auto& [k, v] : meta) meta_block.Add(k, v);
    s = r.Write(meta_block.Finish(), internal::BlockKind::kMetaIndex, &footer.metaindex);
  }
  if (s.ok()) s = r.Write(r.index_block.Finish(), internal::BlockKind::kIndex, &footer.index);
  if (s.ok()) {
    const std::string encoded = footer.Encode(r.offset);
    s = r.file->Append(encoded);
    r.offset += encoded.size();
  }
  if (s.ok()) s = r.file->Sync();
  if (s.ok()) s = r.file->Close();  // Publishes the file.
  r.file.reset();  // On failure this discards the partial file.
  return s;
}

void TableBuilder::Abandon() {
  rep_->done = true;
  rep_->file.reset();
}

uint64_t TableBuilder::num_entries() const { return rep_->num_entries; }
uint64_t TableBuilder::file_size() const { return rep_->offset; }

}  // namespace lsmbloom
