// Options of the cache-line-blocked Bloom filter: what NewBlockedBloomPolicy
// (filter_policy.h) and BlockedBloomBuilder (blocked_bloom.h) take. Plain
// values; the filter's layout is in neither this header nor the core API.

#ifndef LSMBLOOM_FILTER_BLOCKED_BLOOM_OPTIONS_H_
#define LSMBLOOM_FILTER_BLOCKED_BLOOM_OPTIONS_H_

#include "absl/status/status.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {

struct BlockedBloomOptions {
  // Filter bits per distinct key, in [0.1, 1000]; fractional values such as
  // 9.6 are fine. Ignored when target_fpr is set.
  double bits_per_key = 10.0;
  // If > 0, the builder picks the smallest bits/key (and its k) whose
  // predicted false-positive rate is at most this. Must be in [1e-12, 1).
  double target_fpr = 0.0;
  // k, the bits set per key, in [1, 16]; 0 picks the optimum of the blocked
  // model for the bits/key in force.
  int num_probes = 0;
  // The hash that places keys; stored in the filter.
  HashSpec hash;

  // Out of line, as every constructor of a public type holding floating
  // point is: inline, each includer would compile it with its own target
  // flags (tests/public_headers_odr_test.sh).
  BlockedBloomOptions();
};

// InvalidArgument naming the bad field, or OK.
absl::Status ValidateBlockedBloomOptions(const BlockedBloomOptions& options);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_OPTIONS_H_
