// Options of the homogeneous Ribbon filter: what NewRibbonPolicy
// (ribbon_policy.h) and RibbonBuilder (ribbon.h) take. Plain values; the
// filter's layout is in neither this header nor the core API.

#ifndef LSMBLOOM_FILTER_RIBBON_OPTIONS_H_
#define LSMBLOOM_FILTER_RIBBON_OPTIONS_H_

#include <cstddef>

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
  // The most memory RibbonBuilder::Finish may hold at once, in bytes, the
  // buffered hashes it is handed (8 per key) included; 0: no bound. At
  // least 1 MiB: a smaller bound is likely a units mistake. Why: banding
  // needs ~25 bytes per key (~33 to lay the keys out again), so a file of
  // 10^8 keys would spike ~3 GB, which made TiKV turn Ribbon off. Finish
  // plans that peak before it allocates anything (RibbonConstructionBytes,
  // ribbon.h) and, if it exceeds the bound, builds a blocked Bloom filter
  // of about the FPR the Ribbon filter would have had instead (~8 bytes per
  // key plus twice the filter: ~10.6 at 1%), which the Ribbon policy's
  // readers open as well (ribbon_policy.h); a saturated band is laid out
  // again only if that fits too. Below the fallback's own peak the bound
  // cannot be met (the hashes are held already): Finish still falls back,
  // the least a filter of these keys can cost. The default, 1 GiB, leaves
  // filters of up to ~3 * 10^7 keys exactly as without a bound, and falls
  // back from ~4 * 10^7.
  size_t max_construction_bytes = size_t{1} << 30;

  // Out of line, as every constructor of a public type holding floating
  // point is (tests/public_headers_odr_test.sh).
  RibbonOptions();
};

// InvalidArgument naming the bad field, or OK.
absl::Status ValidateRibbonOptions(const RibbonOptions& options);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_RIBBON_OPTIONS_H_
