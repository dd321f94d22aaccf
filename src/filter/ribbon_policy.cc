#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_policy.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "src/filter/filter_probe.h"

namespace lsmbloom {
namespace {

class RibbonFilterBuilder : public FilterBuilder {
 public:
  explicit RibbonFilterBuilder(RibbonBuilder builder) : builder_(std::move(builder)) {}
  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  const HashSpec* hash_spec() const override { return &builder_.options().hash; }
  absl::Status AddHash(uint64_t hash) override {
    builder_.AddHash(hash);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Finish() override { return builder_.Finish(); }

 private:
  RibbonBuilder builder_;
};

class RibbonFilterReader : public FilterReader {
 public:
  explicit RibbonFilterReader(RibbonReader reader) : reader_(reader) {}
  bool KeyMayMatch(std::string_view key) const override { return reader_.MayMatch(key); }
  const HashSpec* hash_spec() const override { return &reader_.geometry().hash; }
  bool HashMayMatch(uint64_t hash) const override { return reader_.MayMatchHash(hash); }
  void HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const override {
    reader_.MayMatchBatch(hashes, out);
  }
  std::string Describe() const override {
    const RibbonGeometry& g = reader_.geometry();
    return absl::StrFormat(
        "ribbon v1 (homogeneous, 128-bit rows): %d-%d columns (upper from segment %u), %u "
        "segments of 64 slots, %u keys, %.3f bits/key, hash xxh3-64 seed %u",
        g.num_columns, g.num_columns + (g.upper_start < g.num_segments), g.upper_start,
        g.num_segments, g.num_keys, g.bits_per_key(), g.hash.seed);
  }
  double bits_per_key() const override { return reader_.geometry().bits_per_key(); }
  double predicted_fpr() const override { return reader_.geometry().predicted_fpr(); }
  const RibbonReader& reader() const { return reader_; }

 private:
  RibbonReader reader_;
};

class RibbonPolicy : public FilterPolicy {
 public:
  explicit RibbonPolicy(const RibbonOptions& options) : options_(options) {}
  std::string Name() const override { return kRibbonPolicyName; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    // The options were validated when the policy was made.
    return std::make_unique<RibbonFilterBuilder>(*RibbonBuilder::Create(options_));
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    absl::StatusOr<RibbonReader> reader = RibbonReader::Open(filter);
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<FilterReader>(new RibbonFilterReader(*reader));
  }

 private:
  RibbonOptions options_;
};

}  // namespace

namespace internal {

const RibbonReader* RibbonReaderOf(const FilterReader* reader) {
  const auto* ribbon = dynamic_cast<const RibbonFilterReader*>(reader);
  return ribbon == nullptr ? nullptr : &ribbon->reader();
}

}  // namespace internal

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewRibbonPolicy(const RibbonOptions& options) {
  absl::Status valid = ValidateRibbonOptions(options);
  if (!valid.ok()) return valid;
  return std::shared_ptr<const FilterPolicy>(new RibbonPolicy(options));
}

}  // namespace lsmbloom
