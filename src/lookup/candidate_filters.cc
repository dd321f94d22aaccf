#include "src/lookup/candidate_filters.h"

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/util/prefetch.h"

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

// One held module's answer, inline, by the layout's formulas
// (blocked_bloom_layout.h), which every kernel reproduces bit for bit. Held
// modules have few bits/key (k is 1 or 2): a call into a dispatched kernel
// per module cost more than this.
inline bool BlockMayMatch(const uint8_t* block, int num_probes, uint64_t hash) {
  const uint32_t seed = ProbeSeed(hash);
  for (int p = 0; p < num_probes; ++p) {
    const uint32_t bit = BitInBlock(seed, p);
    if ((block[bit / 8] & (1u << (bit % 8))) == 0) return false;
  }
  return true;
}

// ProbeHeldModules with hash_of(j) the key hash of item j. Interleaved
// files: the first of each item's lines requested together, then each
// item's modules probed in order, on adjacent lines, to its first "no".
// The others in rounds: round m fetches module m + 1's block of every item
// still "maybe" that holds it, all in flight together, then probes them.
template <class HashOf>
void ProbeHeld(const FileMeta* const* files, size_t n, const HashOf& hash_of, bool* maybe) {
  constexpr size_t kItems = 64;
  const uint8_t* blocks[kItems];
  uint64_t hashes[kItems];
  size_t at[kItems];
  bool any_apart = false;
  for (size_t first = 0; first < n;) {
    size_t size = 0;
    for (; first < n && size < kItems; ++first) {
      const HeldModules* held = files[first]->held;
      if (!maybe[first] || held == nullptr) continue;
      if (held->interleaved == nullptr) {
        any_apart = true;
        continue;
      }
      hashes[size] = hash_of(first);
      blocks[size] = held->InterleavedBlock(BlockOfHash(hashes[size], held->num_blocks), 0);
      PrefetchForRead(blocks[size]);
      at[size++] = first;
    }
    for (size_t k = 0; k < size; ++k) {
      const HeldModules& held = *files[at[k]]->held;
      for (size_t i = 0; i < held.count(); ++i) {
        // ModuleHash keeps the block: only the bits within it differ.
        if (!BlockMayMatch(blocks[k] + i * 64, held.infos[i].num_probes,
                           ModuleHash(hashes[k], static_cast<int>(i) + 1))) {
          maybe[at[k]] = false;
          break;
        }
      }
    }
  }
  if (!any_apart) return;
  for (size_t m = 0;; ++m) {
    bool any = false;
    for (size_t first = 0; first < n;) {
      size_t size = 0;
      for (; first < n && size < kItems; ++first) {
        const HeldModules* held = files[first]->held;
        if (!maybe[first] || held == nullptr || held->interleaved != nullptr ||
            held->count() <= m) {
          continue;
        }
        const BlockedBloomView& v = held->views[m];
        if (v.num_blocks == 0) {  // An empty module: no key.
          maybe[first] = false;
          continue;
        }
        hashes[size] = ModuleHash(hash_of(first), static_cast<int>(m) + 1);
        blocks[size] = v.bits + BlockOfHash(hashes[size], v.num_blocks) * kBlockBytes;
        PrefetchForRead(blocks[size]);
        at[size++] = first;
      }
      for (size_t k = 0; k < size; ++k) {
        const size_t j = at[k];
        maybe[j] = BlockMayMatch(blocks[k], files[j]->held->views[m].num_probes, hashes[k]);
      }
      any = any || size != 0;
    }
    if (!any) return;
  }
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
