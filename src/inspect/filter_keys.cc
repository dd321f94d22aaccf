// FilterKeys: the keys TableBuilder gave a table's filter, replayed from
// the table's entries through the builder's own rule (src/table/filter_key_selector.h).

#include "src/table/filter_key_selector.h"

#include "lsmbloom/inspect/inspect.h"

namespace lsmbloom {

FilterKeys::FilterKeys(const InspectedTable& t)
    : selector_(std::make_unique<internal::FilterKeySelector>(t.filter().whole_keys(),
                                                              t.prefix_extractor())) {}

FilterKeys::~FilterKeys() = default;

void FilterKeys::Add(std::string_view user_key,
                     const std::function<void(std::string_view, bool)>& fn) {
  const internal::FilterKeySelector::Added added = selector_->Next(user_key);
  if (added.has_key) fn(user_key, false);
  if (added.has_prefix) fn(added.prefix, true);
}

}  // namespace lsmbloom
