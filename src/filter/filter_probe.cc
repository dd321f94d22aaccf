#include "src/filter/filter_probe.h"

namespace lsmbloom {

// A reader of the store's own: probed through FilterReader, with the key's
// hash if it takes one.
void FilterReader::DescribeProbe(internal::FilterProbe* probe) const {
  probe->kind = FilterKind::kCustom;
  if (const HashSpec* spec = hash_spec()) {
    probe->hash = *spec;
  } else {
    probe->by_key = true;
  }
}

}  // namespace lsmbloom
