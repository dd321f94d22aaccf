// The Ribbon builder's slack model (ribbon_math.h explains d): how many
// slots PlanRibbon gives a number of keys, and the fraction of dependent
// absent keys a band of that slack has without a saturated stretch.
// Internal: the builder's, and the tests' that check it.

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_SLACK_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_SLACK_H_

#include <cstdint>

namespace lsmbloom {

// The smallest slot overhead e the builder uses for `num_keys` keys:
// num_slots is about (1 + e) * num_keys (at least 128, a multiple of 64).
// PlanRibbon tries e up to 0.06 more, in steps of 0.005, and keeps the
// smallest filter meeting a target FPR (more slack pays only for targets
// near d), or the lowest predicted FPR for a given bits/key.
double RibbonSlotOverhead(uint64_t num_keys);

// Expected fraction d of absent keys whose equation depends on those of
// `num_keys` added keys, in a band of (1 + overhead) * num_keys slots with
// no saturated stretch.
double RibbonDependentFraction(uint64_t num_keys, double overhead);

}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_SLACK_H_
