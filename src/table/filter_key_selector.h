// Which keys of a table go into its filter. TableBuilder feeds its filter
// through this, and the inspection library replays a table's entries
// through it (lsmbloom/inspect/inspect.h FilterKeys), so the rule lives once.

#ifndef LSMBLOOM_SRC_TABLE_FILTER_KEY_SELECTOR_H_
#define LSMBLOOM_SRC_TABLE_FILTER_KEY_SELECTOR_H_

#include <string>
#include <string_view>

#include "lsmbloom/table/options.h"

namespace lsmbloom {
namespace internal {

// Given each entry's user key in table order: each user key once (with
// whole-key filtering; a key's versions are adjacent) and each run of equal
// prefixes once (with a prefix extractor, for keys in its domain).
// Deletions count like values: a deleted key must not be ruled out here.
class FilterKeySelector {
 public:
  FilterKeySelector(bool whole_keys, const PrefixExtractor* prefix_extractor)
      : whole_keys_(whole_keys), extractor_(prefix_extractor) {}

  // What the next entry, of `user_key`, adds. Views into `user_key`.
  struct Added {
    bool has_key = false;
    bool has_prefix = false;
    std::string_view prefix;
  };
  Added Next(std::string_view user_key) {
    Added a;
    if (whole_keys_ && (!has_key_ || user_key != last_key_)) {
      a.has_key = true;
      last_key_.assign(user_key.data(), user_key.size());
      has_key_ = true;
    }
    if (extractor_ != nullptr && extractor_->InDomain(user_key)) {
      const std::string_view prefix = extractor_->Transform(user_key);
      if (!has_prefix_ || prefix != last_prefix_) {
        a.has_prefix = true;
        a.prefix = prefix;
        last_prefix_.assign(prefix.data(), prefix.size());
        has_prefix_ = true;
      }
    }
    return a;
  }

 private:
  const bool whole_keys_;
  const PrefixExtractor* const extractor_;
  std::string last_key_, last_prefix_;
  bool has_key_ = false, has_prefix_ = false;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_FILTER_KEY_SELECTOR_H_
