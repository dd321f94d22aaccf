#include <algorithm>
#include <cassert>

#include "absl/status/status.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/filter/blocked/blocked_bloom_format.h"
#include "src/filter/ribbon/ribbon_format.h"
#include "src/filter/ribbon/ribbon_layout.h"
#include "src/filter/ribbon/ribbon_kernels.h"
#include "src/filter/simd_dispatch.h"

namespace lsmbloom {

absl::StatusOr<RibbonReader> RibbonReader::Open(std::string_view filter,
                                                const FilterReadOptions& options) {
  if (internal::HasBlockedBloomMagic(filter)) {
    return absl::InvalidArgumentError(
        "a blocked Bloom filter, not a Ribbon filter (a bounded RibbonBuilder's fallback, "
        "RibbonOptions::max_construction_bytes): open it with BlockedBloomReader");
  }
  absl::StatusOr<RibbonGeometry> geometry = internal::DecodeRibbon(filter, options.verify_checksum);
  if (!geometry.ok()) return geometry.status();
  RibbonReader reader;
  reader.geometry_ = *geometry;
  reader.format_version_ = internal::kRibbonFormatVersion;  // The only one Decode accepts.
  reader.view_.words =
      reinterpret_cast<const uint64_t*>(filter.data() + internal::kRibbonHeaderBytes);
  reader.view_.num_starts = geometry->num_starts();
  reader.view_.start_multiplier = internal::RibbonStartMultiplier(geometry->layout_seed);
  reader.view_.upper_start = geometry->upper_start;
  reader.view_.num_words = geometry->solution_words();
  reader.view_.num_columns = static_cast<uint32_t>(geometry->num_columns);
  reader.probe_one_ = internal::ChosenRibbonProbeOne();
  reader.probe_batch_ = internal::ChosenRibbonProbeBatch();
  // As for blocked filters: fetching ahead pays only out of cache.
  reader.prefetch_ = geometry->solution_bytes() > internal::BatchPrefetchAboveBytes();
  return reader;
}

void RibbonReader::MayMatchBatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const {
  assert(out.size() == hashes.size());
  if (view_.num_starts == 0) {
    std::fill(out.begin(), out.end(), false);
    return;
  }
  probe_batch_(view_, hashes.data(), hashes.size(), out.data(), prefetch_);
}

}  // namespace lsmbloom
