// The Ribbon filter as a FilterPolicy (kRibbonPolicyName). Its builders may
// return the blocked Bloom fallback (RibbonOptions::max_construction_bytes),
// so its readers open either kind, told apart by the filter's magic.

#include "lsmbloom/filter/ribbon_policy.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_format.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/filter/blocked/blocked_bloom_format.h"
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

// A Ribbon builder's blocked Bloom fallback, read as the blocked filter it
// is (lookups probe it with the other blocked filters), its Describe()
// saying why a Ribbon table holds it.
struct RibbonFallbackKind {
  using Reader = BlockedBloomReader;
  static constexpr FilterKind kKind = FilterKind::kBlockedBloom;

  static std::string Describe(const Reader& reader) {
    const BlockedBloomGeometry& g = reader.geometry();
    return absl::StrFormat(
        "blocked bloom v1 (the ribbon policy's fallback: its band exceeded "
        "max_construction_bytes): %d probes, %u blocks of 64 bytes, %u keys, %.3f bits/key, "
        "hash xxh3-64 seed %u",
        g.num_probes, g.num_blocks, g.num_keys, g.bits_per_key(), g.hash.seed);
  }
  static void SetView(const Reader& reader, internal::FilterProbe* probe) {
    probe->blocked = reader.view();
  }
};

class RibbonPolicy final : public FilterPolicy {
 public:
  // REQUIRES: ValidateRibbonOptions(options) is OK.
  explicit RibbonPolicy(const RibbonOptions& options) : options_(options) {}
  std::string Name() const override { return kRibbonPolicyName; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    return std::make_unique<internal::KindFilterBuilder<RibbonKind>>(
        std::move(*RibbonBuilder::Create(options_)));
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    if (internal::HasBlockedBloomMagic(filter)) {
      absl::StatusOr<BlockedBloomReader> reader = BlockedBloomReader::Open(filter);
      if (!reader.ok()) return reader.status();
      return std::unique_ptr<FilterReader>(
          new internal::KindFilterReader<RibbonFallbackKind>(*reader));
    }
    absl::StatusOr<RibbonReader> reader = RibbonReader::Open(filter);
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<FilterReader>(new internal::KindFilterReader<RibbonKind>(*reader));
  }

 private:
  RibbonOptions options_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewRibbonPolicy(const RibbonOptions& options) {
  absl::Status valid = ValidateRibbonOptions(options);
  if (!valid.ok()) return valid;
  return std::shared_ptr<const FilterPolicy>(std::make_shared<RibbonPolicy>(options));
}

}  // namespace lsmbloom
