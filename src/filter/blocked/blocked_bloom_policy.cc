// The blocked Bloom filter as a FilterPolicy (kBlockedBloomPolicyName).

#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "src/filter/policy_adapter.h"

namespace lsmbloom {
namespace {

struct BlockedBloomKind {
  using Options = BlockedBloomOptions;
  using Builder = BlockedBloomBuilder;
  using Reader = BlockedBloomReader;
  static constexpr FilterKind kKind = FilterKind::kBlockedBloom;
  static constexpr const char* kName = kBlockedBloomPolicyName;

  static absl::Status Validate(const Options& options) {
    return ValidateBlockedBloomOptions(options);
  }
  static std::string Describe(const Reader& reader) {
    const BlockedBloomGeometry& g = reader.geometry();
    return absl::StrFormat(
        "blocked bloom v1: %d probes, %u blocks of 64 bytes, %u keys, %.3f "
        "bits/key, hash xxh3-64 seed %u",
        g.num_probes, g.num_blocks, g.num_keys, g.bits_per_key(), g.hash.seed);
  }
  static void SetView(const Reader& reader, internal::FilterProbe* probe) {
    probe->blocked = reader.view();
  }
};

}  // namespace

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewBlockedBloomPolicy(
    const BlockedBloomOptions& options) {
  return internal::NewKindPolicy<BlockedBloomKind>(options);
}

std::shared_ptr<const FilterPolicy> DefaultFilterPolicy() {
  static const auto* policy = new std::shared_ptr<const FilterPolicy>(
      std::make_shared<internal::KindFilterPolicy<BlockedBloomKind>>(BlockedBloomOptions()));
  return *policy;
}

}  // namespace lsmbloom
