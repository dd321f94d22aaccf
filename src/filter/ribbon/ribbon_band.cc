// The Ribbon builder's linear algebra: banding (Gaussian elimination as
// equations arrive), measuring d, and back-substitution (ribbon_band.h).

#include "src/filter/ribbon/ribbon_band.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "src/filter/huge_pages.h"
#include "src/filter/ribbon/ribbon_layout.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {
namespace {

// Measuring d on a band with saturated stretches (MeasureRibbonDependence): the
// absent equations sampled near them (the dependent share among them is
// then known to within about +-0.4%), how far from a saturated equation's
// start they may start (measured on bands of 10^6 keys: within 256 slots
// the windows held a fifth to a half of the dependent starts, within 4096
// all that sampling the whole band found), and how many such starts Band
// lists.
constexpr size_t kDependenceSamples = size_t{1} << 14;
constexpr uint64_t kDependenceReach = 4096;
constexpr size_t kMaxSaturatedStarts = size_t{1} << 16;

int CountTrailingZeros(RibbonRow row) {
  const uint64_t lo = static_cast<uint64_t>(row);
  return lo != 0 ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(static_cast<uint64_t>(row >> 64));
}

int Parity(RibbonRow row) {
  return __builtin_parityll(static_cast<uint64_t>(row) ^ static_cast<uint64_t>(row >> 64));
}

void Saturated(uint64_t start, size_t* count, std::vector<uint64_t>* starts) {
  if (++*count <= kMaxSaturatedStarts) starts->push_back(start);
}

// Whether an equation from `start` with coefficients `row` is a sum of the
// band's: reduced against it, it vanishes instead of reaching a free slot.
bool DependsOnBand(const RibbonRow* band, uint64_t start, RibbonRow row) {
  uint64_t slot = start;
  for (;;) {
    const RibbonRow existing = band[slot];
    if (existing == 0) return false;
    row ^= existing;
    if (row == 0) return true;
    const int skip = CountTrailingZeros(row);
    slot += skip;
    row >>= skip;
  }
}

// log2 of SortRibbonHashes' buckets for n hashes: two to four hashes a
// bucket, at most 2^24 buckets.
int BucketBits(size_t n) {
  int bucket_bits = 1;
  while (bucket_bits < 24 && (size_t{4} << bucket_bits) < n) ++bucket_bits;
  return bucket_bits;
}

}  // namespace

size_t SortRibbonHashesScratch(size_t n) { return sizeof(uint32_t) << BucketBits(n); }

// The hashes in ascending order: one counting pass on the top bits (about
// four hashes per bucket), a scatter, and an insertion sort of each bucket.
// ~3x faster than std::sort at 10^6; 8 bytes per hash besides the input
// and 4 bytes per bucket.
void SortRibbonHashes(const uint64_t* hashes, size_t n, uint64_t* sorted, uint32_t* counts) {
  const int bucket_bits = BucketBits(n);
  const int shift = 64 - bucket_bits;
  const size_t buckets = size_t{1} << bucket_bits;
  // Our own counts are mapped from 2 MiB, so that freeing them returns them
  // to the system: malloc would keep up to 64 MiB resident under the band
  // that follows (measured: 16 MiB at 10^7 keys, RibbonConstructionBytes).
  std::unique_ptr<ZeroedLines> own;
  if (counts == nullptr) {
    own = std::make_unique<ZeroedLines>(buckets * sizeof(uint32_t), size_t{2} << 20);
    counts = own->as<uint32_t>();
  } else {
    std::memset(counts, 0, buckets * sizeof(uint32_t));
  }
  uint32_t* const ends = counts;
  for (size_t i = 0; i < n; ++i) ++ends[hashes[i] >> shift];
  uint32_t total = 0;
  for (size_t b = 0; b < buckets; ++b) {
    total += ends[b];
    ends[b] = total;  // The end of each bucket; decremented below to its start.
  }
  for (size_t i = n; i-- > 0;) sorted[--ends[hashes[i] >> shift]] = hashes[i];
  // ends[b] is now the start of bucket b.
  for (size_t b = 0; b < buckets; ++b) {
    const size_t begin = ends[b];
    const size_t end = b + 1 < buckets ? ends[b + 1] : n;
    for (size_t i = begin + 1; i < end; ++i) {
      const uint64_t h = sorted[i];
      size_t j = i;
      for (; j > begin && sorted[j - 1] > h; --j) sorted[j] = sorted[j - 1];
      sorted[j] = h;
    }
  }
}

// Gaussian elimination on the fly: each equation (start, 128 coefficients,
// the first one set) is reduced against the rows already in the band until
// it lands on an empty slot, which becomes its pivot, or vanishes (it is a
// sum of earlier equations: with right-hand side zero it adds nothing).
// Hashes arrive sorted, so starts ascend and the band is swept left to right.
//
// Returns how many equations show the band saturated around them: those
// that vanished, and those whose pivot landed kDeepPivot or more slots past
// their start; appends the starts of the first kMaxSaturatedStarts of them
// to `saturated_starts` (ascending, as the hashes are). Where the band has
// no such equation, absent keys rarely depend on the added ones (d about
// 10^-6, ribbon_math.h); a saturated stretch makes absent keys starting in
// it match always, up to d = 2.9e-3 at 4.5% slack seen, and shows as tens
// to hundreds of such equations.
constexpr uint64_t kDeepPivot = 120;

uint64_t InverseMultiplier(uint64_t m) {
  // Newton's iteration doubles the correct low bits: m * m == 1 mod 8 gives
  // 3, five steps 96 >= 64.
  uint64_t x = m;
  for (int i = 0; i < 5; ++i) x *= 2 - m * x;
  return x;
}

