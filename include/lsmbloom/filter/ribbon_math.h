// The accuracy model of the homogeneous Ribbon filter (ribbon.h).
//
// A query of an absent key x computes, in each result column, the parity of
// its 128 coefficients against the solution. Two cases:
//
//   - x's equation is independent of the added keys' equations. The free
//     slots of the solution (those no equation pivots on) hold pseudo-random
//     bits, so each column's parity is a fair coin, independent of the
//     others: x matches with probability 2^-r_x, r_x its segment's columns.
//   - x's equation is a sum of added equations ("dependent"). Every solution
//     satisfies it: x always matches.
//
// With d the fraction of dependent absent keys and u the fraction of start
// slots in segments with r + 1 columns:
//
//   FPR = d + (1 - d) * ((1 - u) * 2^-r + u * 2^-(r+1))
//
// Mixing r and r + 1 columns costs a little against an ideal fractional r
// (at u = 1/2: 0.75 * 2^-r instead of 2^-(r+0.5) = 0.707 * 2^-r, ~0.08 bit
// per key); it is how the layout gets fractional bits per key.
//
// d comes from saturated stretches: with m = (1 + e) n slots, equations pile
// up where starts cluster, and where a stretch of the band runs out of free
// slots, absent keys starting there are dependent. A band either has such a
// stretch (then d is 10^-4 to 10^-2, roughly 20 absent start slots per
// saturated equation) or none (then d is about 10^-6). The builder sees the
// stretch while banding: it bands again with more slack where that makes a
// smaller (or, at fixed bits/key, more accurate) filter, and otherwise
// measures d on sampled absent equations and records it in the filter,
// sizing the columns for it. So a filter's d is the model's small value
// of a band without one, or its own measured one
// (RibbonGeometry::dependent_fraction).
// Standard (non-homogeneous) Ribbon has d = 0 but fails to build where this
// variant only loses a little accuracy.

#ifndef LSMBLOOM_FILTER_RIBBON_MATH_H_
#define LSMBLOOM_FILTER_RIBBON_MATH_H_

#include <cstdint>

namespace lsmbloom {

// The FPR formula above. REQUIRES: 1 <= num_columns <= 32, 0 <= u, d <= 1.
double RibbonFpr(int num_columns, double upper_fraction, double dependent_fraction);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_RIBBON_MATH_H_
