#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/lookup/filter_budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "src/lookup/filter_model.h"
#include "src/table/table_lookup.h"
#include "src/util/random.h"

namespace lsmbloom {

LevelFilterShape::LevelFilterShape() = default;
LevelFilterShape::LevelFilterShape(uint64_t num_keys, double checks)
    : num_keys(num_keys), checks(checks) {}
FilterAllocation::FilterAllocation() = default;
FilterAllocation::FilterAllocation(const FilterAllocation&) = default;
FilterAllocation::FilterAllocation(FilterAllocation&&) noexcept = default;
FilterAllocation& FilterAllocation::operator=(const FilterAllocation&) = default;
FilterAllocation& FilterAllocation::operator=(FilterAllocation&&) noexcept = default;
FilterAllocation::~FilterAllocation() = default;
LevelFilterAllocation::LevelFilterAllocation() = default;
FilterBudgetOptions::FilterBudgetOptions() = default;
namespace {

using internal::BitsAt;
using internal::kGridPerBit;
using internal::kMaxPoint;
using internal::LevelModel;

absl::Status ValidateLevels(absl::Span<const LevelFilterShape> levels) {
  if (levels.empty()) return absl::InvalidArgumentError("no levels given");
  bool any = false;
  for (size_t i = 0; i < levels.size(); ++i) {
    const double c = levels[i].checks;
    if (!std::isfinite(c) || c < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("level ", i, ": checks must be finite and >= 0, got ", c));
    }
    any = any || (c > 0 && levels[i].num_keys > 0);
  }
  if (!any) return absl::InvalidArgumentError("no level has both keys and checks");
  return absl::OkStatus();
}

// A level gets memory only if it has keys that lookups check.
bool Active(const LevelFilterShape& l) { return l.num_keys > 0 && l.checks > 0; }

absl::Status ValidateBlockedBloomOptions(const FilterBudgetOptions& o) {
  if (o.ribbon_from_level < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ribbon_from_level must be -1 (unset) or >= 0, got ", o.ribbon_from_level));
  }
  if (o.ribbon_from_level == -1 && !o.allow_bloom && !o.allow_ribbon) {
    return absl::InvalidArgumentError("no filter kind allowed: set allow_bloom or allow_ribbon");
  }
  const double costs[] = {o.bloom_probe_ns, o.ribbon_probe_ns, o.false_positive_read_ns};
  const char* names[] = {"bloom_probe_ns", "ribbon_probe_ns", "false_positive_read_ns"};
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(costs[i]) || costs[i] < 0 || (i == 2 && costs[i] == 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          names[i], i == 2 ? " must be positive" : " must be >= 0", " and finite, got ", costs[i]));
    }
  }
  return absl::OkStatus();
}

// The kind a level gets where the options leave it one (uniform bits/key).
FilterKind KindFor(const FilterBudgetOptions& o, size_t level) {
  if (o.ribbon_from_level >= 0) {
    return static_cast<int64_t>(level) < o.ribbon_from_level ? FilterKind::kBlockedBloom
                                                              : FilterKind::kRibbon;
  }
  return o.allow_ribbon ? FilterKind::kRibbon : FilterKind::kBlockedBloom;
}

double ProbeNs(const FilterBudgetOptions& o, FilterKind kind) {
  switch (kind) {
    case FilterKind::kBlockedBloom:
      return o.bloom_probe_ns;
    case FilterKind::kRibbon:
      return o.ribbon_probe_ns;
    case FilterKind::kNone:
    case FilterKind::kClassicBloom:
    case FilterKind::kCustom:
      break;
  }
  return 0;
}

