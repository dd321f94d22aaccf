// The Ribbon builder: sizing, banding (Gaussian elimination as equations
// arrive) and back-substitution into interleaved solution storage.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

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

// The slacks PlanRibbon tries: RibbonSlotOverhead(n) + i * kOverheadStep.
constexpr int kOverheadSteps = 13;
constexpr double kOverheadStep = 0.005;

// Re-banding after a saturated band (Band, Finish): each adds this much to
// the smallest slack tried, at most this many times.
constexpr int kMaxReBandings = 4;
constexpr double kReBandStep = 0.005;
// Band memory reserved, as a multiple of the first band's: room for the
// re-bandings' wider bands.
constexpr double kBandReserve = 1.03;

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

double PredictedFpr(const RibbonGeometry& g, double overhead) {
  return RibbonFpr(g.num_columns, g.upper_fraction(),
                   RibbonDependentFraction(g.num_keys, overhead));
}

// The smallest filter over `segments` whose predicted FPR is at most
// `target`, or the largest if none is (then its FPR is above the target).
RibbonGeometry SmallestMeeting(RibbonGeometry g, double overhead, double target) {
  uint64_t lo = g.num_segments;                        // 1 column everywhere.
  uint64_t hi = g.num_segments * kRibbonMaxColumns;    // 32 everywhere.
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    SpreadWords(mid, g);
    if (PredictedFpr(g, overhead) <= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  SpreadWords(lo, g);
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

double RibbonGeometry::predicted_fpr() const {
  if (num_keys == 0) return 0.0;
  const double overhead = static_cast<double>(num_slots()) / num_keys - 1.0;
  return PredictedFpr(*this, overhead);
}

namespace {

// PlanRibbon with the smallest slack tried set to `min_overhead`.
absl::StatusOr<RibbonGeometry> PlanWithSlack(uint64_t num_keys, const RibbonOptions& options,
                                             double min_overhead) {
  absl::Status valid = ValidateRibbonOptions(options);
  if (!valid.ok()) return valid;
  RibbonGeometry g;
  g.hash = options.hash;
  g.num_keys = num_keys;
  if (num_keys == 0) return g;  // No segments, r = 1, upper_start 0.
  // More slack makes dependent keys rarer but spreads the solution bits over
  // more slots. Try slacks from the smallest up: with a target, keep the
  // smallest filter meeting it; with bits/key, the lowest predicted FPR.
  bool have_best = false;
  RibbonGeometry best;
  double best_fpr = 0.0;
  for (int step = 0; step < kOverheadSteps; ++step) {
    RibbonGeometry candidate = g;
    candidate.num_segments = SegmentsFor(num_keys, min_overhead + kOverheadStep * step);
    if (candidate.num_segments > kRibbonMaxSegments) {
      if (step == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            num_keys, " keys need more than 2^26 Ribbon segments; split the table"));
      }
      break;
    }
    if (options.target_fpr > 0.0) {
      const double overhead = static_cast<double>(candidate.num_slots()) / num_keys - 1.0;
      candidate = SmallestMeeting(candidate, overhead, options.target_fpr);
    } else {
      const double words = std::floor(options.bits_per_key * num_keys / 64.0);
      SpreadWords(std::clamp(static_cast<uint64_t>(words), candidate.num_segments,
                             candidate.num_segments * kRibbonMaxColumns),
                  candidate);
    }
    const double fpr = candidate.predicted_fpr();
    const bool better =
        options.target_fpr > 0.0
            ? (fpr <= options.target_fpr &&
               (best_fpr > options.target_fpr ||
                candidate.solution_words() < best.solution_words())) ||
                  (fpr < best_fpr && best_fpr > options.target_fpr)
            : fpr < best_fpr;
    if (!have_best || better) {
      best = candidate;
      best_fpr = fpr;
      have_best = true;
    }
  }
  return best;
}

}  // namespace

absl::StatusOr<RibbonGeometry> PlanRibbon(uint64_t num_keys, const RibbonOptions& options) {
  return PlanWithSlack(num_keys, options, RibbonSlotOverhead(num_keys));
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
// their start. Where the band has no such equation, no absent key was seen
// to depend on the added ones (measured: 0 of 10^6 probes on 13 of 13 such
// filters of 10^6 keys); a saturated stretch makes absent keys starting in
// it match always, up to d = 2.6e-3 at 4.5% slack, and shows as tens to
// hundreds of such equations.
constexpr uint64_t kDeepPivot = 120;

size_t Band(const uint64_t* hashes, size_t n, uint64_t num_starts, Row* band) {
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
        saturated += slot - start >= kDeepPivot;
        break;
      }
      row ^= existing;
      if (row == 0) {
        ++saturated;
        break;
      }
      const int skip = CountTrailingZeros(row);
      slot += skip;
      row >>= skip;
    }
  }
  return saturated;
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
    // Band; where the band shows a saturated stretch, band again with more
    // slack (the same hashes, starts spread over more slots), at most
    // kMaxReBandings times, and keep the last: construction never fails.
    //
    // The band's memory is reserved with room for the wider bands (mapped
    // pages cost nothing until touched) and cleared between attempts: a
    // fresh mapping would fault every page in again, which in a VM costs
    // more than the banding itself.
    size_t reserved = static_cast<size_t>(g.num_slots() * kBandReserve) * sizeof(Row);
    auto band = std::make_unique<Scratch>(reserved);  // Zero: every slot empty.
    for (int attempt = 0;; ++attempt) {
      const size_t saturated = Band(sorted.as<uint64_t>(), n, g.num_starts(), band->as<Row>());
      if (saturated > 0 && attempt < kMaxReBandings) {
        const double overhead = static_cast<double>(g.num_slots()) / n - 1.0;
        absl::StatusOr<RibbonGeometry> wider =
            PlanWithSlack(n, options_, overhead + kReBandStep);
        if (wider.ok()) {
          const size_t used = g.num_slots() * sizeof(Row);
          g = *wider;
          if (g.num_slots() * sizeof(Row) <= reserved) {
            std::memset(band->as<char>(), 0, used);
          } else {
            reserved = g.num_slots() * sizeof(Row);
            band = std::make_unique<Scratch>(reserved);
          }
          continue;
        }
      }
      std::string filter(g.serialized_size(), '\0');
      uint8_t* header = reinterpret_cast<uint8_t*>(filter.data());
      BackSubstitute(band->as<Row>(), g, header + internal::kRibbonHeaderBytes);
      band.reset();
      internal::EncodeRibbonHeader(g, header);
      return filter;
    }
  }
}

}  // namespace lsmbloom
