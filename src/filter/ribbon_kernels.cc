// Highway kernels of the Ribbon probe; compiled once per SIMD target through
// foreach_target.h.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/filter/ribbon_kernels.cc"
#include "src/filter/ribbon_kernels.h"

#include <algorithm>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lsmbloom/filter/ribbon_layout.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// Up to 8 columns per vector (AVX-512: the 6-8 columns of a 1% filter in
// one register; AVX2 4, 128-bit targets 2).
using D = hn::CappedTag<uint64_t, 8>;

// Parity of each lane, in its bit 0 (the other bits are garbage).
HWY_INLINE hn::Vec<D> LaneParity(hn::Vec<D> x) {
  x = hn::Xor(x, hn::ShiftRight<32>(x));
  x = hn::Xor(x, hn::ShiftRight<16>(x));
  x = hn::Xor(x, hn::ShiftRight<8>(x));
  x = hn::Xor(x, hn::ShiftRight<4>(x));
  x = hn::Xor(x, hn::ShiftRight<2>(x));
  return hn::Xor(x, hn::ShiftRight<1>(x));
}
#endif

HWY_INLINE bool Probe(const RibbonView& v, uint64_t total_words, uint64_t hash) {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  (void)total_words;
  return RibbonMayMatch(v, hash);
#else
  const D d;
  constexpr size_t kLanes = hn::MaxLanes(D());
  const uint64_t start = RibbonStart(hash, v.num_starts);
  const uint64_t segment = start / kRibbonSegmentSlots;
  const unsigned shift = static_cast<unsigned>(start % kRibbonSegmentSlots);
  const uint64_t cols = v.num_columns, upper = v.upper_start;
  // Segment b holds cols + (b >= upper) words.
  const uint64_t n = cols + (segment >= upper);
  const uint64_t at0 = RibbonSegmentOffset(segment, cols, upper);
  const uint64_t at1 = at0 + n;
  // On a segment boundary the third segment is unused (k2 == 0): read the
  // second again.
  const uint64_t at2 = at1 + (shift != 0 ? cols + (segment + 1 >= upper) : 0);
  // Whole vectors would read past the solution: only keys in the last
  // segments, rare and predictable.
  if (HWY_UNLIKELY(at2 + ((n + kLanes - 1) & ~uint64_t{kLanes - 1}) > total_words)) {
    return RibbonMayMatch(v, hash);
  }
  const RibbonCoeffs c = RibbonCoefficients(hash);
  const auto k0 = hn::Set(d, c.lo << shift);
  const auto k1 = hn::Set(d, (c.hi << shift) | ((c.lo >> 1) >> (63 - shift)));
  const auto k2 = hn::Set(d, (c.hi >> 1) >> (63 - shift));
  const uint64_t* w = v.words;
  auto parities = [&](uint64_t j) HWY_ATTR {
    const auto x = hn::Xor(hn::Xor(hn::And(k0, hn::LoadU(d, w + at0 + j)),
                                   hn::And(k1, hn::LoadU(d, w + at1 + j))),
                           hn::And(k2, hn::LoadU(d, w + at2 + j)));
    return hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(n - j)), LaneParity(x));
  };
  // One vector holds every column on AVX-512 up to r = 7.
  auto odd = parities(0);
  for (uint64_t j = kLanes; j < n; j += kLanes) odd = hn::Or(odd, parities(j));
  return hn::AllTrue(d, hn::Eq(hn::And(odd, hn::Set(d, uint64_t{1})), hn::Zero(d)));
#endif
}

bool ProbeOne(const RibbonView& v, uint64_t total_words, uint64_t hash) {
  return Probe(v, total_words, hash);
}

void ProbeBatch(const RibbonView& v, uint64_t total_words, const uint64_t* hashes, size_t n,
                bool* out, bool prefetch) {
  constexpr size_t kGroup = 32;
  const char* base = reinterpret_cast<const char*>(v.words);
  const uint64_t num_segments = (v.num_starts + 127) / kRibbonSegmentSlots;
  for (size_t first = 0; first < n; first += kGroup) {
    const size_t count = std::min(kGroup, n - first);
    if (prefetch) {
      // A key's three segments are contiguous: fetch from its first word to
      // the last word of the third segment.
      for (size_t i = 0; i < count; ++i) {
        const uint64_t segment = RibbonStart(hashes[first + i], v.num_starts) / kRibbonSegmentSlots;
        const uint64_t past = std::min<uint64_t>(segment + 3, num_segments);
        const char* begin = base + 8 * RibbonSegmentOffset(segment, v.num_columns, v.upper_start);
        const char* last =
            base + 8 * RibbonSegmentOffset(past, v.num_columns, v.upper_start) - 1;
        for (const char* p = begin; p < last; p += 64) hwy::Prefetch(p);
        hwy::Prefetch(last);
      }
    }
    for (size_t i = 0; i < count; ++i) out[first + i] = Probe(v, total_words, hashes[first + i]);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace internal
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lsmbloom {
namespace internal {

HWY_EXPORT(ProbeOne);
HWY_EXPORT(ProbeBatch);

RibbonProbeOneFn ChosenRibbonProbeOne() {
  // Before the first dispatch the table holds Highway's initialising
  // trampoline; make sure the real choice has been made.
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return &HWY_DYNAMIC_DISPATCH(ProbeOne);
}

RibbonProbeBatchFn ChosenRibbonProbeBatch() {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return &HWY_DYNAMIC_DISPATCH(ProbeBatch);
}

}  // namespace internal
}  // namespace lsmbloom
#endif  // HWY_ONCE
