// Highway kernels of the Ribbon probe; compiled once per SIMD target through
// foreach_target.h.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/filter/ribbon/ribbon_kernels.cc"
#include "src/filter/ribbon/ribbon_kernels.h"

#include <algorithm>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "src/filter/kernel_choice.h"
#include "src/filter/ribbon/ribbon_layout.h"
#include "src/filter/ribbon/ribbon_reference.h"
#include "src/filter/simd_dispatch.h"

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

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// What a probe reads, worked out from the hash: the word offsets of its
// three segments, its column count, and its coefficients shifted onto them.
struct Placed {
  uint64_t at0, at1, at2, n, k0, k1, k2;
};

// True unless a column's parity is one. REQUIRES: reading whole vectors of
// words from at2 + (n rounded up to whole vectors) stays in the solution.
HWY_INLINE bool ProbePlaced(const uint64_t* w, const Placed& p) {
  const D d;
  constexpr size_t kLanes = hn::MaxLanes(D());
  const auto k0 = hn::Set(d, p.k0);
  const auto k1 = hn::Set(d, p.k1);
  const auto k2 = hn::Set(d, p.k2);
  auto parities = [&](uint64_t j) HWY_ATTR {
    const auto x = hn::Xor(
        hn::Xor(hn::And(k0, hn::LoadU(d, w + p.at0 + j)), hn::And(k1, hn::LoadU(d, w + p.at1 + j))),
        hn::And(k2, hn::LoadU(d, w + p.at2 + j)));
    return hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(p.n - j)), LaneParity(x));
  };
  // One vector holds every column on AVX-512 up to r = 7.
  auto odd = parities(0);
  for (uint64_t j = kLanes; j < p.n; j += kLanes) odd = hn::Or(odd, parities(j));
  return hn::AllTrue(d, hn::Eq(hn::And(odd, hn::Set(d, uint64_t{1})), hn::Zero(d)));
}

// ProbePlaced of two keys at once, sharing most of the parity fold: after
// one halving step a's partial parities sit in the low 32 bits of each lane
// and b's in the high 32 bits, so the remaining five steps serve both.
// REQUIRES: as ProbePlaced, for both, and both read as many whole vectors
// (the loop runs to the longer key's columns: ProbeTwo).
HWY_INLINE void ProbePlacedPair(const uint64_t* wa, const Placed& a, const uint64_t* wb,
                                const Placed& b, bool* out_a, bool* out_b) {
  const D d;
  const hn::Repartition<uint32_t, D> d32;
  constexpr size_t kLanes = hn::MaxLanes(D());
  const auto a0 = hn::Set(d, a.k0), a1 = hn::Set(d, a.k1), a2 = hn::Set(d, a.k2);
  const auto b0 = hn::Set(d, b.k0), b1 = hn::Set(d, b.k1), b2 = hn::Set(d, b.k2);
  const uint64_t n = a.n > b.n ? a.n : b.n;
  auto odd = hn::Zero(d32);
  for (uint64_t j = 0; j < n; j += kLanes) {
    auto xa = hn::Xor(hn::Xor(hn::And(a0, hn::LoadU(d, wa + a.at0 + j)),
                              hn::And(a1, hn::LoadU(d, wa + a.at1 + j))),
                      hn::And(a2, hn::LoadU(d, wa + a.at2 + j)));
    auto xb = hn::Xor(hn::Xor(hn::And(b0, hn::LoadU(d, wb + b.at0 + j)),
                              hn::And(b1, hn::LoadU(d, wb + b.at1 + j))),
                      hn::And(b2, hn::LoadU(d, wb + b.at2 + j)));
    // Columns past a key's count read other words: zero them (parity 0).
    xa = hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(a.n > j ? a.n - j : 0)), xa);
    xb = hn::IfThenElseZero(hn::FirstN(d, static_cast<size_t>(b.n > j ? b.n - j : 0)), xb);
    const auto low_a = hn::BitCast(d32, hn::Xor(xa, hn::ShiftRight<32>(xa)));
    const auto high_b = hn::BitCast(d32, hn::Xor(xb, hn::ShiftLeft<32>(xb)));
    auto z = hn::OddEven(high_b, low_a);
    z = hn::Xor(z, hn::ShiftRight<16>(z));
    z = hn::Xor(z, hn::ShiftRight<8>(z));
    z = hn::Xor(z, hn::ShiftRight<4>(z));
    z = hn::Xor(z, hn::ShiftRight<2>(z));
    odd = hn::Or(odd, hn::Xor(z, hn::ShiftRight<1>(z)));
  }
  const auto parity = hn::BitCast(d, hn::And(odd, hn::Set(d32, 1u)));
  *out_a = hn::AllTrue(d, hn::Eq(hn::And(parity, hn::Set(d, uint64_t{1})), hn::Zero(d)));
  *out_b = hn::AllTrue(d, hn::Eq(hn::And(parity, hn::Set(d, uint64_t{1} << 32)), hn::Zero(d)));
}

