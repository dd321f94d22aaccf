#include "src/lookup/candidate_filters.h"

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace internal {
namespace {

// Items per call: on the stack, no allocation per lookup.
constexpr size_t kGroup = 32;

// The items of one kind gathered from a group: their views and where their
// answers go.
template <typename View>
struct Gathered {
  const View* views[kGroup];
  uint64_t hashes[kGroup];
  size_t at[kGroup];
  bool out[kGroup];
  size_t size = 0;

  void Add(const View* view, uint64_t hash, size_t index) {
    views[size] = view;
    hashes[size] = hash;
    at[size++] = index;
  }
  void Scatter(bool* maybe) const {
    for (size_t k = 0; k < size; ++k) maybe[at[k]] = out[k];
  }
};

// Splits each group of kGroup items by kind and probes each kind in one
// call: probe_blocked(gathered) and probe_ribbon(gathered) fill
// gathered.out.
template <class HashOf, class ProbeBlocked, class ProbeRibbon>
void ProbeByKind(const FileMeta* const* files, size_t n, const HashOf& hash_of, bool* maybe,
                 const ProbeBlocked& probe_blocked, const ProbeRibbon& probe_ribbon) {
  for (size_t first = 0; first < n; first += kGroup) {
    const size_t end = n - first < kGroup ? n : first + kGroup;
    Gathered<BlockedBloomView> blocked;
    Gathered<RibbonView> ribbon;
    for (size_t j = first; j < end; ++j) {
      const FileMeta& file = *files[j];
      if (!Filtered(file)) {
        maybe[j] = true;
        continue;
      }
      if (!file.batched) continue;  // ProbeThroughReaders.
      switch (file.kind) {
        case FilterKind::kBlockedBloom:
          blocked.Add(&file.filter, hash_of(j), j);
          break;
        case FilterKind::kRibbon:
          ribbon.Add(&file.own->ribbon, hash_of(j), j);
          break;
        case FilterKind::kNone:
        case FilterKind::kClassicBloom:
        case FilterKind::kCustom:
          break;  // No batched probe.
      }
    }
    // Ribbon first: its 2-8 lines per filter are the longer wait.
    if (ribbon.size != 0) probe_ribbon(ribbon);
    if (blocked.size != 0) probe_blocked(blocked);
    ribbon.Scatter(maybe);
    blocked.Scatter(maybe);
  }
}

// ProbeHeldModules with hash_of(j) the key hash of item j.
template <class HashOf>
void ProbeHeld(const FileMeta* const* files, size_t n, const HashOf& hash_of, bool* maybe) {
  constexpr size_t kPairs = 64;
  const BlockedBloomView* views[kPairs];
  uint64_t hashes[kPairs];
  size_t at[kPairs];
  bool out[kPairs];
  size_t size = 0;
  const auto flush = [&] {
    BlockedBloomProbePairs({views, size}, {hashes, size}, {out, size});
    for (size_t k = 0; k < size; ++k) {
      if (!out[k]) maybe[at[k]] = false;
    }
    size = 0;
  };
  for (size_t j = 0; j < n; ++j) {
    const FileMeta& file = *files[j];
    if (!maybe[j] || file.num_modules == 0) continue;
    const uint64_t hash = hash_of(j);
    for (uint32_t m = 0; m < file.num_modules; ++m) {
      if (size == kPairs) flush();
      views[size] = &file.modules[m];
      hashes[size] = ModuleHash(hash, static_cast<int>(m) + 1);
      at[size++] = j;
    }
  }
  if (size != 0) flush();
}

}  // namespace

void ProbeHeldModules(const FileMeta* const* files, size_t n, uint64_t hash, bool* maybe) {
  ProbeHeld(files, n, [hash](size_t) { return hash; }, maybe);
}

void ProbeHeldModulePairs(const FileMeta* const* files, const uint64_t* hashes, size_t n,
                          bool* maybe) {
  ProbeHeld(files, n, [hashes](size_t j) { return hashes[j]; }, maybe);
}

void ProbeCandidatesByKind(const FileMeta* const* files, size_t n, uint64_t hash, bool* maybe) {
  ProbeByKind(
      files, n, [hash](size_t) { return hash; }, maybe,
      [hash](Gathered<BlockedBloomView>& g) { BlockedBloomProbeEach({g.views, g.size}, hash, {g.out, g.size}); },
      [hash](Gathered<RibbonView>& g) { RibbonProbeEach({g.views, g.size}, hash, {g.out, g.size}); });
}

void ProbePairsByKind(const FileMeta* const* files, const uint64_t* hashes, size_t n, bool* maybe) {
  ProbeByKind(
      files, n, [hashes](size_t j) { return hashes[j]; }, maybe,
      [](Gathered<BlockedBloomView>& g) { BlockedBloomProbePairs({g.views, g.size}, {g.hashes, g.size}, {g.out, g.size}); },
      [](Gathered<RibbonView>& g) { RibbonProbePairs({g.views, g.size}, {g.hashes, g.size}, {g.out, g.size}); });
}

}  // namespace internal
}  // namespace lsmbloom
