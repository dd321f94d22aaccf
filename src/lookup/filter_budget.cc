#include "lsmbloom/lookup/filter_budget.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/bloom_math.h"

namespace lsmbloom {

LevelFilterShape::LevelFilterShape() = default;
LevelFilterShape::LevelFilterShape(uint64_t num_keys, double checks)
    : num_keys(num_keys), checks(checks) {}
LevelFilterAllocation::LevelFilterAllocation() = default;
FilterAllocation::FilterAllocation() = default;
FilterAllocation::FilterAllocation(const FilterAllocation&) = default;
FilterAllocation::FilterAllocation(FilterAllocation&&) noexcept = default;
FilterAllocation& FilterAllocation::operator=(const FilterAllocation&) = default;
FilterAllocation& FilterAllocation::operator=(FilterAllocation&&) noexcept = default;
FilterAllocation::~FilterAllocation() = default;
namespace {

// Bits/key come in hundredths: grid point j is j/100 bits/key. Point 0 is
// "no filter"; 1..9 are below what a builder accepts and are skipped.
constexpr int kGridPerBit = 100;
constexpr int kMinPoint = 10;    // 0.1 bits/key, the builder's minimum.
constexpr int kMaxPoint = 3000;  // 30 bits/key.

double BitsAt(int point) { return static_cast<double>(point) / kGridPerBit; }

// The model over the grid, and the lower convex hull of its points
// (bits, FPR), on which every Lagrangian optimum lies.
struct Model {
  double fpr[kMaxPoint + 1];
  int probes[kMaxPoint + 1];
  std::vector<int> hull;  // Grid points, bits ascending, slopes ascending.
};

const Model& TheModel() {
  static const Model* model = [] {
    auto* m = new Model;
    m->fpr[0] = 1.0;
    m->probes[0] = 0;
    for (int p = 1; p < kMinPoint; ++p) {
      m->fpr[p] = 1.0;
      m->probes[p] = 0;
    }
    // The FPR is unimodal in k and its optimum grows with bits/key: walking
    // from the last point's k finds the same k as OptimalBlockedProbes
    // (tested) with about 3 evaluations of the model instead of 16.
    int k = 1;
    for (int p = kMinPoint; p <= kMaxPoint; ++p) {
      const double b = BitsAt(p);
      double best_fpr = BlockedBloomFpr(b, k);
      while (k > 1) {
        const double f = BlockedBloomFpr(b, k - 1);
        if (f > best_fpr) break;  // Ties go to the smaller k, as there.
        --k;
        best_fpr = f;
      }
      while (k < kMaxProbesPerKey) {
        const double f = BlockedBloomFpr(b, k + 1);
        if (!(f < best_fpr)) break;
        ++k;
        best_fpr = f;
      }
      m->fpr[p] = best_fpr;
      m->probes[p] = k;
    }
    // Andrew's monotone chain over point 0 and the usable points.
    auto cross = [m](int o, int a, int b) {
      return (BitsAt(a) - BitsAt(o)) * (m->fpr[b] - m->fpr[o]) -
             (m->fpr[a] - m->fpr[o]) * (BitsAt(b) - BitsAt(o));
    };
    m->hull.push_back(0);
    for (int p = kMinPoint; p <= kMaxPoint; ++p) {
      while (m->hull.size() >= 2 && cross(m->hull[m->hull.size() - 2], m->hull.back(), p) <= 0) {
        m->hull.pop_back();
      }
      m->hull.push_back(p);
    }
    return m;
  }();
  return *model;
}

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

FilterAllocation FromPoints(absl::Span<const LevelFilterShape> levels,
                            const std::vector<int>& points) {
  const Model& m = TheModel();
  FilterAllocation a;
  for (size_t i = 0; i < levels.size(); ++i) {
    LevelFilterAllocation l;
    l.bits_per_key = BitsAt(points[i]);
    l.num_probes = m.probes[points[i]];
    l.fpr = m.fpr[points[i]];
    a.levels.push_back(l);
    if (!Active(levels[i])) continue;
    a.memory_bits += static_cast<double>(levels[i].num_keys) * l.bits_per_key;
    a.expected_cost += levels[i].checks * l.fpr;
  }
  return a;
}

// Each level's grid point minimising checks * FPR + lambda * keys * bits.
std::vector<int> PointsFor(absl::Span<const LevelFilterShape> levels, double lambda) {
  const Model& m = TheModel();
  std::vector<int> points(levels.size(), 0);
  for (size_t i = 0; i < levels.size(); ++i) {
    if (!Active(levels[i])) continue;
    // On the hull, FPR + mu * bits is least where the slope passes -mu.
    const double mu = lambda * static_cast<double>(levels[i].num_keys) / levels[i].checks;
    size_t lo = 0, hi = m.hull.size() - 1;  // Answer in [lo, hi].
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      const int a = m.hull[mid], b = m.hull[mid + 1];
      const double slope = (m.fpr[b] - m.fpr[a]) / (BitsAt(b) - BitsAt(a));
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
// filter) if not even the builder's minimum fits.
int Affordable(double bits, uint64_t keys) {
  const double n = static_cast<double>(keys);
  int p = static_cast<int>(std::min<double>(kMaxPoint, std::floor(bits / n * kGridPerBit)));
  while (p < kMaxPoint && n * BitsAt(p + 1) <= bits) ++p;
  while (p > 0 && n * BitsAt(p) > bits) --p;
  return p < kMinPoint ? 0 : p;
}

// Spends the budget the hull points left over, one level at a time, where
// it lowers the cost most.
void SpendLeftover(absl::Span<const LevelFilterShape> levels, double budget_bits,
                   std::vector<int>* points) {
  const Model& m = TheModel();
  for (size_t round = 0; round < 4 * levels.size(); ++round) {
    const double left = budget_bits - MemoryOf(levels, *points);
    double best_gain = 0;
    size_t best_level = 0;
    int best_point = 0;
    for (size_t i = 0; i < levels.size(); ++i) {
      if (!Active(levels[i])) continue;
      const int from = (*points)[i];
      const uint64_t n = levels[i].num_keys;
      const int to = Affordable(left + static_cast<double>(n) * BitsAt(from), n);
      if (to <= from) continue;
      const double gain = levels[i].checks * (m.fpr[from] - m.fpr[to]);
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

// Below a few bits/key the FPR curve is not convex, and the hull points
// can miss the best split. Re-splits the memory of each pair of levels over
// the whole grid until no pair gains.
void ImprovePairs(absl::Span<const LevelFilterShape> levels, double budget_bits,
                  std::vector<int>* points) {
  const Model& m = TheModel();
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
        const double now = levels[i].checks * m.fpr[p[i]] + levels[j].checks * m.fpr[p[j]];
        double best = now;
        int best_i = p[i], best_j = p[j];
        for (int q = 0; q <= kMaxPoint; q = (q == 0 ? kMinPoint : q + 1)) {
          const double left = pair_bits - ni * BitsAt(q);
          if (left < 0) break;
          const int r = Affordable(left, levels[j].num_keys);
          const double cost = levels[i].checks * m.fpr[q] + levels[j].checks * m.fpr[r];
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

}  // namespace

absl::StatusOr<FilterAllocation> AllocateFilterMemory(absl::Span<const LevelFilterShape> levels,
                                                      double budget_bytes) {
  absl::Status s = ValidateLevels(levels);
  if (!s.ok()) return s;
  if (!std::isfinite(budget_bytes) || budget_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the budget must be positive and finite, got ", budget_bytes));
  }
  const double budget_bits = 8 * budget_bytes;
  // Memory falls as lambda (the price of a bit) rises. Bisect log(lambda)
  // between a price at which every level takes 30 bits/key and one at which
  // none takes any.
  double lo = -100, hi = 10;  // Natural logs.
  while (hi < 700 && MemoryOf(levels, PointsFor(levels, std::exp(hi))) > budget_bits) {
    hi += 10;  // Levels checked very often per key need a higher price.
  }
  std::vector<int> points = PointsFor(levels, std::exp(lo));
  if (MemoryOf(levels, points) > budget_bits) {
    for (int iter = 0; iter < 100; ++iter) {
      const double mid = (lo + hi) / 2;
      if (MemoryOf(levels, PointsFor(levels, std::exp(mid))) > budget_bits) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    points = PointsFor(levels, std::exp(hi));
  }
  SpendLeftover(levels, budget_bits, &points);
  ImprovePairs(levels, budget_bits, &points);
  return FromPoints(levels, points);
}

absl::StatusOr<FilterAllocation> AllocateFilterBitsPerKey(absl::Span<const LevelFilterShape> levels,
                                                          double avg_bits_per_key) {
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
  return AllocateFilterMemory(levels, keys * avg_bits_per_key / 8);
}

absl::StatusOr<FilterAllocation> UniformFilterAllocation(absl::Span<const LevelFilterShape> levels,
                                                         double bits_per_key) {
  absl::Status s = ValidateLevels(levels);
  if (!s.ok()) return s;
  if (!(bits_per_key == 0 || (bits_per_key >= 0.1 && bits_per_key <= 30))) {
    return absl::InvalidArgumentError(
        absl::StrCat("bits/key must be 0 or in [0.1, 30], got ", bits_per_key));
  }
  FilterAllocation a;
  for (size_t i = 0; i < levels.size(); ++i) {
    LevelFilterAllocation l;
    if (bits_per_key > 0) {
      l.bits_per_key = bits_per_key;
      l.num_probes = OptimalBlockedProbes(bits_per_key);
      l.fpr = BlockedBloomFpr(bits_per_key, l.num_probes);
    }
    a.levels.push_back(l);
    if (!Active(levels[i])) continue;
    a.memory_bits += static_cast<double>(levels[i].num_keys) * l.bits_per_key;
    a.expected_cost += levels[i].checks * l.fpr;
  }
  return a;
}

absl::StatusOr<FilterAllocation> MinimumFilterMemory(absl::Span<const LevelFilterShape> levels,
                                                     double target_cost) {
  absl::Status s = ValidateLevels(levels);
  if (!s.ok()) return s;
  if (!std::isfinite(target_cost) || target_cost <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the target cost must be positive and finite, got ", target_cost));
  }
  double keys = 0, no_filters = 0;
  for (const LevelFilterShape& l : levels) {
    if (!Active(l)) continue;
    keys += static_cast<double>(l.num_keys);
    no_filters += l.checks;
  }
  if (target_cost >= no_filters) return FromPoints(levels, std::vector<int>(levels.size(), 0));
  // The most memory that can be spent, in bytes; its cost is the least.
  double hi = keys * BitsAt(kMaxPoint) / 8;
  absl::StatusOr<FilterAllocation> best = AllocateFilterMemory(levels, hi);
  if (!best.ok()) return best.status();
  if (best->expected_cost > target_cost) {
    return absl::InvalidArgumentError(absl::StrCat("target cost ", target_cost, " is below the ",
                                                   best->expected_cost,
                                                   " that 30 bits/key everywhere reaches"));
  }
  // Cost falls as the budget grows: bisect to the least budget that meets
  // the target.
  double lo = 0;
  while (hi - lo > 1e-3 * hi) {
    const double mid = (lo + hi) / 2;
    absl::StatusOr<FilterAllocation> a = AllocateFilterMemory(levels, mid);
    if (!a.ok()) return a.status();
    if (a->expected_cost <= target_cost) {
      hi = mid;
      best = std::move(a);
    } else {
      lo = mid;
    }
  }
  return best;
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

}  // namespace lsmbloom
