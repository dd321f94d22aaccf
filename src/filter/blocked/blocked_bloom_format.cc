#include "src/filter/blocked/blocked_bloom_format.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "src/filter/filter_header.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {
namespace {

// The blocked filter's own header fields (byte offsets; filter_header.h
// has the rest). Multi-byte integers are little-endian.
//   4 bytes "LBBF" magic, version, hash id, log2 block bytes (6: 64-byte
//   blocks), k in [1, 16], seed: filter_header.h.
constexpr size_t kBlocksAt = 16;        // 8 bytes
constexpr size_t kKeysAt = 24;          // 8 bytes
constexpr size_t kBitsChecksumAt = 32;  // 8 bytes, XXH3-64 of the bits
constexpr size_t kReservedAt = 40;      // 16 bytes, zero

constexpr FilterHeaderLayout kLayout = {
    "blocked Bloom filter", {'L', 'B', 'B', 'F'}, kFormatVersion, kLog2BlockBytes,
    "block size",           "bytes",              kBitsChecksumAt, kReservedAt,
};
static_assert(kHeaderBytes == kFilterHeaderBytes);

}  // namespace

void EncodeHeader(const BlockedBloomGeometry& geometry, uint8_t* header) {
  BeginFilterHeader(kLayout, geometry.hash, static_cast<uint8_t>(geometry.num_probes), header);
  EncodeFixed64(header + kBlocksAt, geometry.num_blocks);
  EncodeFixed64(header + kKeysAt, geometry.num_keys);
  SealFilterHeader(kLayout, geometry.bit_bytes(), header);
}

bool HasBlockedBloomMagic(std::string_view filter) {
  return filter.size() >= sizeof(kLayout.magic) &&
         filter.compare(0, sizeof(kLayout.magic),
                        std::string_view(kLayout.magic, sizeof(kLayout.magic))) == 0;
}

absl::StatusOr<BlockedBloomGeometry> DecodeFilter(std::string_view filter,
                                                  bool verify_bits_checksum) {
  absl::StatusOr<HashSpec> hash = CheckFilterHeader(kLayout, filter);
  if (!hash.ok()) return hash.status();
  const uint8_t* h = reinterpret_cast<const uint8_t*>(filter.data());
  BlockedBloomGeometry g;
  g.hash = *hash;
  g.num_probes = h[kFilterParamAt];
  g.num_blocks = DecodeFixed64(h + kBlocksAt);
  g.num_keys = DecodeFixed64(h + kKeysAt);
  if (g.num_probes < 1 || g.num_probes > 16) {
    return FilterCorrupt(kLayout, absl::StrCat("k = ", g.num_probes, " is outside [1, 16]"));
  }
  if (g.num_blocks > kMaxBlocks) {
    return FilterCorrupt(kLayout, absl::StrCat(g.num_blocks, " blocks exceed the 2^32 limit"));
  }
  if ((g.num_blocks == 0) != (g.num_keys == 0)) {
    return FilterCorrupt(kLayout, absl::StrCat(g.num_keys, " keys in ", g.num_blocks,
                                               " blocks is inconsistent"));
  }
  const uint64_t body = filter.size() - kHeaderBytes;
  if (body != g.bit_bytes()) {
    return FilterCorrupt(kLayout, absl::StrCat("size mismatch: ", g.num_blocks, " blocks need ",
                                               g.bit_bytes(), " bytes of bits, found ", body));
  }
  if (verify_bits_checksum) {
    absl::Status s = CheckFilterBody(kLayout, filter, "the filter bits");
    if (!s.ok()) return s;
  }
  return g;
}

}  // namespace internal
}  // namespace lsmbloom
