#include "src/filter/ribbon/ribbon_format.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/filter/filter_header.h"
#include "src/filter/ribbon/ribbon_layout.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

static_assert(RibbonGeometry::kSegmentSlots == kRibbonSegmentSlots);

namespace {

// The Ribbon filter's own header fields (byte offsets; filter_header.h has
// the rest). Multi-byte integers are little-endian.
//   4 bytes "LRBF" magic, version, hash id, log2 coefficient bits (7:
//   128-bit rows), r in [1, 32], seed: filter_header.h.
constexpr size_t kSegmentsAt = 16;     // 8 bytes
constexpr size_t kKeysAt = 24;         // 8 bytes
constexpr size_t kUpperStartAt = 32;   // 8 bytes
constexpr size_t kSolutionSumAt = 40;  // 8 bytes, XXH3-64 of the solution
constexpr size_t kDependentAt = 48;    // 4 bytes, measured d in units of 2^-32
constexpr size_t kLayoutSeedAt = 52;   // 1 byte
constexpr size_t kReservedAt = 53;     // 3 bytes, zero

constexpr FilterHeaderLayout kLayout = {
    "Ribbon filter",     {'L', 'R', 'B', 'F'}, kRibbonFormatVersion, kRibbonLog2CoeffBits,
    "coefficient width", "bits",               kSolutionSumAt,       kReservedAt,
};
static_assert(kRibbonHeaderBytes == kFilterHeaderBytes);

absl::Status Corrupt(const std::string& what) { return FilterCorrupt(kLayout, what); }

}  // namespace

void EncodeRibbonHeader(const RibbonGeometry& g, uint8_t* header) {
  BeginFilterHeader(kLayout, g.hash, static_cast<uint8_t>(g.num_columns), header);
  EncodeFixed64(header + kSegmentsAt, g.num_segments);
  EncodeFixed64(header + kKeysAt, g.num_keys);
  EncodeFixed64(header + kUpperStartAt, g.upper_start);
  EncodeFixed32(header + kDependentAt, g.measured_dependent);
  header[kLayoutSeedAt] = g.layout_seed;
  SealFilterHeader(kLayout, g.solution_bytes(), header);
}

absl::StatusOr<RibbonGeometry> DecodeRibbon(std::string_view filter, bool verify_checksum) {
  absl::StatusOr<HashSpec> hash = CheckFilterHeader(kLayout, filter);
  if (!hash.ok()) return hash.status();
  const uint8_t* h = reinterpret_cast<const uint8_t*>(filter.data());
  RibbonGeometry g;
  g.hash = *hash;
  g.num_columns = h[kFilterParamAt];
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
  if (verify_checksum) {
    absl::Status s = CheckFilterBody(kLayout, filter, "the solution");
    if (!s.ok()) return s;
  }
  return g;
}

}  // namespace internal
}  // namespace lsmbloom
