// Serialization of the blocked filter: a 64-byte header, then the bits.
// docs/FORMAT.md documents every byte; this is the only code that knows them.

#ifndef LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_FORMAT_H_
#define LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_FORMAT_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/blocked_bloom.h"

namespace lsmbloom {
namespace internal {

inline constexpr size_t kHeaderBytes = 64;
inline constexpr uint8_t kFormatVersion = 1;
inline constexpr uint8_t kLog2BlockBytes = 6;

// Writes the header for `geometry`; the bits must already follow it at
// header + kHeaderBytes (the header carries their checksum). `header` has
// kHeaderBytes writable bytes. The fields every kind shares are
// filter_header.h's.
void EncodeHeader(const BlockedBloomGeometry& geometry, uint8_t* header);

// Whether `filter` begins with the blocked filter's magic, "LBBF": how the
// Ribbon policy tells its Bloom fallback (ribbon_fallback.cc) from a Ribbon
// filter ("LRBF") before opening either.
bool HasBlockedBloomMagic(std::string_view filter);

// Parses and checks a whole serialized filter; see BlockedBloomReader::Open.
absl::StatusOr<BlockedBloomGeometry> DecodeFilter(std::string_view filter, bool verify_bits_checksum);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_BLOCKED_BLOCKED_BLOOM_FORMAT_H_
