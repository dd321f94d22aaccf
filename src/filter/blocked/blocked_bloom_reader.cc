#include <cassert>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "src/filter/blocked/blocked_bloom_format.h"
#include "src/filter/key_hash_short.h"
#include "src/filter/blocked/blocked_bloom_reference.h"
#include "src/filter/blocked/blocked_bloom_kernels.h"
#include "src/filter/simd_dispatch.h"

namespace lsmbloom {

absl::StatusOr<BlockedBloomReader> BlockedBloomReader::Open(std::string_view filter,
                                                            const FilterReadOptions& options) {
  absl::StatusOr<BlockedBloomGeometry> geometry = internal::DecodeFilter(filter, options.verify_checksum);
  if (!geometry.ok()) return geometry.status();
  BlockedBloomReader reader;
  reader.geometry_ = *geometry;
  reader.format_version_ = internal::kFormatVersion;  // The only one Decode accepts.
  reader.bits_ = reinterpret_cast<const uint8_t*>(filter.data()) + internal::kHeaderBytes;
  reader.probe_one_ = internal::ChosenProbeOne();
  reader.probe_batch_ = internal::ChosenProbeBatch();
  reader.prefetch_ = geometry->bit_bytes() > internal::BatchPrefetchAboveBytes();
  reader.probed_bits_ = internal::kEmptyBlock;
  if (geometry->num_blocks != 0) {
    reader.probed_bits_ = reader.bits_;
    reader.probed_blocks_ = geometry->num_blocks;
  }
  return reader;
}

bool BlockedBloomReader::MayMatch(std::string_view key) const {
  return MayMatchHash(internal::KeyHashFast(key, geometry_.hash.seed));
}

uint64_t BlockedBloomReader::BlockOfHash(uint64_t hash) const {
  return internal::BlockOfHash(hash, geometry_.num_blocks);
}

void BlockedBloomReader::MayMatchBatch(absl::Span<const uint64_t> hashes,
                                       absl::Span<bool> out) const {
  assert(out.size() == hashes.size());
  // An empty filter's batch probes its one empty block, as MayMatchHash does.
  probe_batch_(probed_bits_, probed_blocks_, geometry_.num_probes, hashes.data(), hashes.size(),
               out.data(), prefetch_);
}

}  // namespace lsmbloom