HWY_INLINE uint64_t RoundUpToVectors(uint64_t n) {
  constexpr uint64_t kLanes = hn::MaxLanes(D());
  return (n + kLanes - 1) & ~(kLanes - 1);
}

// The probes of two placed keys: as a pair where they read as many whole
// vectors, else one at a time (a key of r columns beside one of r + 1 when
// r fills whole vectors; the shorter key's next vector could lie past the
// end of its filter).
HWY_INLINE void ProbeTwo(const uint64_t* wa, const Placed& a, const uint64_t* wb, const Placed& b,
                         bool* out_a, bool* out_b) {
  if (HWY_LIKELY(RoundUpToVectors(a.n) == RoundUpToVectors(b.n))) {
    ProbePlacedPair(wa, a, wb, b, out_a, out_b);
    return;
  }
  *out_a = ProbePlaced(wa, a);
  *out_b = ProbePlaced(wb, b);
}
#endif

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// Where `hash` lands in `v`, with its coefficients `c` shifted onto its
// segments. False where whole-vector loads would read past the solution:
// keys in the last segments, rare and predictable, which the scalar
// reference probes instead. REQUIRES: v.num_starts > 0.
HWY_INLINE bool Place(const RibbonView& v, uint64_t hash, const RibbonCoeffs& c, Placed* p) {
  const uint64_t start = RibbonStart(hash * v.start_multiplier, v.num_starts);
  const uint64_t segment = start / kRibbonSegmentSlots;
  const unsigned shift = static_cast<unsigned>(start % kRibbonSegmentSlots);
  const uint64_t cols = v.num_columns, upper = v.upper_start;
  // Segment b holds cols + (b >= upper) words.
  p->n = cols + (segment >= upper);
  p->at0 = RibbonSegmentOffset(segment, cols, upper);
  p->at1 = p->at0 + p->n;
  // On a segment boundary the third segment is unused (k2 == 0): read the
  // second again.
  p->at2 = p->at1 + (shift != 0 ? cols + (segment + 1 >= upper) : 0);
  if (HWY_UNLIKELY(p->at2 + RoundUpToVectors(p->n) > v.num_words)) return false;
  p->k0 = c.lo << shift;
  p->k1 = (c.hi << shift) | ((c.lo >> 1) >> (63 - shift));
  p->k2 = (c.hi >> 1) >> (63 - shift);
  return true;
}

// Requests the cache lines a placed key reads: its segments are
// contiguous, from its first word to its third segment's last column.
HWY_INLINE void PrefetchPlaced(const uint64_t* w, const Placed& p, uint64_t num_words) {
  const uint64_t* last = w + std::min(p.at2 + p.n, num_words) - 1;
  for (const uint64_t* line = w + p.at0; line < last; line += 8) hwy::Prefetch(line);
  hwy::Prefetch(last);
}
#endif

HWY_INLINE bool Probe(const RibbonView& v, uint64_t hash) {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  return RibbonMayMatch(v, hash);
#else
  Placed p;
  if (!Place(v, hash, RibbonCoefficients(hash), &p)) return RibbonMayMatch(v, hash);
  return ProbePlaced(v.words, p);
#endif
}

bool ProbeOne(const RibbonView& v, uint64_t hash) { return Probe(v, hash); }

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// RibbonRemix on every lane.
HWY_INLINE hn::Vec<D> RemixLanes(hn::Vec<D> x) {
  const D d;
  const auto m = hn::Set(d, uint64_t{0xe9846af9b1a615dULL});
  x = hn::Xor(x, hn::ShiftRight<32>(x));
  x = hn::Mul(x, m);
  x = hn::Xor(x, hn::ShiftRight<32>(x));
  x = hn::Mul(x, m);
  return hn::Xor(x, hn::ShiftRight<28>(x));
}

