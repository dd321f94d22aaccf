// The Ribbon filter as a FilterPolicy (kRibbonPolicyName).

#include "lsmbloom/filter/ribbon_policy.h"

#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/filter/policy_adapter.h"

namespace lsmbloom {
namespace {

struct RibbonKind {
  using Options = RibbonOptions;
  using Builder = RibbonBuilder;
  using Reader = RibbonReader;
  static constexpr FilterKind kKind = FilterKind::kRibbon;
  static constexpr const char* kName = kRibbonPolicyName;

  static absl::Status Validate(const Options& options) { return ValidateRibbonOptions(options); }
  static std::string Describe(const Reader& reader) {
    const RibbonGeometry& g = reader.geometry();
    return absl::StrFormat(
        "ribbon v1 (homogeneous, 128-bit rows): %d-%d columns (upper from segment %u), %u "
        "segments of 64 slots, %u keys, %.3f bits/key, hash xxh3-64 seed %u",
        g.num_columns, g.num_columns + (g.upper_start < g.num_segments), g.upper_start,
        g.num_segments, g.num_keys, g.bits_per_key(), g.hash.seed);
  }
  static void SetView(const Reader& reader, internal::FilterProbe* probe) {
    probe->ribbon = reader.view();
  }
};

}  // namespace

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewRibbonPolicy(const RibbonOptions& options) {
  return internal::NewKindPolicy<RibbonKind>(options);
}

}  // namespace lsmbloom
