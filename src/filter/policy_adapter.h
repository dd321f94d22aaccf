// One FilterPolicy for every built-in filter kind: the builder, reader and
// policy classes tables talk to, written once over a kind's own builder and
// reader. A kind supplies a traits type (blocked_bloom_policy.cc,
// ribbon_policy.cc, classic_bloom.cc) with:
//
//   using Options, Builder, Reader;
//   static constexpr FilterKind kKind;
//   static constexpr const char* kName;           // The policy's Name().
//   static absl::Status Validate(const Options&);
//   static std::string Describe(const Reader&);  // FilterReader::Describe.
//   static void SetView(const Reader&, FilterProbe*);  // Its view, if any.
//
// Builder: static Create(Options) -> StatusOr<Builder>, options().hash,
// AddKey, AddHash, Finish. Reader: static Open(filter, FilterReadOptions)
// -> StatusOr<Reader>, MayMatch, MayMatchHash, MayMatchBatch(spans),
// geometry() with hash, bits_per_key() and predicted_fpr().

#ifndef LSMBLOOM_SRC_FILTER_POLICY_ADAPTER_H_
#define LSMBLOOM_SRC_FILTER_POLICY_ADAPTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/filter/filter_policy.h"
#include "src/filter/filter_probe.h"

namespace lsmbloom {
namespace internal {

template <class Kind>
class KindFilterBuilder final : public FilterBuilder {
 public:
  explicit KindFilterBuilder(typename Kind::Builder builder) : builder_(std::move(builder)) {}
  void AddKey(std::string_view key) override { builder_.AddKey(key); }
  const HashSpec* hash_spec() const override { return &builder_.options().hash; }
  absl::Status AddHash(uint64_t hash) override {
    builder_.AddHash(hash);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Finish() override { return builder_.Finish(); }

 private:
  typename Kind::Builder builder_;
};

template <class Kind>
class KindFilterReader final : public FilterReader {
 public:
  explicit KindFilterReader(const typename Kind::Reader& reader) : reader_(reader) {}
  bool KeyMayMatch(std::string_view key) const override { return reader_.MayMatch(key); }
  const HashSpec* hash_spec() const override { return &reader_.geometry().hash; }
  bool HashMayMatch(uint64_t hash) const override { return reader_.MayMatchHash(hash); }
  void HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const override {
    reader_.MayMatchBatch(hashes, out);
  }
  std::string Describe() const override { return Kind::Describe(reader_); }
  double bits_per_key() const override { return reader_.geometry().bits_per_key(); }
  double predicted_fpr() const override { return reader_.geometry().predicted_fpr(); }

 private:
  void DescribeProbe(FilterProbe* probe) const override {
    probe->kind = Kind::kKind;
    probe->hash = reader_.geometry().hash;
    Kind::SetView(reader_, probe);
  }

  typename Kind::Reader reader_;
};

template <class Kind>
class KindFilterPolicy final : public FilterPolicy {
 public:
  // Keeps the options as the kind's builder resolves them, so each table's
  // builder starts from them. REQUIRES: Kind::Validate(options) is OK.
  explicit KindFilterPolicy(const typename Kind::Options& options)
      : options_(Kind::Builder::Create(options)->options()) {}
  std::string Name() const override { return Kind::kName; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    // The options were validated when the policy was made.
    return std::make_unique<KindFilterBuilder<Kind>>(
        std::move(*Kind::Builder::Create(options_)));
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    absl::StatusOr<typename Kind::Reader> reader = Kind::Reader::Open(filter, FilterReadOptions());
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<FilterReader>(new KindFilterReader<Kind>(*reader));
  }

 private:
  typename Kind::Options options_;
};

// The kind's policy, or InvalidArgument (naming the field) if
// Kind::Validate(options) fails.
template <class Kind>
absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewKindPolicy(
    const typename Kind::Options& options) {
  absl::Status valid = Kind::Validate(options);
  if (!valid.ok()) return valid;
  return std::shared_ptr<const FilterPolicy>(std::make_shared<KindFilterPolicy<Kind>>(options));
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_POLICY_ADAPTER_H_
