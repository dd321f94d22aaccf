// The Ribbon filter (ribbon.h) as a FilterPolicy, so tables can carry it.
// Part of the core API: it carries the options, not the filter's layout.
//
// Tables record the policy's name, kRibbonPolicyName, with the filter; a
// table reader loads Ribbon filters with the built-in policies
// (BuiltinFilterPolicies(), the default), or when its TableReadOptions list
// this policy (any RibbonOptions will do: the filter describes itself). A
// reader given a list without it opens such a table and answers correctly,
// without filtering.

#ifndef LSMBLOOM_FILTER_RIBBON_POLICY_H_
#define LSMBLOOM_FILTER_RIBBON_POLICY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/ribbon_options.h"

namespace lsmbloom {

inline constexpr char kRibbonPolicyName[] = "lsmbloom.Ribbon.v1";

// The homogeneous Ribbon filter. Its builders take precomputed hashes; its
// readers verify the filter's header and checksums and answer single and
// batched hash probes. InvalidArgument, naming the field, if
// ValidateRibbonOptions(options) fails.
absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewRibbonPolicy(const RibbonOptions& options);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_RIBBON_POLICY_H_
