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
  // least 1 MiB: a smaller bound is likely a units mistake. The buffer as
  // keys arrive, before Finish (8 bytes per key, 16 while it grows), is
  // outside it: every key must be held until the filter's size is known. Why: a band
  // needs ~25 bytes per key, so a file of 10^8 keys would spike 2.5 GB
  // (TiKV turned Ribbon off after a 3 GB spike). Finish computes that peak
  // before it allocates anything (RibbonConstructionBytes, ribbon.h) and,
  // if it exceeds the bound, builds a blocked Bloom filter of about the FPR
  // the Ribbon filter would have had (~1.5 times its bits) instead: ~8
  // bytes per key plus the filter (~9.4 at 1%). The Ribbon policy's readers
  // open both (ribbon_policy.h). Below the fallback's own peak the bound
  // cannot be met, the hashes being held already: Finish still falls back,
  // the least any filter of these keys costs. The default, 1 GiB, leaves
  // filters of up to ~4 * 10^7 keys Ribbon filters, unchanged. A fallback
  // rather than a band solved in bounded pieces: back-substitution reads
  // the rows of the whole band after elimination has written them, and
  // pieces solved apart would need a format whose equations never cross a
  // cut (src/filter/ribbon/ribbon_fallback.cc).
  size_t max_construction_bytes = size_t{1} << 30;

  // Out of line, as every constructor of a public type holding floating
  // point is (tests/public_headers_odr_test.sh).
  RibbonOptions();
};

// InvalidArgument naming the bad field, or OK.
absl::Status ValidateRibbonOptions(const RibbonOptions& options);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_RIBBON_OPTIONS_H_
