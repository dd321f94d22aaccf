// The modules of modular filters (lsmbloom/filter/modular_bloom.h) a
// TableSet holds beyond each file's module 0, shared by the versions that
// probe them: a module dropped from the set is freed when the last lookup
// on a version that held it finishes.

#ifndef LSMBLOOM_SRC_LOOKUP_HELD_MODULES_H_
#define LSMBLOOM_SRC_LOOKUP_HELD_MODULES_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/table/table.h"

namespace lsmbloom {
namespace internal {

// Modules 1..n of one file's filter, in order, held in one of two forms.
//
// Interleaved, when the file's modules 1.. all have one geometry (as
// ModularBloomOptions of equal bits/key after module 0 make): block b of
// module i at interleaved + (b * n + i) * 64. ModuleHash keeps the key
// hash's high half, which picks the block, so a key's blocks in all n
// modules lie side by side: a probe past module 0 reads adjacent lines of
// one region, stopping at the first "no" (docs/PERFORMANCE.md measured the
// alternative). Otherwise each module apart (`modules`, `views`), probed
// in rounds across a lookup's candidates.
struct HeldModules {
  // The table the modules are of: a file number removed and added again
  // names another table, whose filter these are not.
  const Table* table = nullptr;
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> interleaved_bytes;
  const uint8_t* interleaved = nullptr;
  uint64_t num_blocks = 0;  // Of each module, when interleaved.
  // What each held module is: its header entry (k, size, FPR).
  std::vector<FilterModuleInfo> infos;

  // The modules apart, when not interleaved.
  std::vector<std::shared_ptr<const FilterModule>> modules;
  std::vector<BlockedBloomView> views;  // views[i] = modules[i]->view().

  double fpr = 1;           // The product of their FPRs.
  double bits_per_key = 0;  // Their bits/key together.
  uint64_t bytes = 0;       // Their memory together.

  size_t count() const { return infos.size(); }
  // Block b of module 1 + i's bits (64 bytes). REQUIRES: interleaved.
  const uint8_t* InterleavedBlock(uint64_t b, size_t i) const {
    return interleaved + (b * count() + i) * 64;
  }
};

// By file number.
using HeldModulesMap = std::unordered_map<uint64_t, std::shared_ptr<const HeldModules>>;

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_HELD_MODULES_H_
