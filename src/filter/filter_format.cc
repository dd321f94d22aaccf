#include "src/filter/filter_format.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lsmbloom {
namespace internal {
namespace {

// Header fields (byte offsets). Multi-byte integers are little-endian.
constexpr size_t kMagicAt = 0;            // 4 bytes "LBBF"
constexpr size_t kVersionAt = 4;          // 1 byte
constexpr size_t kHashIdAt = 5;           // 1 byte
constexpr size_t kLog2BlockAt = 6;        // 1 byte, 6 = 64-byte blocks
constexpr size_t kProbesAt = 7;           // 1 byte, k in [1, 16]
constexpr size_t kSeedAt = 8;             // 8 bytes
constexpr size_t kBlocksAt = 16;          // 8 bytes
constexpr size_t kKeysAt = 24;            // 8 bytes
constexpr size_t kBitsChecksumAt = 32;    // 8 bytes, XXH3-64 of the bits
constexpr size_t kReservedAt = 40;        // 16 bytes, zero
constexpr size_t kHeaderChecksumAt = 56;  // 8 bytes, XXH3-64 of bytes [0, 56)

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("blocked Bloom filter: ", what));
}

}  // namespace

void EncodeHeader(const BlockedBloomGeometry& geometry, const uint8_t* bits, uint8_t* header) {
  std::memset(header, 0, kHeaderBytes);
  std::memcpy(header + kMagicAt, kFilterMagic, sizeof(kFilterMagic));
  header[kVersionAt] = kFormatVersion;
  header[kHashIdAt] = static_cast<uint8_t>(geometry.hash.id);
  header[kLog2BlockAt] = kLog2BlockBytes;
  header[kProbesAt] = static_cast<uint8_t>(geometry.num_probes);
  EncodeFixed64(header + kSeedAt, geometry.hash.seed);
  EncodeFixed64(header + kBlocksAt, geometry.num_blocks);
  EncodeFixed64(header + kKeysAt, geometry.num_keys);
  EncodeFixed64(header + kBitsChecksumAt, Checksum64(bits, geometry.bit_bytes()));
  EncodeFixed64(header + kHeaderChecksumAt, XXH3_64bits(header, kHeaderChecksumAt));
}

absl::StatusOr<BlockedBloomGeometry> DecodeFilter(std::string_view filter, bool verify_bits_checksum) {
  if (filter.size() < kHeaderBytes) {
    return Corrupt(
        absl::StrCat("truncated: ", filter.size(), " bytes, the header alone is ", kHeaderBytes));
  }
  const uint8_t* h = reinterpret_cast<const uint8_t*>(filter.data());
  if (std::memcmp(h + kMagicAt, kFilterMagic, sizeof(kFilterMagic)) != 0) {
    return Corrupt("bad magic (not a blocked Bloom filter)");
  }
  if (DecodeFixed64(h + kHeaderChecksumAt) != XXH3_64bits(h, kHeaderChecksumAt)) {
    return Corrupt("header checksum mismatch");
  }
  // From here the header is as written; what remains are values this build
  // does not support, or a body that does not match the header.
  if (h[kVersionAt] != kFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("blocked Bloom filter: unsupported format version ", h[kVersionAt],
                     " (this build reads ", kFormatVersion, ")"));
  }
  if (h[kHashIdAt] != static_cast<uint8_t>(HashId::kXxh3_64)) {
    return absl::InvalidArgumentError(
        absl::StrCat("blocked Bloom filter: unknown hash id ", h[kHashIdAt]));
  }
  if (h[kLog2BlockAt] != kLog2BlockBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("blocked Bloom filter: unsupported block size 2^", h[kLog2BlockAt], " bytes"));
  }
  for (size_t i = kReservedAt; i < kHeaderChecksumAt; ++i) {
    if (h[i] != 0) return Corrupt(absl::StrCat("reserved byte ", i, " is set"));
  }
  BlockedBloomGeometry g;
  g.hash.id = HashId::kXxh3_64;
  g.hash.seed = DecodeFixed64(h + kSeedAt);
  g.num_probes = h[kProbesAt];
  g.num_blocks = DecodeFixed64(h + kBlocksAt);
  g.num_keys = DecodeFixed64(h + kKeysAt);
  if (g.num_probes < 1 || g.num_probes > 16) {
    return Corrupt(absl::StrCat("k = ", g.num_probes, " is outside [1, 16]"));
  }
  if (g.num_blocks > kMaxBlocks) {
    return Corrupt(absl::StrCat(g.num_blocks, " blocks exceed the 2^32 limit"));
  }
  if ((g.num_blocks == 0) != (g.num_keys == 0)) {
    return Corrupt(absl::StrCat(g.num_keys, " keys in ", g.num_blocks, " blocks is inconsistent"));
  }
  const uint64_t body = filter.size() - kHeaderBytes;
  if (body != g.bit_bytes()) {
    return Corrupt(absl::StrCat("size mismatch: ", g.num_blocks, " blocks need ", g.bit_bytes(),
                                " bytes of bits, found ", body));
  }
  if (verify_bits_checksum &&
      DecodeFixed64(h + kBitsChecksumAt) != Checksum64(h + kHeaderBytes, body)) {
    return Corrupt("checksum mismatch in the filter bits");
  }
  return g;
}

}  // namespace internal
}  // namespace lsmbloom