// One level's filter of `kind` at `bits` bits/key (kNone or 0 bits: none),
// its FPR from the exact model (not the grid's table).
LevelFilterAllocation LevelOf(FilterKind kind, double bits) {
  LevelFilterAllocation l;
  if (kind == FilterKind::kNone || bits == 0) return l;
  l.kind = kind;
  l.bits_per_key = bits;
  if (kind == FilterKind::kBlockedBloom) {
    l.num_probes = OptimalBlockedProbes(bits);
    l.fpr = BlockedBloomFpr(bits, l.num_probes);
    l.bloom.bits_per_key = bits;
    l.bloom.num_probes = l.num_probes;
  } else {
    l.ribbon.bits_per_key = bits;
    absl::StatusOr<RibbonGeometry> g = PlanRibbon(internal::kRibbonModelKeys, l.ribbon);
    l.fpr = g.ok() ? g->predicted_fpr() : 1.0;
  }
  return l;
}

// Appends `l` for levels[a.levels.size()] and adds its memory and costs.
void Add(const LevelFilterShape& shape, const FilterBudgetOptions& o, LevelFilterAllocation l,
         FilterAllocation* a) {
  if (Active(shape)) {
    a->memory_bits += static_cast<double>(shape.num_keys) * l.bits_per_key;
    a->expected_cost += shape.checks * l.fpr;
    a->expected_time_ns +=
        shape.checks * (ProbeNs(o, l.kind) + l.fpr * o.false_positive_read_ns);
  }
  a->levels.push_back(std::move(l));
}

// One call's levels with the model each may choose from.
struct Problem {
  absl::Span<const LevelFilterShape> levels;
  FilterBudgetOptions options;
  std::vector<std::unique_ptr<LevelModel>> owned;
  std::vector<const LevelModel*> model;  // One per level.

  double Cost(size_t i, int point) const { return levels[i].checks * model[i]->cost[point]; }
};

Problem MakeProblem(absl::Span<const LevelFilterShape> levels, const FilterBudgetOptions& o) {
  Problem pr;
  pr.levels = levels;
  pr.options = o;
  const bool time = o.objective == FilterObjective::kLookupTime;
  const double bloom_probe = time ? o.bloom_probe_ns / o.false_positive_read_ns : 0;
  const double ribbon_probe = time ? o.ribbon_probe_ns / o.false_positive_read_ns : 0;
  auto make = [&](bool bloom, bool ribbon) {
    pr.owned.push_back(std::make_unique<LevelModel>(
        internal::MakeLevelModel(bloom, ribbon, bloom_probe, ribbon_probe)));
    return pr.owned.back().get();
  };
  if (o.ribbon_from_level >= 0) {
    const LevelModel* bloom = make(true, false);
    const LevelModel* ribbon = make(false, true);
    for (size_t i = 0; i < levels.size(); ++i) {
      pr.model.push_back(static_cast<int64_t>(i) < o.ribbon_from_level ? bloom : ribbon);
    }
  } else {
    pr.model.assign(levels.size(), make(o.allow_bloom, o.allow_ribbon));
  }
  return pr;
}

FilterAllocation FromPoints(const Problem& pr, const std::vector<int>& points) {
  FilterAllocation a;
  for (size_t i = 0; i < pr.levels.size(); ++i) {
    const FilterKind kind = pr.model[i]->kind[points[i]];
    Add(pr.levels[i], pr.options, LevelOf(kind, BitsAt(points[i])), &a);
  }
  return a;
}

// Each level's grid point minimising checks * cost + lambda * keys * bits.
std::vector<int> PointsFor(const Problem& pr, double lambda) {
  std::vector<int> points(pr.levels.size(), 0);
  for (size_t i = 0; i < pr.levels.size(); ++i) {
    const LevelFilterShape& l = pr.levels[i];
    if (!Active(l)) continue;
    const LevelModel& m = *pr.model[i];
    // On the hull, cost + mu * bits is least where the slope passes -mu.
    const double mu = lambda * static_cast<double>(l.num_keys) / l.checks;
    size_t lo = 0, hi = m.hull.size() - 1;  // Answer in [lo, hi].
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      const int a = m.hull[mid], b = m.hull[mid + 1];
      const double slope = (m.cost[b] - m.cost[a]) / (BitsAt(b) - BitsAt(a));
      if (slope < -mu) {
        lo = mid + 1;  // Moving right still pays.
      } else {
        hi = mid;
      }
    }
    points[i] = m.hull[lo];
  }
  return points;
}

