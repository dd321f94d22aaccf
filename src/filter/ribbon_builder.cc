// The Ribbon builder: sizing, banding (Gaussian elimination as equations
// arrive) and back-substitution into interleaved solution storage.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_layout.h"
#include "lsmbloom/filter/ribbon_math.h"
#include "src/filter/hash_buffer.h"
#include "src/filter/ribbon_format.h"
#include "src/util/coding.h"

namespace lsmbloom {

RibbonOptions::RibbonOptions() = default;
namespace {

using internal::kRibbonMaxColumns;
using internal::kRibbonMaxSegments;
using internal::kRibbonSegmentSlots;
using Row = unsigned __int128;

// The slacks PlanRibbon tries: RibbonSlotOverhead(n) + i * kPlanStep.
constexpr int kPlanSteps = 13;
constexpr double kPlanStep = 0.005;

// Re-banding after a saturated band (Finish): each adds this much slack, at
// most this many times.
constexpr int kMaxReBandings = 8;
constexpr double kReBandStep = 0.0025;
// Band memory reserved, as a multiple of the first band's: room for the
// re-bandings' wider bands.
constexpr double kBandReserve = 1.025;
// Measuring d on a band with saturated stretches (MeasureDependent): the
// absent equations sampled near them (the dependent share among them is
// then known to within about +-0.4%), how far from a saturated equation's
// start they may start (measured on bands of 10^6 keys: within 256 slots
// the windows held a fifth to a half of the dependent starts, within 4096
// all that sampling the whole band found), and how many such starts Band
// lists.
constexpr size_t kDependenceSamples = size_t{1} << 14;
constexpr uint64_t kDependenceReach = 4096;
constexpr size_t kMaxSaturatedStarts = size_t{1} << 16;

int CountTrailingZeros(Row row) {
  const uint64_t lo = static_cast<uint64_t>(row);
  return lo != 0 ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(static_cast<uint64_t>(row >> 64));
}

int Parity(Row row) {
  return __builtin_parityll(static_cast<uint64_t>(row) ^ static_cast<uint64_t>(row >> 64));
}

// Segments, r and upper_start holding `words` solution words over
// `num_segments` segments (r = floor(words / segments), the remainder of
// segments taking one column more).
void SpreadWords(uint64_t words, RibbonGeometry& g) {
  const uint64_t r = words / g.num_segments;
  g.num_columns = static_cast<int>(r);
  g.upper_start = g.num_segments - (words - r * g.num_segments);
}

// ceil(n (1 + overhead) / 64) segments, plus one: the band's last 127 slots
// receive no starts, so they are slack only for the keys just before them;
// without the extra segment a small filter (a few segments, all keys
// starting in the first) would have less slack than planned, and one of up
// to 128 keys in two segments nearly none.
uint64_t SegmentsFor(uint64_t num_keys, double overhead) {
  const double slots = std::ceil(static_cast<double>(num_keys) * (1.0 + overhead));
  const double segments = std::ceil(slots / kRibbonSegmentSlots) + 1;
  if (!(segments <= static_cast<double>(kRibbonMaxSegments))) return kRibbonMaxSegments + 1;
  return std::max<uint64_t>(2, static_cast<uint64_t>(segments));
}

// The smallest filter over g's segments whose predicted FPR is at most
// `target`, or the largest if none is (then its FPR is above the target).
RibbonGeometry SmallestMeeting(RibbonGeometry g, double target) {
  uint64_t lo = g.num_segments;                        // 1 column everywhere.
  uint64_t hi = g.num_segments * kRibbonMaxColumns;    // 32 everywhere.
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    SpreadWords(mid, g);
    if (g.predicted_fpr() <= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  SpreadWords(lo, g);
  return g;
}

// Whether filter a is better than b for the options: fewer solution words
// for a target FPR, else a lower predicted FPR at the same bits/key.
bool Better(const RibbonGeometry& a, const RibbonGeometry& b, const RibbonOptions& options) {
  if (options.target_fpr > 0.0) return a.solution_words() < b.solution_words();
  return a.predicted_fpr() < b.predicted_fpr();
}

// The columns of a band of g's segments: the smallest meeting the target
// FPR, or those the bits/key buy.
RibbonGeometry SizeColumns(RibbonGeometry g, const RibbonOptions& options) {
  if (options.target_fpr > 0.0) return SmallestMeeting(g, options.target_fpr);
  const double words = std::floor(options.bits_per_key * g.num_keys / 64.0);
  SpreadWords(std::clamp(static_cast<uint64_t>(words), g.num_segments,
                         g.num_segments * kRibbonMaxColumns),
              g);
  return g;
}

}  // namespace

absl::Status ValidateRibbonOptions(const RibbonOptions& options) {
  if (options.target_fpr != 0.0 && !(options.target_fpr >= 1e-9 && options.target_fpr <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_fpr must be in [1e-9, 0.5] or 0 for unset, got ", options.target_fpr));
  }
  if (options.target_fpr == 0.0 &&
      !(options.bits_per_key >= 1.1 && options.bits_per_key <= 34.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bits_per_key must be in [1.1, 34], got ", options.bits_per_key));
  }
  if (options.hash.id != HashId::kXxh3_64) {
    return absl::InvalidArgumentError("unknown hash id");
  }
  return absl::OkStatus();
}

uint64_t RibbonGeometry::serialized_size() const {
  return internal::kRibbonHeaderBytes + solution_bytes();
}

double RibbonGeometry::bits_per_key() const {
  return num_keys == 0 ? 0.0 : 64.0 * static_cast<double>(solution_words()) / num_keys;
}

double RibbonGeometry::upper_fraction() const {
  if (num_segments == 0) return 0.0;
  const uint64_t first_upper_start = upper_start * kRibbonSegmentSlots;
  const uint64_t starts = num_starts();
  return first_upper_start >= starts
             ? 0.0
             : static_cast<double>(starts - first_upper_start) / static_cast<double>(starts);
}

double RibbonGeometry::dependent_fraction() const {
  if (measured_dependent != 0) return std::ldexp(static_cast<double>(measured_dependent), -32);
  if (num_keys == 0) return 0.0;
  return RibbonDependentFraction(num_keys, static_cast<double>(num_slots()) / num_keys - 1.0);
}

double RibbonGeometry::predicted_fpr() const {
  if (num_keys == 0) return 0.0;
  return RibbonFpr(num_columns, upper_fraction(), dependent_fraction());
}

namespace {

// PlanRibbon with slack `overhead`.
absl::StatusOr<RibbonGeometry> PlanWithSlack(uint64_t num_keys, const RibbonOptions& options,
                                             double overhead) {
  absl::Status valid = ValidateRibbonOptions(options);
  if (!valid.ok()) return valid;
  RibbonGeometry g;
  g.hash = options.hash;
  g.num_keys = num_keys;
  if (num_keys == 0) return g;  // No segments, r = 1, upper_start 0.
  g.num_segments = SegmentsFor(num_keys, overhead);
  if (g.num_segments > kRibbonMaxSegments) {
    return absl::InvalidArgumentError(
        absl::StrCat(num_keys, " keys need more than 2^26 Ribbon segments; split the table"));
  }
  return SizeColumns(g, options);
}

}  // namespace

absl::StatusOr<RibbonGeometry> PlanRibbon(uint64_t num_keys, const RibbonOptions& options) {
  // More slack makes dependent keys rarer but spreads the solution bits over
  // more slots: only FPR targets near d (below about 10^-5) gain from more
  // than the least. Try slacks from the least up: with a target, keep the
  // smallest filter meeting it (or the most accurate, if none does); with
  // bits/key, the lowest predicted FPR.
  absl::StatusOr<RibbonGeometry> best = PlanWithSlack(num_keys, options, RibbonSlotOverhead(num_keys));
  if (!best.ok() || num_keys == 0) return best;
  for (int step = 1; step < kPlanSteps; ++step) {
    absl::StatusOr<RibbonGeometry> candidate =
        PlanWithSlack(num_keys, options, RibbonSlotOverhead(num_keys) + kPlanStep * step);
    if (!candidate.ok()) break;  // Too many segments: the smaller slacks stand.
    const double target = options.target_fpr;
    const bool meets = candidate->predicted_fpr() <= target;
    const bool best_meets = best->predicted_fpr() <= target;
    if (target > 0.0 ? (meets && (!best_meets || Better(*candidate, *best, options))) ||
                           (!meets && !best_meets &&
                            candidate->predicted_fpr() < best->predicted_fpr())
                     : Better(*candidate, *best, options)) {
      best = candidate;
    }
  }
  return best;
}

absl::StatusOr<RibbonBuilder> RibbonBuilder::Create(const RibbonOptions& options) {
  absl::Status valid = ValidateRibbonOptions(options);
  if (!valid.ok()) return valid;
  return RibbonBuilder(options);
}

namespace {

// Zero-filled scratch memory. From 2 MiB on it is mapped on a 2 MiB
// boundary with huge pages requested: the builder writes every page of its
// sorted hashes and band once, and in a VM each 4 KiB page fault costs
// microseconds (measured here, malloc and memset of the band took about half
// of a 10^6-key build).
class Scratch {
 public:
  explicit Scratch(size_t bytes) : bytes_(bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kHugePage) {
      mapped_ = bytes + kHugePage;
      void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      mapping_ = p;
      const uintptr_t at = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
      data_ = reinterpret_cast<void*>(at);
      madvise(data_, bytes, MADV_HUGEPAGE);  // Advice: without THP nothing changes.
      return;
    }
#endif
    data_ = std::calloc(bytes > 0 ? bytes : 1, 1);
    if (data_ == nullptr) throw std::bad_alloc();
  }
  ~Scratch() {
#if defined(__linux__)
    if (mapping_ != nullptr) {
      munmap(mapping_, mapped_);
      return;
    }
#endif
    std::free(data_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  static constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  size_t bytes_;
  size_t mapped_ = 0;
  void* mapping_ = nullptr;
  void* data_ = nullptr;
};

// The hashes in ascending order: one counting pass on the top bits (about
// four hashes per bucket), a scatter, and an insertion sort of each bucket.
// ~3x faster than std::sort at 10^6; 8 bytes per hash besides the input
// and 4 bytes per bucket.
void SortHashes(const uint64_t* hashes, size_t n, uint64_t* sorted) {
  int bucket_bits = 1;
  while (bucket_bits < 24 && (size_t{4} << bucket_bits) < n) ++bucket_bits;
  const int shift = 64 - bucket_bits;
  std::vector<uint32_t> ends(size_t{1} << bucket_bits, 0);
  for (size_t i = 0; i < n; ++i) ++ends[hashes[i] >> shift];
  uint32_t total = 0;
  for (uint32_t& e : ends) {
    total += e;
    e = total;  // The end of each bucket; decremented below to its start.
  }
  for (size_t i = n; i-- > 0;) sorted[--ends[hashes[i] >> shift]] = hashes[i];
  // ends[b] is now the start of bucket b.
  for (size_t b = 0; b < ends.size(); ++b) {
    const size_t begin = ends[b];
    const size_t end = b + 1 < ends.size() ? ends[b + 1] : n;
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
// to `saturated_starts` (ascending, as the hashes are). Where the band has no such equation, no absent key was seen
// to depend on the added ones (measured: 0 of 10^6 probes on 13 of 13 such
// filters of 10^6 keys); a saturated stretch makes absent keys starting in
// it match always, up to d = 2.6e-3 at 4.5% slack, and shows as tens to
// hundreds of such equations.
constexpr uint64_t kDeepPivot = 120;

void Saturated(uint64_t start, size_t* count, std::vector<uint64_t>* starts) {
  if (++*count <= kMaxSaturatedStarts) starts->push_back(start);
}

size_t Band(const uint64_t* hashes, size_t n, uint64_t num_starts, Row* band,
            std::vector<uint64_t>* saturated_starts) {
  saturated_starts->clear();
  size_t saturated = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hash = hashes[i];
    const uint64_t start = internal::RibbonStart(hash, num_starts);
    uint64_t slot = start;
    const internal::RibbonCoeffs c = internal::RibbonCoefficients(hash);
    Row row = (static_cast<Row>(c.hi) << 64) | c.lo;
    for (;;) {
      const Row existing = band[slot];
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

// Whether an equation from `start` with coefficients `row` is a sum of the
// band's: reduced against it, it vanishes instead of reaching a free slot.
bool DependsOnBand(const Row* band, uint64_t start, Row row) {
  uint64_t slot = start;
  for (;;) {
    const Row existing = band[slot];
    if (existing == 0) return false;
    row ^= existing;
    if (row == 0) return true;
    const int skip = CountTrailingZeros(row);
    slot += skip;
    row >>= skip;
  }
}

// d of a banded filter, in units of 2^-32 (rounded up). Only absent keys
// starting near saturated equations (within kDependenceReach slots of a
// start) were seen to depend on the band, so d is measured there alone:
// kDependenceSamples pseudo-random equations (a fixed sequence, so the
// filter's bytes still depend on its hashes alone) spread over those
// windows, in ascending order to sweep the band as the banding did; d is
// the dependent share of them times the windows' share of all starts.
uint32_t MeasureDependent(const Row* band, const RibbonGeometry& g, size_t saturated,
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
    at = static_cast<uint64_t>((static_cast<unsigned __int128>(internal::RibbonRemix(state)) *
                                total) >> 64);
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
    const internal::RibbonCoeffs c = internal::RibbonCoefficients(internal::RibbonRemix(state + i));
    dependent += DependsOnBand(band, start, (static_cast<Row>(c.hi) << 64) | c.lo);
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
void BackSubstitute(const Row* band, const RibbonGeometry& g, uint8_t* out) {
  Row window[kRibbonMaxColumns] = {};
  const uint64_t r = g.num_columns;
  for (uint64_t segment = g.num_segments; segment-- > 0;) {
    const uint64_t columns = r + (segment >= g.upper_start);
    for (int t = kRibbonSegmentSlots - 1; t >= 0; --t) {
      const uint64_t slot = segment * kRibbonSegmentSlots + t;
      const Row row = band[slot];
      if (row != 0) {
        for (uint64_t j = 0; j < columns; ++j) {
          const Row shifted = window[j] << 1;
          window[j] = shifted | static_cast<Row>(Parity(row & shifted));
        }
      } else {
        const uint64_t bits = internal::RibbonRemix(slot ^ internal::kFreeSlotSeed);
        for (uint64_t j = 0; j < columns; ++j) {
          window[j] = (window[j] << 1) | static_cast<Row>((bits >> j) & 1);
        }
      }
    }
    uint8_t* words = out + 8 * internal::RibbonSegmentOffset(segment, r, g.upper_start);
    for (uint64_t j = 0; j < columns; ++j) {
      internal::EncodeFixed64(words + 8 * j, static_cast<uint64_t>(window[j]));
    }
  }
}

}  // namespace

RibbonBuilder::RibbonBuilder(const RibbonOptions& options)
    : options_(options), hashes_(new internal::HashBuffer()) {}
RibbonBuilder::RibbonBuilder(RibbonBuilder&&) noexcept = default;
RibbonBuilder& RibbonBuilder::operator=(RibbonBuilder&&) noexcept = default;
RibbonBuilder::~RibbonBuilder() = default;

void RibbonBuilder::AddHash(uint64_t hash) {
  if (hash == last_hash_ && has_last_hash_) return;
  last_hash_ = hash;
  has_last_hash_ = true;
  hashes_->Add(hash);
}

size_t RibbonBuilder::num_buffered() const { return hashes_->size(); }
size_t RibbonBuilder::MemoryUsage() const { return hashes_->MemoryUsage(); }

absl::StatusOr<std::string> RibbonBuilder::Finish() {
  has_last_hash_ = false;
  const size_t n = hashes_->size();
  absl::StatusOr<RibbonGeometry> planned = PlanRibbon(n, options_);
  if (!planned.ok()) {
    hashes_->Drain([](const uint64_t*, size_t) {});
    return planned.status();
  }
  RibbonGeometry g = *planned;
  if (n == 0) {
    hashes_->Drain([](const uint64_t*, size_t) {});  // Releases its memory.
    std::string filter(g.serialized_size(), '\0');
    internal::EncodeRibbonHeader(g, reinterpret_cast<uint8_t*>(filter.data()));
    return filter;
  }
  {
    // Sorted by value is sorted by start, and makes the bytes independent
    // of the order keys arrived in.
    Scratch sorted(n * sizeof(uint64_t));
    size_t runs = 0;
    hashes_->Drain([&](const uint64_t* run, size_t count) {
      // A HashBuffer made without a grouping threshold hands out one run.
      assert(runs == 0 && count == n);
      ++runs;
      SortHashes(run, count, sorted.as<uint64_t>());
    });
    (void)runs;
    // Band. Where the band shows a saturated stretch, measure its d and size
    // its columns for it; band again with more slack (the same hashes,
    // starts spread over more slots) while a band without such a stretch
    // would beat the best so far, at most kMaxReBandings times. A cluster of
    // starts often survives the wider bands, so the best band may be an
    // earlier one: it is banded again (the same band) and kept, its d
    // recorded in the filter. Construction never fails.
    //
    // The band's memory is reserved with room for the wider bands (mapped
    // pages cost nothing until touched) and cleared between attempts: a
    // fresh mapping would fault every page in again, which in a VM costs
    // more than the banding itself.
    size_t reserved = static_cast<size_t>(g.num_slots() * kBandReserve) * sizeof(Row);
    auto band = std::make_unique<Scratch>(reserved);  // Zero: every slot empty.
    std::vector<uint64_t> saturated_starts;
    auto band_again = [&](const RibbonGeometry& next) {
      const size_t used = g.num_slots() * sizeof(Row);
      if (next.num_slots() * sizeof(Row) <= reserved) {
        std::memset(band->as<char>(), 0, used);
      } else {
        reserved = next.num_slots() * sizeof(Row);
        band = std::make_unique<Scratch>(reserved);
      }
      g = next;
      return Band(sorted.as<uint64_t>(), n, g.num_starts(), band->as<Row>(), &saturated_starts);
    };
    size_t saturated =
        Band(sorted.as<uint64_t>(), n, g.num_starts(), band->as<Row>(), &saturated_starts);
    RibbonGeometry best;
    for (int attempt = 0;; ++attempt) {
      if (saturated > 0) {
        g.measured_dependent =
            MeasureDependent(band->as<Row>(), g, saturated, saturated_starts);
        g = SizeColumns(g, options_);
      }
      const bool is_best = attempt == 0 || Better(g, best, options_);
      if (is_best) best = g;
      if (saturated > 0 && attempt < kMaxReBandings) {
        const double overhead = static_cast<double>(g.num_slots()) / n - 1.0;
        absl::StatusOr<RibbonGeometry> wider = PlanWithSlack(n, options_, overhead + kReBandStep);
        if (wider.ok() && Better(*wider, best, options_)) {
          saturated = band_again(*wider);
          continue;
        }
      }
      if (!is_best) {
        const uint32_t measured = best.measured_dependent;
        band_again(best);
        g.measured_dependent = measured;  // The same band as before.
      }
      break;
    }
    std::string filter(g.serialized_size(), '\0');
    uint8_t* header = reinterpret_cast<uint8_t*>(filter.data());
    BackSubstitute(band->as<Row>(), g, header + internal::kRibbonHeaderBytes);
    band.reset();
    internal::EncodeRibbonHeader(g, header);
    return filter;
  }
}

}  // namespace lsmbloom
