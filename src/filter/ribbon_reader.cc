#include <algorithm>
#include <cassert>

#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_layout.h"
#include "src/filter/ribbon_format.h"
#include "src/util/prefetch.h"

namespace lsmbloom {

absl::StatusOr<RibbonReader> RibbonReader::Open(std::string_view filter, bool verify_checksum) {
  absl::StatusOr<RibbonGeometry> geometry = internal::DecodeRibbon(filter, verify_checksum);
  if (!geometry.ok()) return geometry.status();
  RibbonReader reader;
  reader.geometry_ = *geometry;
  reader.view_.words =
      reinterpret_cast<const uint64_t*>(filter.data() + internal::kRibbonHeaderBytes);
  reader.view_.num_starts = geometry->num_starts();
  reader.view_.upper_start = geometry->upper_start;
  reader.view_.num_columns = static_cast<uint32_t>(geometry->num_columns);
  return reader;
}

void RibbonReader::MayMatchBatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const {
  assert(out.size() == hashes.size());
  const RibbonView v = view_;
  if (v.num_starts == 0) {
    std::fill(out.begin(), out.end(), false);
    return;
  }
  // A key's three segments are contiguous: fetch from the first word of its
  // segment to the last word of the third, every 64 bytes.
  constexpr size_t kGroup = 32;
  const char* base = reinterpret_cast<const char*>(v.words);
  const uint64_t num_segments = (v.num_starts + 127) / internal::kRibbonSegmentSlots;
  for (size_t first = 0; first < hashes.size(); first += kGroup) {
    const size_t n = std::min(kGroup, hashes.size() - first);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t segment =
          internal::RibbonStart(hashes[first + i], v.num_starts) / internal::kRibbonSegmentSlots;
      const char* begin =
          base + 8 * internal::RibbonSegmentOffset(segment, v.num_columns, v.upper_start);
      const uint64_t past = std::min<uint64_t>(segment + 3, num_segments);
      const char* end =
          base + 8 * internal::RibbonSegmentOffset(past, v.num_columns, v.upper_start) - 1;
      for (const char* p = begin; p < end; p += 64) internal::PrefetchForRead(p);
      internal::PrefetchForRead(end);
    }
    for (size_t i = 0; i < n; ++i) {
      out[first + i] = internal::RibbonMayMatch(v, hashes[first + i]);
    }
  }
}

}  // namespace lsmbloom
