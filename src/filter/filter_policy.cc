// The FilterPolicy interface's defaults. Depends on no filter kind: the
// kinds' policies are policy_adapter.h over each kind's builder and reader,
// and the list of built-in ones is builtin_policies.cc.

#include "lsmbloom/filter/filter_policy.h"

namespace lsmbloom {

double FilterReader::bits_per_key() const { return 0; }
double FilterReader::predicted_fpr() const { return 0; }

absl::Status FilterBuilder::AddHash(uint64_t /*hash*/) {
  return absl::FailedPreconditionError(
      "this filter builder places keys, not hashes (hash_spec() is null): use AddKey");
}

void FilterReader::HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = HashMayMatch(hashes[i]);
}

}  // namespace lsmbloom
