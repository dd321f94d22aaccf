// The Ribbon builder: options, sizing (PlanRibbon), and Finish, which bands
// the hashes (ribbon_band.h) as often as it pays and writes the filter, or,
// over the construction bound, leaves it to FinishBloomFallback
// (ribbon_fallback.cc).

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/filter/ribbon/ribbon_layout.h"
#include "lsmbloom/filter/ribbon_math.h"
#include "src/filter/ribbon/ribbon_slack.h"
#include "src/filter/hash_buffer.h"
#include "src/filter/huge_pages.h"
#include "src/filter/ribbon/ribbon_band.h"
#include "src/filter/ribbon/ribbon_format.h"

namespace lsmbloom {

RibbonOptions::RibbonOptions() = default;
namespace {

using internal::kRibbonMaxColumns;
using internal::kRibbonMaxSegments;
using internal::kRibbonSegmentSlots;
using internal::RibbonRow;
using internal::ZeroedLines;

// The slacks PlanRibbon tries: RibbonSlotOverhead(n) + i * kPlanStep.
constexpr int kPlanSteps = 13;
constexpr double kPlanStep = 0.005;

// Banding again after a saturated band (Finish), at most this many times:
// with another layout seed, and every second time this much more slack.
constexpr int kMaxReBandings = 8;
constexpr double kReBandStep = 0.0025;
// Band memory reserved, as a multiple of the first band's: room for the
// re-bandings' wider bands.
constexpr double kBandReserve = 1.025;
// Scratch (sorted hashes, the band) is mapped with huge pages from 2 MiB
// on: the builder writes every page of it once, and in a VM each 4 KiB page
// fault costs microseconds (measured here: malloc and memset of the band
// took about half of a 10^6-key build).
constexpr size_t kScratchMapFrom = size_t{2} << 20;
// A construction bound below this is most likely a units mistake.
constexpr size_t kMinConstructionBytes = size_t{1} << 20;

// The band's reserved bytes for a first band of g (kBandReserve).
size_t ReservedBandBytes(const RibbonGeometry& g) {
  return static_cast<size_t>(g.num_slots() * kBandReserve) * sizeof(RibbonRow);
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
  uint64_t lo = g.num_segments;                      // 1 column everywhere.
  uint64_t hi = g.num_segments * kRibbonMaxColumns;  // 32 everywhere.
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

// Whether banding again for filter a pays against keeping b: a must be 1%
// smaller, or at the same bits/key 5% more accurate (about the same in
// bits). Laying the keys out again and banding them costs about 60% of a
// build (10^7 keys): a filter 0.8% smaller (a band whose d is 4e-4 at 1%
// FPR, kept) is not worth it; one 5% smaller (d = 2.6e-3) is.
bool WorthBandingAgain(const RibbonGeometry& a, const RibbonGeometry& b,
                       const RibbonOptions& options) {
  if (options.target_fpr > 0.0) {
    return static_cast<double>(a.solution_words()) < 0.99 * static_cast<double>(b.solution_words());
  }
  return a.predicted_fpr() < 0.95 * b.predicted_fpr();
}

// The columns of a band of g's segments: the smallest meeting the target
// FPR, or those the bits/key buy.
RibbonGeometry SizeColumns(RibbonGeometry g, const RibbonOptions& options) {
  if (options.target_fpr > 0.0) return SmallestMeeting(g, options.target_fpr);
  const double words = std::floor(options.bits_per_key * g.num_keys / 64.0);
  SpreadWords(
      std::clamp(static_cast<uint64_t>(words), g.num_segments, g.num_segments * kRibbonMaxColumns),
      g);
  return g;
}

}  // namespace

absl::Status ValidateRibbonOptions(const RibbonOptions& options) {
  if (options.target_fpr != 0.0 && !(options.target_fpr >= 1e-9 && options.target_fpr <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_fpr must be in [1e-9, 0.5] or 0 for unset, got ", options.target_fpr));
  }
  if (options.target_fpr == 0.0 && !(options.bits_per_key >= 1.1 && options.bits_per_key <= 34.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bits_per_key must be in [1.1, 34], got ", options.bits_per_key));
  }
  if (options.hash.id != HashId::kXxh3_64) {
    return absl::InvalidArgumentError("unknown hash id");
  }
  if (options.max_construction_bytes != 0 &&
      options.max_construction_bytes < kMinConstructionBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_construction_bytes must be 0 (no bound) or at least 1 MiB (",
                     kMinConstructionBytes, "), got ", options.max_construction_bytes));
  }
  return absl::OkStatus();
}

uint64_t RibbonConstructionBytes(const RibbonGeometry& g) {
  // The band's peak: the sorted hashes and the band's reserved room, which
  // the wider bands of re-layouts use and which a re-layout's scratch lives
  // in (Finish). Finish frees the hashes before it allocates the filter (at
  // most 4 bytes per slot, 32 columns, so less than they held), and before
  // the band exists holds at most 18 bytes per key (the buffer, its sorted
  // copy and the sort's buckets), less than the band alone.
  return g.num_keys * sizeof(uint64_t) + ReservedBandBytes(g);
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
  absl::StatusOr<RibbonGeometry> best =
      PlanWithSlack(num_keys, options, RibbonSlotOverhead(num_keys));
  if (!best.ok() || num_keys == 0) return best;
  for (int step = 1; step < kPlanSteps; ++step) {
    absl::StatusOr<RibbonGeometry> candidate =
        PlanWithSlack(num_keys, options, RibbonSlotOverhead(num_keys) + kPlanStep * step);
    if (!candidate.ok()) break;  // Too many segments: the smaller slacks stand.
    const double target = options.target_fpr;
    const bool meets = candidate->predicted_fpr() <= target;
    const bool best_meets = best->predicted_fpr() <= target;
    if (target > 0.0
            ? (meets && (!best_meets || Better(*candidate, *best, options))) ||
                  (!meets && !best_meets && candidate->predicted_fpr() < best->predicted_fpr())
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
  fell_back_ = false;
  const size_t bound = options_.max_construction_bytes;
  if (bound != 0 && RibbonConstructionBytes(g) > bound) {
    ++num_fallbacks_;
    fell_back_ = true;
    return FinishBloomFallback(g);
  }
  if (n == 0) {
    hashes_->Drain([](const uint64_t*, size_t) {});  // Releases its memory.
    std::string filter(g.serialized_size(), '\0');
    internal::EncodeRibbonHeader(g, reinterpret_cast<uint8_t*>(filter.data()));
    return filter;
  }
  {
    // Placed hashes (layout 0: the hashes themselves) sorted by value are
    // sorted by start, and make the bytes independent of the order keys
    // arrived in.
    auto sorted = std::make_unique<ZeroedLines>(n * sizeof(uint64_t), kScratchMapFrom);
    size_t runs = 0;
    hashes_->Drain([&](const uint64_t* run, size_t count) {
      // A HashBuffer made without a grouping threshold hands out one run.
      assert(runs == 0 && count == n);
      ++runs;
      internal::SortRibbonHashes(run, count, sorted->as<uint64_t>());
    });
    (void)runs;
    // Band. Where the band shows a saturated stretch (starts clustered
    // beyond what the band holds), measure its d and size its columns for
    // it; then, while a band without such a stretch would beat the best so
    // far by enough to pay for banding (WorthBandingAgain), at most
    // kMaxReBandings times, band again: first with another
    // layout seed at the same slack (the keys' starts laid out anew, where
    // the cluster is gone), then with more slack too, every second time.
    // The best band is kept (banded again if it was an earlier one), its d
    // and seed recorded in the filter. Construction never fails.
    //
    // The band's memory is reserved with room for the wider bands (mapped
    // pages cost nothing until touched) and cleared between attempts: a
    // fresh mapping would fault every page in again, which in a VM costs
    // more than the banding itself.
    size_t reserved = ReservedBandBytes(g);
    auto band =
        std::make_unique<ZeroedLines>(reserved, kScratchMapFrom);  // Zero: every slot empty.
    std::vector<uint64_t> saturated_starts;
    auto band_with = [&](const RibbonGeometry& layout) {
      return internal::BandRibbon(sorted->as<uint64_t>(), n,
                                  internal::RibbonStartMultiplier(layout.layout_seed),
                                  layout.num_starts(), band->as<RibbonRow>(), &saturated_starts);
    };
    // Another layout's placed hashes, sorted in turn: from the sorted ones
    // of the last layout, through one multiplier (undo the last, apply the
    // new), and back sorted. The scratch (8 bytes per hash and the sort's
    // counts, under 10) is the band's own memory, 16 bytes per slot, done
    // with at that point and cleared after: a second copy of the hashes
    // would raise Finish's peak by a third (RibbonConstructionBytes).
    uint8_t sorted_seed = 0;
    auto lay_out = [&](uint8_t seed) {
      if (seed == sorted_seed) return;
      const uint64_t m = internal::InverseMultiplier(internal::RibbonStartMultiplier(sorted_seed)) *
                         internal::RibbonStartMultiplier(seed);
      const uint64_t* from = sorted->as<uint64_t>();
      uint64_t* to = band->as<uint64_t>();
      assert(n * sizeof(uint64_t) + internal::SortRibbonHashesScratch(n) <=
             g.num_slots() * sizeof(RibbonRow));
      for (size_t i = 0; i < n; ++i) to[i] = from[i] * m;
      internal::SortRibbonHashes(to, n, sorted->as<uint64_t>(), reinterpret_cast<uint32_t*>(to + n));
      sorted_seed = seed;
    };
    auto band_again = [&](const RibbonGeometry& next) {
      lay_out(next.layout_seed);  // In the band's memory, so before it is cleared.
      const size_t used = g.num_slots() * sizeof(RibbonRow);
      if (next.num_slots() * sizeof(RibbonRow) <= reserved) {
        std::memset(band->as<char>(), 0, used);  // The scratch lay within.
      } else {
        band.reset();
        reserved = next.num_slots() * sizeof(RibbonRow);
        band = std::make_unique<ZeroedLines>(reserved, kScratchMapFrom);
      }
      g = next;
      return band_with(g);
    };
    size_t saturated = band_with(g);  // Layout 0: the hashes as sorted.
    const double first_overhead = static_cast<double>(g.num_slots()) / n - 1.0;
    RibbonGeometry same_slack = g;  // The plan at the current slack.
    RibbonGeometry best;
    for (int attempt = 0;; ++attempt) {
      if (saturated > 0) {
        g.measured_dependent = internal::MeasureRibbonDependence(band->as<RibbonRow>(), g,
                                                                 saturated, saturated_starts);
        g = SizeColumns(g, options_);
      }
      const bool is_best = attempt == 0 || Better(g, best, options_);
      if (is_best) best = g;
      if (saturated > 0 && attempt < kMaxReBandings) {
        const int next_attempt = attempt + 1;
        absl::StatusOr<RibbonGeometry> next = same_slack;
        if (next_attempt % 2 == 0) {
          next = PlanWithSlack(n, options_, first_overhead + kReBandStep * (next_attempt / 2));
        }
        if (next.ok()) next->layout_seed = static_cast<uint8_t>(next_attempt);
        if (next.ok() && WorthBandingAgain(*next, best, options_)) {
          same_slack = *next;
          saturated = band_again(*next);
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
    // The hashes are done with: freed before the filter is allocated, so
    // the peak stays the band's (RibbonConstructionBytes).
    sorted.reset();
    std::string filter(g.serialized_size(), '\0');
    uint8_t* header = reinterpret_cast<uint8_t*>(filter.data());
    internal::BackSubstituteRibbon(band->as<RibbonRow>(), g, header + internal::kRibbonHeaderBytes);
    band.reset();
    internal::EncodeRibbonHeader(g, header);
    return filter;
  }
}

}  // namespace lsmbloom
