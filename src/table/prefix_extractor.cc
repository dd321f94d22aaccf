#include "absl/strings/str_cat.h"
#include "lsmbloom/table/options.h"

namespace lsmbloom {
namespace {

class FixedPrefixExtractor : public PrefixExtractor {
 public:
  explicit FixedPrefixExtractor(size_t length) : length_(length) {}
  std::string Name() const override { return absl::StrCat("lsmbloom.FixedPrefix.", length_); }
  bool InDomain(std::string_view key) const override { return key.size() >= length_; }
  std::string_view Transform(std::string_view key) const override { return key.substr(0, length_); }

 private:
  size_t length_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const PrefixExtractor>> NewFixedPrefixExtractor(size_t length) {
  if (length == 0) {
    return absl::InvalidArgumentError("NewFixedPrefixExtractor: a prefix of 0 bytes");
  }
  return std::shared_ptr<const PrefixExtractor>(std::make_shared<FixedPrefixExtractor>(length));
}

}  // namespace lsmbloom
