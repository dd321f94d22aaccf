#include "src/filter/filter_header.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {
namespace {

constexpr size_t kMagicAt = 0;
constexpr size_t kVersionAt = 4;
constexpr size_t kHashIdAt = 5;
constexpr size_t kUnitAt = 6;

absl::Status Unsupported(const FilterHeaderLayout& layout, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(layout.kind_name, ": ", what));
}

}  // namespace

absl::Status FilterCorrupt(const FilterHeaderLayout& layout, const std::string& what) {
  return absl::DataLossError(absl::StrCat(layout.kind_name, ": ", what));
}

void BeginFilterHeader(const FilterHeaderLayout& layout, const HashSpec& hash, uint8_t param,
                       uint8_t* header) {
  std::memset(header, 0, kFilterHeaderBytes);
  std::memcpy(header + kMagicAt, layout.magic, sizeof(layout.magic));
  header[kVersionAt] = layout.version;
  header[kHashIdAt] = static_cast<uint8_t>(hash.id);
  header[kUnitAt] = layout.unit;
  header[kFilterParamAt] = param;
  EncodeFixed64(header + kFilterSeedAt, hash.seed);
}

void SealFilterHeader(const FilterHeaderLayout& layout, uint64_t body_bytes, uint8_t* header) {
  EncodeFixed64(header + layout.body_checksum_at,
                Checksum64(header + kFilterHeaderBytes, body_bytes));
  EncodeFixed64(header + kFilterHeaderChecksumAt, Checksum64(header, kFilterHeaderChecksumAt));
}

absl::StatusOr<HashSpec> CheckFilterHeader(const FilterHeaderLayout& layout,
                                           std::string_view filter) {
  if (filter.size() < kFilterHeaderBytes) {
    return FilterCorrupt(layout, absl::StrCat("truncated: ", filter.size(),
                                              " bytes, the header alone is ", kFilterHeaderBytes));
  }
  const uint8_t* h = reinterpret_cast<const uint8_t*>(filter.data());
  if (std::memcmp(h + kMagicAt, layout.magic, sizeof(layout.magic)) != 0) {
    return FilterCorrupt(layout, absl::StrCat("bad magic (not a ", layout.kind_name, ")"));
  }
  if (DecodeFixed64(h + kFilterHeaderChecksumAt) != Checksum64(h, kFilterHeaderChecksumAt)) {
    return FilterCorrupt(layout, "header checksum mismatch");
  }
  // From here the header is as written: what remains are values this build
  // does not support, or fields that contradict each other or the size.
  if (h[kVersionAt] != layout.version) {
    return Unsupported(layout, absl::StrCat("unsupported format version ", h[kVersionAt],
                                            " (this build reads ", layout.version, ")"));
  }
  if (h[kHashIdAt] != static_cast<uint8_t>(HashId::kXxh3_64)) {
    return Unsupported(layout, absl::StrCat("unknown hash id ", h[kHashIdAt]));
  }
  if (h[kUnitAt] != layout.unit) {
    return Unsupported(layout, absl::StrCat("unsupported ", layout.unit_name, " 2^", h[kUnitAt],
                                            " ", layout.unit_of));
  }
  for (size_t i = layout.reserved_from; i < kFilterHeaderChecksumAt; ++i) {
    if (h[i] != 0) return FilterCorrupt(layout, absl::StrCat("reserved byte ", i, " is set"));
  }
  HashSpec hash;
  hash.id = HashId::kXxh3_64;
  hash.seed = DecodeFixed64(h + kFilterSeedAt);
  return hash;
}

absl::Status CheckFilterBody(const FilterHeaderLayout& layout, std::string_view filter,
                             const char* body_name) {
  const uint8_t* h = reinterpret_cast<const uint8_t*>(filter.data());
  if (DecodeFixed64(h + layout.body_checksum_at) !=
      Checksum64(h + kFilterHeaderBytes, filter.size() - kFilterHeaderBytes)) {
    return FilterCorrupt(layout, absl::StrCat("checksum mismatch in ", body_name));
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace lsmbloom
