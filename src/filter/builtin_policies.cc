// The list of built-in filter policies: the one place besides filter_kind.h
// that names every kind (docs/ARCHITECTURE.md, "Adding a filter kind").

#include <memory>
#include <vector>

#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon_policy.h"

namespace lsmbloom {

std::vector<std::shared_ptr<const FilterPolicy>> BuiltinFilterPolicies() {
  // Readers need no options (each filter describes itself), so the
  // defaults serve every table, whatever it was written with.
  return {DefaultFilterPolicy(), *NewClassicBloomPolicy(10), *NewRibbonPolicy(RibbonOptions()),
          *NewModularBloomPolicy(ModularBloomOptions())};
}

}  // namespace lsmbloom
