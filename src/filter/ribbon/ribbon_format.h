// Serialization of the Ribbon filter: a 64-byte header, then the solution
// words. docs/FORMAT.md ("Ribbon filter") documents every byte; this is the
// only code that knows them.

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_FORMAT_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {

inline constexpr size_t kRibbonHeaderBytes = 64;
inline constexpr uint8_t kRibbonFormatVersion = 1;
inline constexpr uint8_t kRibbonLog2CoeffBits = 7;  // 128-bit coefficient rows.

// Writes the header for `geometry`; the solution (geometry.solution_bytes())
// must already follow it at header + kRibbonHeaderBytes: the header carries
// its checksum. The fields every kind shares are filter_header.h's.
void EncodeRibbonHeader(const RibbonGeometry& geometry, uint8_t* header);

// Parses and checks a whole serialized filter; see RibbonReader::Open.
absl::StatusOr<RibbonGeometry> DecodeRibbon(std::string_view filter, bool verify_checksum);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_FORMAT_H_
