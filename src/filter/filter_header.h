// The 64-byte header the blocked Bloom and Ribbon formats share, encoded and
// checked in one place. docs/FORMAT.md documents each kind's bytes; the
// fields common to both sit at the same offsets:
//
//   [0, 4)   magic           [4] format version   [5] hash id
//   [6]      unit (log2 of the block or coefficient width)
//   [7]      the kind's one-byte parameter (k, r)
//   [8, 16)  hash seed
//   body checksum (XXH3-64 of the body), at the kind's offset
//   reserved zero bytes [reserved_from, 56)
//   [56, 64) XXH3-64 of bytes [0, 56)
//
// The rest of [16, reserved_from) is the kind's own (its geometry).

#ifndef LSMBLOOM_SRC_FILTER_FILTER_HEADER_H_
#define LSMBLOOM_SRC_FILTER_FILTER_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace internal {

inline constexpr size_t kFilterHeaderBytes = 64;

// What differs between the kinds' headers.
struct FilterHeaderLayout {
  const char* kind_name;  // In messages: "blocked Bloom filter".
  char magic[4];
  uint8_t version;
  uint8_t unit;            // Byte 6, the only value this build reads.
  const char* unit_name;   // In messages: "block size", "coefficient width".
  const char* unit_of;     // In messages: "bytes", "bits".
  size_t body_checksum_at;
  size_t reserved_from;
};

// Offsets every kind shares.
inline constexpr size_t kFilterParamAt = 7;
inline constexpr size_t kFilterSeedAt = 8;
inline constexpr size_t kFilterHeaderChecksumAt = 56;

// Starts a header: zeroes it, then writes magic, version, hash id, unit,
// `param` and the seed. `header` has kFilterHeaderBytes writable bytes.
void BeginFilterHeader(const FilterHeaderLayout& layout, const HashSpec& hash, uint8_t param,
                       uint8_t* header);

// Ends it, once the kind's own fields are written and the body of
// `body_bytes` bytes follows at header + kFilterHeaderBytes: the body's
// checksum, then the header's.
void SealFilterHeader(const FilterHeaderLayout& layout, uint64_t body_bytes, uint8_t* header);

// Checks what every kind checks, in this order: the size holds a header,
// magic, the header's checksum (DataLoss), version, hash id, unit
// (InvalidArgument: values this build does not read), reserved bytes
// (DataLoss). Returns the filter's HashSpec.
absl::StatusOr<HashSpec> CheckFilterHeader(const FilterHeaderLayout& layout,
                                           std::string_view filter);

// The body's checksum against the header's (DataLoss naming `body_name`).
// REQUIRES: CheckFilterHeader(layout, filter) is OK.
absl::Status CheckFilterBody(const FilterHeaderLayout& layout, std::string_view filter,
                             const char* body_name);

// DataLoss "<kind_name>: <what>".
absl::Status FilterCorrupt(const FilterHeaderLayout& layout, const std::string& what);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_FILTER_HEADER_H_
