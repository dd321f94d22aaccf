// The Ribbon filter's probe as plain C++: the reference every SIMD target
// of ribbon_kernels.cc computes, and the scalar target's probe. Internal: an
// inline function of a public header would be compiled by each includer with
// its own target flags (popcnt for the parity under -mavx2, say) and one copy
// would serve every caller (tests/public_headers_odr_test.sh).

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_REFERENCE_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_REFERENCE_H_

#include <cstdint>

#include "lsmbloom/filter/ribbon.h"
#include "src/filter/ribbon/ribbon_layout.h"

namespace lsmbloom {
namespace internal {
// The probe of ribbon_layout.h: false if the parity of `hash`'s equation
// is one in any column, true (maybe) if it is zero in all of them.
inline bool RibbonMayMatch(const RibbonView& v, uint64_t hash) {
  if (v.num_starts == 0) return false;
  const uint64_t start = RibbonStart(hash * v.start_multiplier, v.num_starts);
  const uint64_t segment = start / kRibbonSegmentSlots;
  const unsigned shift = static_cast<unsigned>(start % kRibbonSegmentSlots);
  const RibbonCoeffs c = RibbonCoefficients(hash);
  // The 128 coefficients moved onto the three segments' bit positions.
  const uint64_t k0 = c.lo << shift;
  const uint64_t k1 = (c.hi << shift) | ((c.lo >> 1) >> (63 - shift));
  const uint64_t k2 = (c.hi >> 1) >> (63 - shift);
  const uint64_t cols = v.num_columns, upper = v.upper_start;
  const char* base = reinterpret_cast<const char*>(v.words);
  const char* w0 = base + 8 * RibbonSegmentOffset(segment, cols, upper);
  const char* w1 = base + 8 * RibbonSegmentOffset(segment + 1, cols, upper);
  // On a segment boundary the third segment is unused (k2 == 0) and may not
  // exist: read the second again.
  const char* w2 = base + 8 * RibbonSegmentOffset(segment + 1 + (shift != 0), cols, upper);
  const uint64_t n = cols + (segment >= upper);
  uint64_t odd = 0;
  for (uint64_t j = 0; j < n; ++j) {
    uint64_t a, b, d;
    __builtin_memcpy(&a, w0 + 8 * j, 8);
    __builtin_memcpy(&b, w1 + 8 * j, 8);
    __builtin_memcpy(&d, w2 + 8 * j, 8);
    odd |= static_cast<uint64_t>(__builtin_parityll((k0 & a) ^ (k1 & b) ^ (k2 & d)));
  }
  return odd == 0;
}
}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_REFERENCE_H_
