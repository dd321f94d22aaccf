// The Ribbon filter (ribbon.h) as a FilterPolicy, so tables can carry it.
// Part of the core API: it carries the options, not the filter's layout.
//
// Tables record the policy's name, kRibbonPolicyName, with the filter; a
// table reader loads Ribbon filters with the built-in policies
// (BuiltinFilterPolicies(), the default), or when its TableReadOptions list
// this policy (any RibbonOptions will do: the filter describes itself). A
// reader given a list without it opens such a table and answers correctly,
// without filtering.
//
// Construction memory: RibbonOptions::max_construction_bytes (1 GiB unless
// set) bounds what a builder holds at once. A file whose Ribbon band would
// exceed it gets a blocked Bloom filter of about the same FPR instead, under
// this policy's name: its readers tell the two apart by the filter's magic
// (docs/FORMAT.md) and open either; FilterReader::Describe() says
// "blocked bloom v1 (the ribbon policy's fallback ...)". Why a fallback and
// not a bounded Ribbon build: src/filter/ribbon/ribbon_fallback.cc. A reader
// built before the fallback existed takes such a filter for a corrupt one
// and reads the table unfiltered (answers stay correct).

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
