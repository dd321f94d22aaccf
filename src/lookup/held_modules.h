// The modules of modular filters (lsmbloom/filter/modular_bloom.h) a
// TableSet holds beyond each file's module 0, shared by the versions that
// probe them: a module dropped from the set is freed when the last lookup
// on a version that held it finishes.

#ifndef LSMBLOOM_SRC_LOOKUP_HELD_MODULES_H_
#define LSMBLOOM_SRC_LOOKUP_HELD_MODULES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include <unordered_map>
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/modular_bloom.h"

namespace lsmbloom {
namespace internal {

// Modules 1..n of one file's filter, in order.
struct HeldModules {
  std::vector<std::shared_ptr<const FilterModule>> modules;
  std::vector<BlockedBloomView> views;  // views[i] = modules[i]->view().
  double fpr = 1;                       // The product of their FPRs.
  double bits_per_key = 0;              // Their bits/key together.
  uint64_t bytes = 0;                   // Their memory together.
};

// By file number.
using HeldModulesMap = std::unordered_map<uint64_t, std::shared_ptr<const HeldModules>>;

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_HELD_MODULES_H_