double MemoryOf(absl::Span<const LevelFilterShape> levels, const std::vector<int>& points) {
  double bits = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (Active(levels[i])) bits += static_cast<double>(levels[i].num_keys) * BitsAt(points[i]);
  }
  return bits;
}

// The highest grid point whose bits for `keys` keys fit in `bits`: 0 (no
// filter) if not even `min_point` fits.
int Affordable(double bits, uint64_t keys, int min_point) {
  const double n = static_cast<double>(keys);
  int p = static_cast<int>(std::min<double>(kMaxPoint, std::floor(bits / n * kGridPerBit)));
  while (p < kMaxPoint && n * BitsAt(p + 1) <= bits) ++p;
  while (p > 0 && n * BitsAt(p) > bits) --p;
  return p < min_point ? 0 : p;
}

// Spends the budget the hull points left over, one level at a time, where
// it lowers the cost most.
void SpendLeftover(const Problem& pr, double budget_bits, std::vector<int>* points) {
  const auto& levels = pr.levels;
  for (size_t round = 0; round < 4 * levels.size(); ++round) {
    const double left = budget_bits - MemoryOf(levels, *points);
    double best_gain = 0;
    size_t best_level = 0;
    int best_point = 0;
    for (size_t i = 0; i < levels.size(); ++i) {
      if (!Active(levels[i])) continue;
      const int from = (*points)[i];
      const uint64_t n = levels[i].num_keys;
      const int to = Affordable(left + static_cast<double>(n) * BitsAt(from), n,
                                pr.model[i]->min_point);
      if (to <= from) continue;
      const double gain = pr.Cost(i, from) - pr.Cost(i, to);
      if (gain > best_gain) {
        best_gain = gain;
        best_level = i;
        best_point = to;
      }
    }
    if (best_gain <= 0) return;
    (*points)[best_level] = best_point;
  }
}

// Below a few bits/key the FPR curve is not convex (nor is the choice
// between kinds), and the hull points can miss the best split. Re-splits
// the memory of each pair of levels over the whole grid until no pair
// gains.
void ImprovePairs(const Problem& pr, double budget_bits, std::vector<int>* points) {
  const auto& levels = pr.levels;
  std::vector<int>& p = *points;
  for (int round = 0; round < 8; ++round) {
    bool improved = false;
    for (size_t i = 0; i < levels.size(); ++i) {
      for (size_t j = 0; j < levels.size(); ++j) {
        if (i == j || !Active(levels[i]) || !Active(levels[j])) continue;
        const double ni = static_cast<double>(levels[i].num_keys);
        const double nj = static_cast<double>(levels[j].num_keys);
        const double pair_bits =
            budget_bits - MemoryOf(levels, p) + ni * BitsAt(p[i]) + nj * BitsAt(p[j]);
        double best = pr.Cost(i, p[i]) + pr.Cost(j, p[j]);
        int best_i = p[i], best_j = p[j];
        const int min_i = pr.model[i]->min_point;
        for (int q = 0; q <= kMaxPoint; q = (q == 0 ? min_i : q + 1)) {
          const double left = pair_bits - ni * BitsAt(q);
          if (left < 0) break;
          const int r = Affordable(left, levels[j].num_keys, pr.model[j]->min_point);
          const double cost = pr.Cost(i, q) + pr.Cost(j, r);
          if (cost < best * (1 - 1e-12)) {
            best = cost;
            best_i = q;
            best_j = r;
          }
        }
        if (best_i != p[i] || best_j != p[j]) {
          p[i] = best_i;
          p[j] = best_j;
          improved = true;
        }
      }
    }
    if (!improved) return;
  }
}

