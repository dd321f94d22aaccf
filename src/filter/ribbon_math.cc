#include "lsmbloom/filter/ribbon_math.h"

#include <algorithm>
#include <cmath>

namespace lsmbloom {

// 4.5% slack at least: where the smallest filter at 1% FPR lies for 10^5 to
// 10^7 keys
// (at 4% the dependent term costs more bits than the slack saves, at 5% the
// slack costs more than the term; see RibbonDependentFraction).
double RibbonSlotOverhead(uint64_t /*num_keys*/) { return 0.045; }

// Fit to measurements with 128-bit rows, keys banded in start order, 10^6
// absent probes per filter (d = the fraction of absent equations that reduce
// to zero against the band); mean over 3-8 key sets, [largest seen]:
//
//   keys    e=0.035   e=0.040           e=0.045           e=0.050       e=0.055
//   10^5    0         0                 0                 0             -
//   10^6    3.7e-3    7.5e-4 [2.8e-3]   2.2e-5 [8.9e-5]   0             -
//   10^7    1.4e-3    2.7e-4 [6.7e-4]   5.8e-5 [1.9e-4]   1e-7 [1e-6]   0
//
// d is lumpy: a filter either has a saturated stretch (d ~ its length over
// the band) or none, so single filters scatter around the mean by up to
// ~3x. The fit below, an exponential through the means at 4-4.5% slack, is
// an upper envelope of the means from 4% on (at 5% it says 1.8e-5, where
// means were 1e-7 or less), so sizing from a target errs on the safe side.
// Below 10^5 keys no dependent probe was seen at any of these slacks.
double RibbonDependentFraction(uint64_t num_keys, double overhead) {
  if (num_keys < 100000) return 0.0;
  const double d = 1e-3 * std::exp(-(overhead - 0.04) / 0.0025);
  return std::min(1.0, d);
}

double RibbonFpr(int num_columns, double upper_fraction, double dependent_fraction) {
  const double lower = std::ldexp(1.0, -num_columns);
  const double independent = (1.0 - upper_fraction) * lower + upper_fraction * lower / 2;
  return dependent_fraction + (1.0 - dependent_fraction) * independent;
}

}  // namespace lsmbloom
