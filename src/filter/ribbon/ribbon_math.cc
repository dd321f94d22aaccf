#include "lsmbloom/filter/ribbon_math.h"
#include "src/filter/ribbon/ribbon_slack.h"

#include <algorithm>
#include <cmath>

namespace lsmbloom {

// 4.5% slack: at 10^6 keys, 1 in 16 key sets had a saturated stretch at
// 4.5%, 3 in 16 at 4.25%, 6 in 16 at 4% (each costs a second banding or a
// measured d); at 10^7 keys, 4 in 6 at 4.5% and 3 in 6 at 5%. Below 4.5%
// the bits saved rarely pay for that.
double RibbonSlotOverhead(uint64_t /*num_keys*/) { return 0.045; }

// Measured with 128-bit rows, keys banded in start order, on bands with no
// saturated stretch (no equation vanishing or pivoting 120 slots or more
// past its start): at 10^6 keys and 4.5% slack, 6 of 2 * 10^7 absent probes
// over 5 key sets were dependent (3e-7; 1.5e-6 in the worst set); at 10^5
// keys and fewer none was seen. The value errs on the high side at 4.5%,
// and is assumed to fall with more slack as the mean over all bands did
// (by e^-2 per 0.5%; too rare to measure beyond 4.5%).
double RibbonDependentFraction(uint64_t num_keys, double overhead) {
  if (num_keys < 100000) return 0.0;
  return std::min(2e-6, 2e-6 * std::exp(-(overhead - 0.045) / 0.0025));
}

double RibbonFpr(int num_columns, double upper_fraction, double dependent_fraction) {
  const double lower = std::ldexp(1.0, -num_columns);
  const double independent = (1.0 - upper_fraction) * lower + upper_fraction * lower / 2;
  return dependent_fraction + (1.0 - dependent_fraction) * independent;
}

}  // namespace lsmbloom
