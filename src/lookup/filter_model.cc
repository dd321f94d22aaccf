#include "src/lookup/filter_model.h"

#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {

const FprCurves& TheCurves() {
  static const FprCurves* curves = [] {
    auto* c = new FprCurves;
    for (int p = 0; p <= kMaxPoint; ++p) {
      c->bloom_fpr[p] = 1.0;
      c->bloom_probes[p] = 0;
      c->ribbon_fpr[p] = 1.0;
    }
    // The FPR is unimodal in k and its optimum grows with bits/key: walking
    // from the last point's k finds the same k as OptimalBlockedProbes
    // (tested) with about 3 evaluations of the model instead of 16.
    int k = 1;
    for (int p = kMinBloomPoint; p <= kMaxPoint; ++p) {
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
      c->bloom_fpr[p] = best_fpr;
      c->bloom_probes[p] = k;
    }
    // Ribbon as its builder sizes it (slack, columns, the dependent-key
    // term), so the curve is the one tables get.
    RibbonOptions options;
    for (int p = kMinRibbonPoint; p <= kMaxPoint; ++p) {
      options.bits_per_key = BitsAt(p);
      absl::StatusOr<RibbonGeometry> g = PlanRibbon(kRibbonModelKeys, options);
      if (g.ok()) c->ribbon_fpr[p] = g->predicted_fpr();
    }
    return c;
  }();
  return *curves;
}

LevelModel MakeLevelModel(bool bloom, bool ribbon, double bloom_probe_reads,
                          double ribbon_probe_reads) {
  const FprCurves& c = TheCurves();
  LevelModel m;
  m.min_point = bloom ? kMinBloomPoint : kMinRibbonPoint;
  m.cost[0] = 1.0;  // No filter: a read per check, no probe.
  m.kind[0] = FilterKind::kNone;
  for (int p = 1; p <= kMaxPoint; ++p) {
    m.cost[p] = 1.0;
    m.kind[p] = FilterKind::kNone;
    if (bloom && p >= kMinBloomPoint) {
      m.cost[p] = c.bloom_fpr[p] + bloom_probe_reads;
      m.kind[p] = FilterKind::kBlockedBloom;
    }
    if (ribbon && p >= kMinRibbonPoint) {
      const double cost = c.ribbon_fpr[p] + ribbon_probe_reads;
      if (m.kind[p] == FilterKind::kNone || cost < m.cost[p]) {
        m.cost[p] = cost;
        m.kind[p] = FilterKind::kRibbon;
      }
    }
  }
  // Andrew's monotone chain over point 0 and the usable points.
  auto cross = [&m](int o, int a, int b) {
    return (BitsAt(a) - BitsAt(o)) * (m.cost[b] - m.cost[o]) -
           (m.cost[a] - m.cost[o]) * (BitsAt(b) - BitsAt(o));
  };
  m.hull.push_back(0);
  for (int p = m.min_point; p <= kMaxPoint; ++p) {
    while (m.hull.size() >= 2 && cross(m.hull[m.hull.size() - 2], m.hull.back(), p) <= 0) {
      m.hull.pop_back();
    }
    m.hull.push_back(p);
  }
  return m;
}

}  // namespace internal
}  // namespace lsmbloom
