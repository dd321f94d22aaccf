// FilterKeys: the keys TableBuilder gave a table's filter, replayed from
// the table's entries (table_builder.cc adds them the same way).

#include "lsmbloom/inspect/inspect.h"

namespace lsmbloom {

FilterKeys::FilterKeys(const InspectedTable& t)
    : whole_keys_(t.filter().whole_keys()), extractor_(t.prefix_extractor()) {}

void FilterKeys::Add(std::string_view user_key,
                     const std::function<void(std::string_view, bool)>& fn) {
  // Adjacent repeats are dropped: a key's versions add it once.
  if (whole_keys_ && (!has_key_ || user_key != last_key_)) {
    fn(user_key, false);
    last_key_.assign(user_key.data(), user_key.size());
    has_key_ = true;
  }
  if (extractor_ != nullptr && extractor_->InDomain(user_key)) {
    const std::string_view prefix = extractor_->Transform(user_key);
    if (!has_prefix_ || prefix != last_prefix_) {
      fn(prefix, true);
      last_prefix_.assign(prefix.data(), prefix.size());
      has_prefix_ = true;
    }
  }
}

}  // namespace lsmbloom