size_t BandRibbon(const uint64_t* placed, size_t n, uint64_t start_multiplier, uint64_t num_starts,
                  RibbonRow* band, std::vector<uint64_t>* saturated_starts) {
  saturated_starts->clear();
  const uint64_t unplace = InverseMultiplier(start_multiplier);
  size_t saturated = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hash = placed[i] * unplace;
    const uint64_t start = RibbonStart(placed[i], num_starts);
    uint64_t slot = start;
    const RibbonCoeffs c = RibbonCoefficients(hash);
    RibbonRow row = (static_cast<RibbonRow>(c.hi) << 64) | c.lo;
    for (;;) {
      const RibbonRow existing = band[slot];
      if (existing == 0) {
        band[slot] = row;
        if (slot - start >= kDeepPivot) Saturated(start, &saturated, saturated_starts);
        break;
      }
      row ^= existing;
      if (row == 0) {
        Saturated(start, &saturated, saturated_starts);
        break;
      }
      const int skip = CountTrailingZeros(row);
      slot += skip;
      row >>= skip;
    }
  }
  return saturated;
}

// d of a banded filter, in units of 2^-32 (rounded up). Only absent keys
// starting near saturated equations (within kDependenceReach slots of a
// start) were seen to depend on the band, so d is measured there alone:
// kDependenceSamples pseudo-random equations (a fixed sequence, so the
// filter's bytes still depend on its hashes alone) spread over those
// windows, in ascending order to sweep the band as the banding did; d is
// the dependent share of them times the windows' share of all starts.
uint32_t MeasureRibbonDependence(const RibbonRow* band, const RibbonGeometry& g, size_t saturated,
                                 const std::vector<uint64_t>& saturated_starts) {
  const uint64_t num_starts = g.num_starts();
  std::vector<std::pair<uint64_t, uint64_t>> windows;  // [begin, end) of starts.
  if (saturated > saturated_starts.size()) {
    windows.emplace_back(0, num_starts);  // Too many to list: everywhere.
  } else {
    for (const uint64_t start : saturated_starts) {
      const uint64_t begin = start > kDependenceReach ? start - kDependenceReach : 0;
      const uint64_t end = std::min(start + kDependenceReach + 1, num_starts);
      if (!windows.empty() && begin <= windows.back().second) {
        windows.back().second = std::max(windows.back().second, end);
      } else {
        windows.emplace_back(begin, end);
      }
    }
  }
  uint64_t total = 0;
  for (const auto& w : windows) total += w.second - w.first;
  std::vector<uint64_t> offsets(kDependenceSamples);
  uint64_t state = 0x5eed0fd5a3b1c27dULL;
  for (uint64_t& at : offsets) {
    state += 0x9e3779b97f4a7c15ULL;
    at = static_cast<uint64_t>((static_cast<unsigned __int128>(RibbonRemix(state)) * total) >> 64);
  }
  std::sort(offsets.begin(), offsets.end());
  uint64_t dependent = 0;
  size_t w = 0;
  uint64_t window_offset = 0;  // Of windows[w] among all windows' starts.
  for (size_t i = 0; i < offsets.size(); ++i) {
    while (offsets[i] >= window_offset + (windows[w].second - windows[w].first)) {
      window_offset += windows[w].second - windows[w].first;
      ++w;
    }
    const uint64_t start = windows[w].first + (offsets[i] - window_offset);
    const RibbonCoeffs c = RibbonCoefficients(RibbonRemix(state + i));
    dependent += DependsOnBand(band, start, (static_cast<RibbonRow>(c.hi) << 64) | c.lo);
  }
  const double d = static_cast<double>(dependent) / kDependenceSamples *
                   static_cast<double>(total) / static_cast<double>(num_starts);
  return static_cast<uint32_t>(std::min(std::ceil(std::ldexp(d, 32)), 4294967295.0));
}

// Back-substitution, last slot first, straight into interleaved storage.
// window[j] holds column j of the 128 slots from the current one on (bit t:
// slot + t). A slot with a pivot row takes the bit that makes its equation's
// parity zero; a free slot takes a pseudo-random bit, so that absent keys'
// parities are uniform.
void BackSubstituteRibbon(const RibbonRow* band, const RibbonGeometry& g, uint8_t* out) {
  RibbonRow window[kRibbonMaxColumns] = {};
  const uint64_t r = g.num_columns;
  for (uint64_t segment = g.num_segments; segment-- > 0;) {
    const uint64_t columns = r + (segment >= g.upper_start);
    for (int t = kRibbonSegmentSlots - 1; t >= 0; --t) {
      const uint64_t slot = segment * kRibbonSegmentSlots + t;
      const RibbonRow row = band[slot];
      if (row != 0) {
        for (uint64_t j = 0; j < columns; ++j) {
          const RibbonRow shifted = window[j] << 1;
          window[j] = shifted | static_cast<RibbonRow>(Parity(row & shifted));
        }
      } else {
        const uint64_t bits = RibbonRemix(slot ^ kFreeSlotSeed);
        for (uint64_t j = 0; j < columns; ++j) {
          window[j] = (window[j] << 1) | static_cast<RibbonRow>((bits >> j) & 1);
        }
      }
    }
    uint8_t* words = out + 8 * RibbonSegmentOffset(segment, r, g.upper_start);
    for (uint64_t j = 0; j < columns; ++j) {
      EncodeFixed64(words + 8 * j, static_cast<uint64_t>(window[j]));
    }
  }
}

}  // namespace internal
}  // namespace lsmbloom