// Placed for hashes[0, kLanes), the lanes computing what Probe computes one
// key at a time; fallback[i] where Probe would take the scalar path.
HWY_INLINE void PlaceLanes(const RibbonView& v, const uint64_t* hashes, uint64_t* at0,
                           uint64_t* at1, uint64_t* at2, uint64_t* n, uint64_t* k0, uint64_t* k1,
                           uint64_t* k2, uint64_t* fallback) {
  const D d;
  const hn::Repartition<uint32_t, D> d32;
  const auto h = hn::LoadU(d, hashes);
  // start = ((placed >> 32) * num_starts) >> 32, both factors below 2^32.
  const auto placed = hn::Mul(h, hn::Set(d, v.start_multiplier));
  const auto product = hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(placed)),
                                   hn::BitCast(d32, hn::Set(d, v.num_starts)));
  const auto start = hn::ShiftRight<32>(product);
  const auto segment = hn::ShiftRight<6>(start);
  const auto shift = hn::And(start, hn::Set(d, uint64_t{63}));
  const auto cols = hn::Set(d, uint64_t{v.num_columns});
  const auto upper = hn::Set(d, v.upper_start);
  const auto one = hn::Set(d, uint64_t{1});
  const auto is_upper = hn::Not(hn::Lt(segment, upper));
  const auto next_is_upper = hn::Not(hn::Lt(hn::Add(segment, one), upper));
  const auto count = hn::Add(cols, hn::IfThenElseZero(is_upper, one));
  // segment * cols fits 32 bits (segments < 2^26, cols <= 32).
  const auto base = hn::MulEven(hn::BitCast(d32, segment), hn::BitCast(d32, cols));
  const auto first =
      hn::Add(base, hn::IfThenElseZero(hn::Lt(upper, segment), hn::Sub(segment, upper)));
  const auto second = hn::Add(first, count);
  const auto third =
      hn::Add(second, hn::IfThenZeroElse(hn::Eq(shift, hn::Zero(d)),
                                         hn::Add(cols, hn::IfThenElseZero(next_is_upper, one))));
  const auto rounded = hn::And(hn::Add(count, hn::Set(d, uint64_t{hn::MaxLanes(D()) - 1})),
                               hn::Set(d, ~uint64_t{hn::MaxLanes(D()) - 1}));
  const auto beyond = hn::Lt(hn::Set(d, v.num_words), hn::Add(third, rounded));
  const auto lo = hn::Or(RemixLanes(hn::Xor(h, hn::Set(d, kCoeffSeedLo))), one);
  const auto hi = RemixLanes(hn::Xor(h, hn::Set(d, kCoeffSeedHi)));
  const auto back = hn::Sub(hn::Set(d, uint64_t{63}), shift);
  hn::StoreU(first, d, at0);
  hn::StoreU(second, d, at1);
  hn::StoreU(third, d, at2);
  hn::StoreU(count, d, n);
  hn::StoreU(lo << shift, d, k0);
  hn::StoreU(hn::Or(hi << shift, hn::ShiftRight<1>(lo) >> back), d, k1);
  hn::StoreU(hn::ShiftRight<1>(hi) >> back, d, k2);
  hn::StoreU(hn::VecFromMask(d, beyond), d, fallback);
}
#endif

void ProbeBatch(const RibbonView& v, const uint64_t* hashes, size_t n, bool* out, bool prefetch) {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  (void)prefetch;
  for (size_t i = 0; i < n; ++i) out[i] = RibbonMayMatch(v, hashes[i]);
#else
  // Groups of 32 keys: first every key's offsets and coefficients, several
  // keys per vector, then (with `prefetch`) every key's lines requested,
  // then the probes.
  constexpr size_t kGroup = 32;
  constexpr size_t kLanes = hn::MaxLanes(D());
  static_assert(kGroup % kLanes == 0, "whole vectors of keys per group");
  uint64_t at0[kGroup], at1[kGroup], at2[kGroup], count[kGroup];
  uint64_t k0[kGroup], k1[kGroup], k2[kGroup], fallback[kGroup];
  const uint64_t* w = v.words;
  size_t first = 0;
  for (; first + kGroup <= n; first += kGroup) {
    for (size_t i = 0; i < kGroup; i += kLanes) {
      PlaceLanes(v, hashes + first + i, at0 + i, at1 + i, at2 + i, count + i, k0 + i, k1 + i,
                 k2 + i, fallback + i);
    }
    if (prefetch) {
      for (size_t i = 0; i < kGroup; ++i) {
        PrefetchPlaced(w, Placed{at0[i], at1[i], at2[i], count[i], 0, 0, 0}, v.num_words);
      }
    }
    for (size_t i = 0; i < kGroup; i += 2) {
      if (HWY_UNLIKELY((fallback[i] | fallback[i + 1]) != 0)) {
        out[first + i] = Probe(v, hashes[first + i]);
        out[first + i + 1] = Probe(v, hashes[first + i + 1]);
        continue;
      }
      ProbeTwo(
          w, Placed{at0[i], at1[i], at2[i], count[i], k0[i], k1[i], k2[i]}, w,
          Placed{at0[i + 1], at1[i + 1], at2[i + 1], count[i + 1], k0[i + 1], k1[i + 1], k2[i + 1]},
          out + first + i, out + first + i + 1);
    }
  }
  for (; first < n; ++first) out[first] = Probe(v, hashes[first]);
#endif
}

