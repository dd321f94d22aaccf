#include "src/filter/ribbon_format.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/filter/ribbon_layout.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

static_assert(RibbonGeometry::kSegmentSlots == kRibbonSegmentSlots);

namespace {

// Header fields (byte offsets). Multi-byte integers are little-endian.
constexpr size_t kMagicAt = 0;            // 4 bytes "LRBF"
constexpr size_t kVersionAt = 4;          // 1 byte
constexpr size_t kHashIdAt = 5;           // 1 byte
constexpr size_t kLog2CoeffAt = 6;        // 1 byte, 7 = 128-bit rows
constexpr size_t kColumnsAt = 7;          // 1 byte, r in [1, 32]
constexpr size_t kSeedAt = 8;             // 8 bytes
constexpr size_t kSegmentsAt = 16;        // 8 bytes
constexpr size_t kKeysAt = 24;            // 8 bytes
constexpr size_t kUpperStartAt = 32;      // 8 bytes
constexpr size_t kSolutionSumAt = 40;     // 8 bytes, XXH3-64 of the solution
constexpr size_t kDependentAt = 48;       // 4 bytes, measured d in units of 2^-32
constexpr size_t kLayoutSeedAt = 52;      // 1 byte
constexpr size_t kReservedAt = 53;        // 3 bytes, zero
constexpr size_t kHeaderChecksumAt = 56;  // 8 bytes, XXH3-64 of bytes [0, 56)

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("Ribbon filter: ", what));
}

absl::Status Unsupported(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("Ribbon filter: ", what));
}

}  // namespace

void EncodeRibbonHeader(const RibbonGeometry& g, uint8_t* header) {
  std::memset(header, 0, kRibbonHeaderBytes);
  std::memcpy(header + kMagicAt, kRibbonMagic, sizeof(kRibbonMagic));
  header[kVersionAt] = kRibbonFormatVersion;
  header[kHashIdAt] = static_cast<uint8_t>(g.hash.id);
  header[kLog2CoeffAt] = kRibbonLog2CoeffBits;
  header[kColumnsAt] = static_cast<uint8_t>(g.num_columns);
  EncodeFixed64(header + kSeedAt, g.hash.seed);
  EncodeFixed64(header + kSegmentsAt, g.num_segments);
  EncodeFixed64(header + kKeysAt, g.num_keys);
  EncodeFixed64(header + kUpperStartAt, g.upper_start);
  EncodeFixed32(header + kDependentAt, g.measured_dependent);
  header[kLayoutSeedAt] = g.layout_seed;
  EncodeFixed64(header + kSolutionSumAt,
                Checksum64(header + kRibbonHeaderBytes, g.solution_bytes()));
  EncodeFixed64(header + kHeaderChecksumAt, Checksum64(header, kHeaderChecksumAt));
}

absl::StatusOr<RibbonGeometry> DecodeRibbon(std::string_view filter, bool verify_checksum) {
  if (filter.size() < kRibbonHeaderBytes) {
    return Corrupt(absl::StrCat("truncated: ", filter.size(), " bytes, the header alone is ",
                                kRibbonHeaderBytes));
  }
  const uint8_t* h = reinterpret_cast<const uint8_t*>(filter.data());
  if (std::memcmp(h + kMagicAt, kRibbonMagic, sizeof(kRibbonMagic)) != 0) {
    return Corrupt("bad magic (not a Ribbon filter)");
  }
  if (DecodeFixed64(h + kHeaderChecksumAt) != Checksum64(h, kHeaderChecksumAt)) {
    return Corrupt("header checksum mismatch");
  }
  // From here the header is as written: what remains are values this build
  // does not support, or fields that contradict each other or the size.
  if (h[kVersionAt] != kRibbonFormatVersion) {
    return Unsupported(absl::StrCat("unsupported format version ", h[kVersionAt],
                                    " (this build reads ", kRibbonFormatVersion, ")"));
  }
  if (h[kHashIdAt] != static_cast<uint8_t>(HashId::kXxh3_64)) {
    return Unsupported(absl::StrCat("unknown hash id ", h[kHashIdAt]));
  }
  if (h[kLog2CoeffAt] != kRibbonLog2CoeffBits) {
    return Unsupported(absl::StrCat("unsupported coefficient width 2^", h[kLog2CoeffAt], " bits"));
  }
  for (size_t i = kReservedAt; i < kHeaderChecksumAt; ++i) {
    if (h[i] != 0) return Corrupt(absl::StrCat("reserved byte ", i, " is set"));
  }
  RibbonGeometry g;
  g.hash.id = HashId::kXxh3_64;
  g.hash.seed = DecodeFixed64(h + kSeedAt);
  g.num_columns = h[kColumnsAt];
  g.num_segments = DecodeFixed64(h + kSegmentsAt);
  g.num_keys = DecodeFixed64(h + kKeysAt);
  g.upper_start = DecodeFixed64(h + kUpperStartAt);
  g.measured_dependent = DecodeFixed32(h + kDependentAt);
  g.layout_seed = h[kLayoutSeedAt];
  if (g.num_columns < 1 || g.num_columns > kRibbonMaxColumns) {
    return Corrupt(absl::StrCat("r = ", g.num_columns, " columns is outside [1, ",
                                kRibbonMaxColumns, "]"));
  }
  if (g.num_segments > kRibbonMaxSegments) {
    return Corrupt(absl::StrCat(g.num_segments, " segments exceed the 2^26 limit"));
  }
  if ((g.num_segments == 0) != (g.num_keys == 0)) {
    return Corrupt(
        absl::StrCat(g.num_keys, " keys in ", g.num_segments, " segments is inconsistent"));
  }
  if (g.num_segments == 1) {
    return Corrupt("1 segment is fewer than one 128-slot band");
  }
  if (g.num_keys > g.num_slots()) {
    return Corrupt(absl::StrCat(g.num_keys, " keys exceed the ", g.num_slots(), " slots"));
  }
  if (g.upper_start > g.num_segments) {
    return Corrupt(absl::StrCat("upper segments start at ", g.upper_start, " of ",
                                g.num_segments, " segments"));
  }
  if (g.upper_start < g.num_segments && g.num_columns == kRibbonMaxColumns) {
    return Corrupt(absl::StrCat("upper segments would have ", kRibbonMaxColumns + 1, " columns"));
  }
  const uint64_t body = filter.size() - kRibbonHeaderBytes;
  if (body != g.solution_bytes()) {
    return Corrupt(absl::StrCat("size mismatch: the geometry needs ", g.solution_bytes(),
                                " bytes of solution, found ", body));
  }
  if (verify_checksum &&
      DecodeFixed64(h + kSolutionSumAt) != Checksum64(h + kRibbonHeaderBytes, body)) {
    return Corrupt("checksum mismatch in the solution");
  }
  return g;
}

}  // namespace internal
}  // namespace lsmbloom
