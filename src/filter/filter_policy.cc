#include "lsmbloom/filter/filter_policy.h"

#include "absl/strings/str_format.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "src/filter/filter_probe.h"

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

namespace {

class BlockedBloomFilterBuilder : public FilterBuilder {
 public:
  explicit BlockedBloomFilterBuilder(BlockedBloomBuilder builder) : builder_(std::move(builder)) {}
  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  const HashSpec* hash_spec() const override { return &builder_.options().hash; }
  absl::Status AddHash(uint64_t hash) override {
    builder_.AddHash(hash);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Finish() override { return builder_.Finish(); }

 private:
  BlockedBloomBuilder builder_;
};

class BlockedBloomFilterReader : public FilterReader {
 public:
  explicit BlockedBloomFilterReader(BlockedBloomReader reader) : reader_(reader) {}
  bool KeyMayMatch(std::string_view key) const override { return reader_.MayMatch(key); }
  const HashSpec* hash_spec() const override { return &reader_.geometry().hash; }
  bool HashMayMatch(uint64_t hash) const override { return reader_.MayMatchHash(hash); }
  void HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const override {
    reader_.MayMatchBatch(hashes, out);
  }
  std::string Describe() const override {
    const BlockedBloomGeometry& g = reader_.geometry();
    return absl::StrFormat(
        "blocked bloom v1: %d probes, %u blocks of 64 bytes, %u keys, %.3f "
        "bits/key, hash xxh3-64 seed %u",
        g.num_probes, g.num_blocks, g.num_keys, g.bits_per_key(), g.hash.seed);
  }
  double bits_per_key() const override { return reader_.geometry().bits_per_key(); }
  double predicted_fpr() const override { return reader_.geometry().predicted_fpr(); }
  const BlockedBloomReader& reader() const { return reader_; }

 private:
  BlockedBloomReader reader_;
};

class BlockedBloomPolicy : public FilterPolicy {
 public:
  // Keeps the resolved options, so each table's builder skips the model.
  explicit BlockedBloomPolicy(const BlockedBloomOptions& options)
      : options_(BlockedBloomBuilder::Create(options)->options()) {}
  std::string Name() const override { return kBlockedBloomPolicyName; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    // Options were validated when the policy was made.
    return std::make_unique<BlockedBloomFilterBuilder>(
        std::move(*BlockedBloomBuilder::Create(options_)));
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    absl::StatusOr<BlockedBloomReader> reader = BlockedBloomReader::Open(filter);
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<FilterReader>(new BlockedBloomFilterReader(*reader));
  }

 private:
  BlockedBloomOptions options_;
};

}  // namespace

namespace internal {

FilterProbe ProbeOf(const FilterReader* reader) {
  FilterProbe probe;
  if (reader == nullptr) return probe;
  probe.reader = reader;
  if (const auto* blocked = dynamic_cast<const BlockedBloomFilterReader*>(reader)) {
    probe.kind = FilterProbe::Kind::kBlocked;
    probe.blocked = blocked->reader().view();
    probe.hash = blocked->reader().geometry().hash;
  } else if (const RibbonReader* ribbon = RibbonReaderOf(reader)) {
    probe.kind = FilterProbe::Kind::kRibbon;
    probe.ribbon = ribbon->view();
    probe.hash = ribbon->geometry().hash;
  } else if (const HashSpec* spec = reader->hash_spec()) {
    probe.kind = FilterProbe::Kind::kHashed;
    probe.hash = *spec;
  } else {
    probe.kind = FilterProbe::Kind::kKeyed;
  }
  return probe;
}

}  // namespace internal

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewBlockedBloomPolicy(
    const BlockedBloomOptions& options) {
  absl::Status s = ValidateBlockedBloomOptions(options);
  if (!s.ok()) return s;
  return std::shared_ptr<const FilterPolicy>(std::make_shared<BlockedBloomPolicy>(options));
}

std::shared_ptr<const FilterPolicy> DefaultFilterPolicy() {
  static const auto* policy = new std::shared_ptr<const FilterPolicy>(
      std::make_shared<BlockedBloomPolicy>(BlockedBloomOptions()));
  return *policy;
}

std::vector<std::shared_ptr<const FilterPolicy>> BuiltinFilterPolicies() {
  // Readers need no options (each filter describes itself), so the
  // defaults serve every Ribbon table, whatever it was written with.
  return {DefaultFilterPolicy(), *NewClassicBloomPolicy(10), *NewRibbonPolicy(RibbonOptions())};
}

}  // namespace lsmbloom