// The search of AllocateFilterMemory (filter_budget.h) on a valid problem.
FilterAllocation Allocate(const Problem& pr, double budget_bits) {
  const auto& levels = pr.levels;
  // Memory falls as lambda (the price of a bit) rises. Bisect log(lambda)
  // between a price at which every level takes 30 bits/key and one at which
  // none takes any.
  double lo = -100, hi = 10;  // Natural logs.
  while (hi < 700 && MemoryOf(levels, PointsFor(pr, std::exp(hi))) > budget_bits) {
    hi += 10;  // Levels checked very often per key need a higher price.
  }
  std::vector<int> points = PointsFor(pr, std::exp(lo));
  if (MemoryOf(levels, points) > budget_bits) {
    for (int iter = 0; iter < 100; ++iter) {
      const double mid = (lo + hi) / 2;
      if (MemoryOf(levels, PointsFor(pr, std::exp(mid))) > budget_bits) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    points = PointsFor(pr, std::exp(hi));
  }
  SpendLeftover(pr, budget_bits, &points);
  ImprovePairs(pr, budget_bits, &points);
  return FromPoints(pr, points);
}

// What the options' objective says of `a`.
double ObjectiveOf(const FilterBudgetOptions& o, const FilterAllocation& a) {
  return o.objective == FilterObjective::kLookupTime ? a.expected_time_ns : a.expected_cost;
}

}  // namespace

absl::StatusOr<FilterAllocation> AllocateFilterMemory(absl::Span<const LevelFilterShape> levels,
                                                      double budget_bytes,
                                                      const FilterBudgetOptions& options) {
  absl::Status s = ValidateLevels(levels);
  if (s.ok()) s = ValidateBlockedBloomOptions(options);
  if (!s.ok()) return s;
  if (!std::isfinite(budget_bytes) || budget_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the budget must be positive and finite, got ", budget_bytes));
  }
  return Allocate(MakeProblem(levels, options), 8 * budget_bytes);
}

absl::StatusOr<FilterAllocation> AllocateFilterBitsPerKey(absl::Span<const LevelFilterShape> levels,
                                                          double avg_bits_per_key,
                                                          const FilterBudgetOptions& options) {
  absl::Status s = ValidateLevels(levels);
  if (!s.ok()) return s;
  if (!std::isfinite(avg_bits_per_key) || avg_bits_per_key <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("average bits/key must be positive and finite, got ", avg_bits_per_key));
  }
  double keys = 0;
  for (const LevelFilterShape& l : levels) {
    if (Active(l)) keys += static_cast<double>(l.num_keys);
  }
  return AllocateFilterMemory(levels, keys * avg_bits_per_key / 8, options);
}

absl::StatusOr<FilterAllocation> UniformFilterAllocation(absl::Span<const LevelFilterShape> levels,
                                                         double bits_per_key,
                                                         const FilterBudgetOptions& options) {
  absl::Status s = ValidateLevels(levels);
  if (s.ok()) s = ValidateBlockedBloomOptions(options);
  if (!s.ok()) return s;
  FilterAllocation a;
  for (size_t i = 0; i < levels.size(); ++i) {
    const FilterKind kind = KindFor(options, i);
    const double min = kind == FilterKind::kRibbon ? 1.1 : 0.1;
    if (!(bits_per_key == 0 || (bits_per_key >= min && bits_per_key <= 30))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "level ", i, ": ", kind == FilterKind::kRibbon ? "Ribbon" : "Bloom",
          " bits/key must be 0 or in [", min, ", 30], got ", bits_per_key));
    }
    Add(levels[i], options, LevelOf(kind, bits_per_key), &a);
  }
  return a;
}

