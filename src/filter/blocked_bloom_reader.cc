#include <cassert>

#include "lsmbloom/blocked_bloom.h"
#include "src/filter/filter_format.h"
#include "src/filter/simd_kernels.h"

namespace lsmbloom {
namespace {

// Prefetching costs more than it saves while the filter fits in cache.
constexpr uint64_t kPrefetchAboveBytes = uint64_t{1} << 20;

}  // namespace

absl::StatusOr<BlockedBloomReader> BlockedBloomReader::Open(
    std::string_view filter, const FilterReadOptions& options) {
  absl::StatusOr<FilterGeometry> geometry =
      internal::DecodeFilter(filter, options.verify_checksum);
  if (!geometry.ok()) return geometry.status();
  BlockedBloomReader reader;
  reader.geometry_ = *geometry;
  reader.bits_ =
      reinterpret_cast<const uint8_t*>(filter.data()) + internal::kHeaderBytes;
  reader.probe_one_ = internal::ChosenProbeOne();
  reader.prefetch_ = geometry->bit_bytes() > kPrefetchAboveBytes;
  return reader;
}

void BlockedBloomReader::MayMatchBatch(absl::Span<const uint64_t> hashes,
                                       absl::Span<bool> out) const {
  assert(out.size() == hashes.size());
  if (geometry_.num_blocks == 0) {
    for (bool& answer : out) answer = false;
    return;
  }
  internal::ProbeBatch(bits_, geometry_.num_blocks, geometry_.num_probes,
                       hashes.data(), hashes.size(), out.data(), prefetch_);
}

}  // namespace lsmbloom
