// The one place that knows how each table property is stored.

#include "lsmbloom/table/table_properties.h"

#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lsmbloom {

namespace {

using Props = TableProperties;

absl::Status Damaged(const std::string& name, const std::string& value, const std::string& why) {
  return absl::DataLossError(
      absl::StrCat("properties block: ", name, " = \"", absl::CEscape(value), "\": ", why));
}

// Decoding with one cursor over the recorded map: each known name is
// taken out, so what is left at the end is unknown.
class Decoder {
 public:
  explicit Decoder(const std::map<std::string, std::string>& recorded) : left_(recorded) {}

  void String(const char* name, std::string* out) {
    if (auto v = Take(name)) *out = std::move(*v);
  }

  // Decimal digits only (no sign, no spaces), at most `max`.
  template <typename T>
  void Number(const char* name, T* out, T max = std::numeric_limits<T>::max()) {
    std::optional<std::string> v = Take(name);
    if (!v.has_value() || !status_.ok()) return;
    uint64_t n = 0;
    if (v->empty() || v->find_first_not_of("0123456789") != std::string::npos ||
        !absl::SimpleAtoi(*v, &n)) {
      status_ = Damaged(name, *v, "not a decimal number of at most 64 bits");
    } else if (n > static_cast<uint64_t>(max)) {
      status_ = Damaged(name, *v, absl::StrCat("above ", max));
    } else {
      *out = static_cast<T>(n);
    }
  }

  void Hex64(const char* name, uint64_t* out) {
    std::optional<std::string> v = Take(name);
    if (!v.has_value() || !status_.ok()) return;
    if (v->size() != 16 || v->find_first_not_of("0123456789abcdef") != std::string::npos ||
        !absl::SimpleHexAtoi(*v, out)) {
      *out = 0;
      status_ = Damaged(name, *v, "not 16 lowercase hex digits");
    }
  }

  void Bool(const char* name, bool* out) {
    std::optional<std::string> v = Take(name);
    if (!v.has_value() || !status_.ok()) return;
    if (*v != "0" && *v != "1") status_ = Damaged(name, *v, "neither 0 nor 1");
    *out = *v == "1";
  }

  void Compress(const char* name, Compression* out) {
    std::optional<std::string> v = Take(name);
    if (!v.has_value() || !status_.ok()) return;
    for (Compression c : {Compression::kNone, Compression::kSnappy, Compression::kZstd}) {
      if (*v == CompressionName(c)) {
        *out = c;
        return;
      }
    }
    status_ = Damaged(name, *v, "not a compression this version knows");
  }

  void Check(bool ok, const char* name, uint64_t value, const std::string& why) {
    if (!ok && status_.ok()) status_ = Damaged(name, absl::StrCat(value), why);
  }

  const absl::Status& status() const { return status_; }
  std::map<std::string, std::string> TakeUnknown() { return std::move(left_); }

 private:
  std::optional<std::string> Take(const char* name) {
    auto it = left_.find(name);
    if (it == left_.end()) return std::nullopt;
    std::string value = std::move(it->second);
    left_.erase(it);
    return value;
  }

  std::map<std::string, std::string> left_;
  absl::Status status_;
};

}  // namespace

const char* CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kSnappy:
      return "snappy";
    case Compression::kZstd:
      return "zstd";
  }
  return "unknown";
}

std::map<std::string, std::string> EncodeTableProperties(const TableProperties& p) {
  std::map<std::string, std::string> out = {
      {Props::kFormatVersion, absl::StrCat(p.format_version)},
      {Props::kCreator, p.creator},
      {Props::kCreationTime, absl::StrCat(p.creation_time)},
      {Props::kNumEntries, absl::StrCat(p.num_entries)},
      {Props::kNumDeletions, absl::StrCat(p.num_deletions)},
      {Props::kNumDataBlocks, absl::StrCat(p.num_data_blocks)},
      {Props::kDataSize, absl::StrCat(p.data_size)},
      {Props::kRawKeySize, absl::StrCat(p.raw_key_size)},
      {Props::kRawValueSize, absl::StrCat(p.raw_value_size)},
      {Props::kBlockSize, absl::StrCat(p.block_size)},
      {Props::kRestartInterval, absl::StrCat(p.restart_interval)},
      {Props::kCompression, CompressionName(p.compression)},
      {Props::kFilterPolicy, p.filter_policy},
      {Props::kFilterSize, absl::StrCat(p.filter_size)},
      {Props::kFilterParams, p.filter_params},
      {Props::kFilterKeysAdded, absl::StrCat(p.filter_keys_added)},
      {Props::kFilterWholeKey, p.filter_whole_key ? "1" : "0"},
      {Props::kFilterPrefixExtractor, p.filter_prefix_extractor},
      {Props::kSmallestUserKey, p.smallest_user_key},
      {Props::kLargestUserKey, p.largest_user_key},
  };
  // Format version 1 had no id; an id of 0 is never drawn.
  if (p.unique_id != 0) out[Props::kUniqueId] = absl::StrFormat("%016x", p.unique_id);
  if (p.filter_head_checksum != 0) {
    out[Props::kFilterHeadChecksum] = absl::StrFormat("%016x", p.filter_head_checksum);
  }
  for (const auto& [name, value] : p.unknown) out.emplace(name, value);  // Never replaces.
  return out;
}

absl::StatusOr<TableProperties> DecodeTableProperties(
    const std::map<std::string, std::string>& recorded) {
  TableProperties p;
  Decoder d(recorded);
  d.Number(Props::kFormatVersion, &p.format_version);
  d.String(Props::kCreator, &p.creator);
  d.Hex64(Props::kUniqueId, &p.unique_id);
  d.Number(Props::kCreationTime, &p.creation_time);
  d.Number(Props::kNumEntries, &p.num_entries);
  d.Number(Props::kNumDeletions, &p.num_deletions);
  d.Number(Props::kNumDataBlocks, &p.num_data_blocks);
  d.Number(Props::kDataSize, &p.data_size);
  d.Number(Props::kRawKeySize, &p.raw_key_size);
  d.Number(Props::kRawValueSize, &p.raw_value_size);
  d.Number(Props::kBlockSize, &p.block_size);
  d.Number(Props::kRestartInterval, &p.restart_interval);
  d.Compress(Props::kCompression, &p.compression);
  d.String(Props::kFilterPolicy, &p.filter_policy);
  d.Number(Props::kFilterSize, &p.filter_size);
  d.String(Props::kFilterParams, &p.filter_params);
  d.Hex64(Props::kFilterHeadChecksum, &p.filter_head_checksum);
  d.Number(Props::kFilterKeysAdded, &p.filter_keys_added);
  d.Bool(Props::kFilterWholeKey, &p.filter_whole_key);
  d.String(Props::kFilterPrefixExtractor, &p.filter_prefix_extractor);
  d.String(Props::kSmallestUserKey, &p.smallest_user_key);
  d.String(Props::kLargestUserKey, &p.largest_user_key);
  d.Check(p.num_deletions <= p.num_entries, Props::kNumDeletions, p.num_deletions,
          absl::StrCat("more than the ", p.num_entries, " entries"));
  if (!d.status().ok()) return d.status();
  p.unknown = d.TakeUnknown();
  return p;
}

}  // namespace lsmbloom