absl::StatusOr<FilterAllocation> MinimumFilterMemory(absl::Span<const LevelFilterShape> levels,
                                                     double target_cost,
                                                     const FilterBudgetOptions& options) {
  absl::Status s = ValidateLevels(levels);
  if (s.ok()) s = ValidateBlockedBloomOptions(options);
  if (!s.ok()) return s;
  if (!std::isfinite(target_cost) || target_cost <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the target cost must be positive and finite, got ", target_cost));
  }
  const Problem pr = MakeProblem(levels, options);
  double keys = 0;
  for (const LevelFilterShape& l : levels) {
    if (Active(l)) keys += static_cast<double>(l.num_keys);
  }
  FilterAllocation none = FromPoints(pr, std::vector<int>(levels.size(), 0));
  if (target_cost >= ObjectiveOf(options, none)) return none;
  // The most memory that can be spent, in bits; its cost is the least.
  double hi = keys * BitsAt(kMaxPoint);
  FilterAllocation best = Allocate(pr, hi);
  if (ObjectiveOf(options, best) > target_cost) {
    return absl::InvalidArgumentError(absl::StrCat("target cost ", target_cost, " is below the ",
                                                   ObjectiveOf(options, best),
                                                   " that 30 bits/key everywhere reaches"));
  }
  // Cost falls as the budget grows: bisect to the least budget that meets
  // the target.
  double lo = 0;
  while (hi - lo > 1e-3 * hi) {
    const double mid = (lo + hi) / 2;
    FilterAllocation a = Allocate(pr, mid);
    if (ObjectiveOf(options, a) <= target_cost) {
      hi = mid;
      best = std::move(a);
    } else {
      lo = mid;
    }
  }
  return best;
}

absl::StatusOr<std::shared_ptr<const FilterPolicy>> FilterPolicyFor(
    const LevelFilterAllocation& level) {
  switch (level.kind) {
    case FilterKind::kBlockedBloom:
      return NewBlockedBloomPolicy(level.bloom);
    case FilterKind::kRibbon:
      return NewRibbonPolicy(level.ribbon);
    case FilterKind::kNone:
    case FilterKind::kClassicBloom:
    case FilterKind::kCustom:
      break;
  }
  return std::shared_ptr<const FilterPolicy>();
}

double ExpectedFalsePositiveReads(absl::Span<const LevelFilterShape> levels,
                                  absl::Span<const double> bits_per_key) {
  double cost = 0;
  for (size_t i = 0; i < levels.size() && i < bits_per_key.size(); ++i) {
    if (!Active(levels[i])) continue;
    const double b = bits_per_key[i];
    cost += levels[i].checks * (b > 0 ? BlockedBloomFpr(b, OptimalBlockedProbes(b)) : 1.0);
  }
  return cost;
}

std::vector<LevelFilterShape> FilterShapesOf(const LookupStats& stats) {
  std::vector<LevelFilterShape> shapes;
  for (size_t level = 0; level < stats.levels.size(); ++level) {
    const LevelStats& l = stats.levels[level];
    const double checks = l.files == 0 ? 0 : level == 0 ? static_cast<double>(l.files) : 1;
    shapes.push_back({l.entries, checks});
  }
  return shapes;
}

absl::StatusOr<double> MeasureFalsePositiveReadNanos(const Table& table, int samples) {
  using internal::TableLookup;
  const size_t blocks = TableLookup::NumDataBlocks(table);
  if (samples < 1 || blocks == 0) {
    return absl::InvalidArgumentError(absl::StrCat("MeasureFalsePositiveReadNanos: ", samples,
                                                   " samples of a table of ", blocks,
                                                   " data blocks"));
  }
  const RandomAccessFile& file = TableLookup::File(table);
  std::vector<double> ns;
  std::string buffer;
  for (int i = 0; i < samples; ++i) {
    uint64_t offset;
    size_t size;
    TableLookup::DataBlockRange(table, internal::SplitMix64(i + 0x5eed) % blocks, &offset, &size);
    buffer.resize(size);
    std::string_view got;
    const auto start = std::chrono::steady_clock::now();
    const absl::Status s = file.Read(offset, size, &buffer[0], &got);
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) return s;
    ns.push_back(std::chrono::duration<double, std::nano>(end - start).count());
  }
  std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
  return std::max(1.0, ns[ns.size() / 2]);
}

}  // namespace lsmbloom