// Probes of many (filter, hash) items, each filter its own: every item's
// lines of a group requested before any of the group is probed, so that a
// lookup's misses across its candidate files overlap. hash_of(i) and
// coeffs_of(i) are item i's hash and RibbonCoefficients(hash).
template <class HashOf, class CoeffsOf>
HWY_INLINE void ProbeMany(const RibbonView* const* filters, size_t n, const HashOf& hash_of,
                          const CoeffsOf& coeffs_of, bool* out) {
#if HWY_TARGET == HWY_SCALAR || HWY_HAVE_SCALABLE
  (void)coeffs_of;
  for (size_t i = 0; i < n; ++i) out[i] = RibbonMayMatch(*filters[i], hash_of(i));
#else
  constexpr size_t kGroup = 32;
  Placed placed[kGroup];
  bool fast[kGroup];  // Placed for the vector probe (else: the reference).
  for (size_t first = 0; first < n; first += kGroup) {
    const size_t m = std::min(kGroup, n - first);
    const RibbonView* const* group = filters + first;
    for (size_t i = 0; i < m; ++i) {
      const RibbonView& v = *group[i];
      fast[i] = v.num_starts != 0 && Place(v, hash_of(first + i), coeffs_of(first + i), &placed[i]);
      if (fast[i]) PrefetchPlaced(v.words, placed[i], v.num_words);
    }
    auto settle = [&](size_t i) HWY_ATTR {
      return fast[i] ? ProbePlaced(group[i]->words, placed[i])
                     : RibbonMayMatch(*group[i], hash_of(first + i));
    };
    size_t i = 0;
    for (; i + 1 < m; i += 2) {
      if (HWY_LIKELY(fast[i] && fast[i + 1])) {
        ProbeTwo(group[i]->words, placed[i], group[i + 1]->words, placed[i + 1], out + first + i,
                 out + first + i + 1);
      } else {
        out[first + i] = settle(i);
        out[first + i + 1] = settle(i + 1);
      }
    }
    if (i < m) out[first + i] = settle(i);
  }
#endif
}

void ProbeEachKernel(const RibbonView* const* filters, size_t n, uint64_t hash, bool* out) {
  // One key: its coefficients are the same in every filter.
  const RibbonCoeffs c = RibbonCoefficients(hash);
  ProbeMany(
      filters, n, [hash](size_t) HWY_ATTR { return hash; }, [&c](size_t) HWY_ATTR { return c; },
      out);
}

void ProbePairsKernel(const RibbonView* const* filters, const uint64_t* hashes, size_t n, bool* out) {
  ProbeMany(
      filters, n, [hashes](size_t i) HWY_ATTR { return hashes[i]; },
      [hashes](size_t i) HWY_ATTR { return RibbonCoefficients(hashes[i]); }, out);
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
HWY_EXPORT(ProbeEachKernel);
HWY_EXPORT(ProbePairsKernel);

namespace {
// The public batch probes' one hop, inlined into them (Highway's dispatch
// table is named from inside this namespace).
void DispatchProbeEach(const RibbonView* const* filters, size_t n, uint64_t hash, bool* out) {
  HWY_DISPATCH_TABLE(ProbeEachKernel)
  [KernelTableIndex(KernelFamily::kRibbonProbeEach)](filters, n, hash, out);
}
void DispatchProbePairs(const RibbonView* const* filters, const uint64_t* hashes, size_t n,
                        bool* out) {
  HWY_DISPATCH_TABLE(ProbePairsKernel)
  [KernelTableIndex(KernelFamily::kRibbonProbePairs)](filters, hashes, n, out);
}
}  // namespace

RibbonProbeOneFn ChosenRibbonProbeOne() {
  return HWY_DISPATCH_TABLE(ProbeOne)[KernelTableIndex(KernelFamily::kRibbonProbeOne)];
}

RibbonProbeBatchFn ChosenRibbonProbeBatch() {
  return HWY_DISPATCH_TABLE(ProbeBatch)[KernelTableIndex(KernelFamily::kRibbonProbeBatch)];
}

RibbonKernels RibbonKernelsAt(size_t index) {
  return {HWY_DISPATCH_TABLE(ProbeOne)[index], HWY_DISPATCH_TABLE(ProbeBatch)[index],
          HWY_DISPATCH_TABLE(ProbeEachKernel)[index], HWY_DISPATCH_TABLE(ProbePairsKernel)[index]};
}

}  // namespace internal

void RibbonProbeEach(absl::Span<const RibbonView* const> filters, uint64_t hash,
                     absl::Span<bool> out) {
  internal::DispatchProbeEach(filters.data(), filters.size(), hash, out.data());
}

void RibbonProbePairs(absl::Span<const RibbonView* const> filters,
                      absl::Span<const uint64_t> hashes, absl::Span<bool> out) {
  internal::DispatchProbePairs(filters.data(), hashes.data(), filters.size(), out.data());
}

}  // namespace lsmbloom
#endif  // HWY_ONCE
