// Options of the homogeneous Ribbon filter: what NewRibbonPolicy
// (ribbon_policy.h) and RibbonBuilder (ribbon.h) take. Plain values; the
// filter's layout is in neither this header nor the core API.

#ifndef LSMBLOOM_FILTER_RIBBON_OPTIONS_H_
#define LSMBLOOM_FILTER_RIBBON_OPTIONS_H_

#include "absl/status/status.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {

struct RibbonOptions {
  // Solution bits per distinct key, in [1.1, 34]; fractional values are
  // fine (7.05 means 7.05). Ignored when target_fpr is set.
  double bits_per_key = 7.0;
  // If > 0, the builder picks the smallest filter whose predicted FPR
  // (ribbon_math.h, dependent keys included) is at most this. In
  // [1e-9, 0.5].
  double target_fpr = 0.0;
  // The hash that places keys; stored in the filter.
  HashSpec hash;

  // Out of line, as every constructor of a public type holding floating
  // point is (tests/public_headers_odr_test.sh).
  RibbonOptions();
};

// InvalidArgument naming the bad field, or OK.
absl::Status ValidateRibbonOptions(const RibbonOptions& options);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_RIBBON_OPTIONS_H_
