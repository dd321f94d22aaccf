// Highway kernels for probing and building blocked filters.
//
// This file is compiled once per SIMD target through foreach_target.h. A block
// is 16 32-bit words; a vector holds 16 / kVectorsPerBlock of them (one
// AVX-512 register is a whole block). The k probe positions of a key are
// computed in parallel lanes, each lane fetches the block word its bit lives
// in (a lane permutation, no memory gather) and the key matches when no lane
// misses its bit. Block geometry never depends on vector width.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/filter/simd_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "src/filter/block_layout.h"
#include "src/filter/reference_kernels.h"
#include "src/filter/simd_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// How many keys ahead a prefetching batch fetches blocks: enough to cover a
// DRAM miss with the probes in between.
constexpr size_t kPrefetchDistance = 24;

#if HWY_TARGET == HWY_SCALAR

// One lane per vector gains nothing: the scalar target is the reference.
bool ProbeOne(const uint8_t* bits, uint64_t num_blocks, int num_probes,
              uint64_t hash) {
  return ReferenceProbe(bits, num_blocks, num_probes, hash);
}

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                const uint64_t* hashes, size_t n, bool* out, bool prefetch) {
  for (size_t i = 0; i < n; ++i) {
    if (prefetch && i + kPrefetchDistance < n) {
      hwy::Prefetch(bits + BlockIndex(hashes[i + kPrefetchDistance], num_blocks) *
                               kBlockBytes);
    }
    out[i] = ReferenceProbe(bits, num_blocks, num_probes, hashes[i]);
  }
}

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes,
               const uint64_t* hashes, size_t n) {
  ReferenceAdd(bits, num_blocks, num_probes, hashes, n);
}

#else  // SIMD targets

using D = hn::CappedTag<uint32_t, kBlockWords>;
using V = hn::Vec<D>;
constexpr size_t kLanes = hn::MaxLanes(D());
constexpr size_t kVectorsPerBlock = kBlockWords / kLanes;
constexpr int kLog2Lanes = kLanes == 16 ? 4 : kLanes == 8 ? 3 : kLanes == 4 ? 2
                                                                           : 1;
static_assert((size_t{1} << kLog2Lanes) == kLanes, "lanes must divide a block");

// Per-call constants: the multipliers of each chunk of kLanes probes, and a
// mask that is all ones for the probes that exist (k may be < the lanes).
// Built as locals, never as statics: a static vector would be initialised
// before dispatch has checked the CPU.
struct ProbeConstants {
  V multipliers[kVectorsPerBlock];
  V live[kVectorsPerBlock];
  size_t chunks;

  explicit HWY_INLINE ProbeConstants(int num_probes) {
    const D d;
    chunks = (static_cast<size_t>(num_probes) + kLanes - 1) / kLanes;
    const V lane = hn::Iota(d, 0);
    for (size_t c = 0; c < kVectorsPerBlock; ++c) {
      multipliers[c] = hn::LoadU(d, kProbeMultipliers + c * kLanes);
      const V probe = hn::Add(lane, hn::Set(d, static_cast<uint32_t>(c * kLanes)));
      live[c] = hn::VecFromMask(
          d, hn::Lt(probe, hn::Set(d, static_cast<uint32_t>(num_probes))));
    }
  }
};

// Bit positions (0..511) of the probes in chunk `c` of `seed`.
HWY_INLINE V Positions(D d, uint32_t seed, const ProbeConstants& consts,
                       size_t c) {
  return hn::ShiftRight<23>(hn::Mul(hn::Set(d, seed), consts.multipliers[c]));
}

HWY_INLINE bool ProbeBlock(const uint8_t* block, uint32_t seed,
                           const ProbeConstants& consts) {
  const D d;
  const hn::RebindToUnsigned<D> du;
  V words[kVectorsPerBlock];
  for (size_t s = 0; s < kVectorsPerBlock; ++s) {
    words[s] = hn::LoadU(d, reinterpret_cast<const uint32_t*>(block) + s * kLanes);
  }
  V missing = hn::Zero(d);
  for (size_t c = 0; c < consts.chunks; ++c) {
    const V pos = Positions(d, seed, consts, c);
    const V word_index = hn::ShiftRight<5>(pos);
    const V wanted = hn::And(
        hn::Set(d, 1u) << hn::And(pos, hn::Set(d, 31u)), consts.live[c]);
    const auto lookup = hn::IndicesFromVec(
        du, hn::And(word_index, hn::Set(d, static_cast<uint32_t>(kLanes - 1))));
    V got = hn::TableLookupLanes(words[0], lookup);
    if (kVectorsPerBlock > 1) {
      const V which = hn::ShiftRight<kLog2Lanes>(word_index);
      for (size_t s = 1; s < kVectorsPerBlock; ++s) {
        got = hn::IfThenElse(hn::Eq(which, hn::Set(d, static_cast<uint32_t>(s))),
                             hn::TableLookupLanes(words[s], lookup), got);
      }
    }
    missing = hn::Or(missing, hn::AndNot(got, wanted));
  }
  return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
}

bool ProbeOne(const uint8_t* bits, uint64_t num_blocks, int num_probes,
              uint64_t hash) {
  const ProbeConstants consts(num_probes);
  return ProbeBlock(bits + BlockIndex(hash, num_blocks) * kBlockBytes,
                    ProbeSeed(hash), consts);
}

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                const uint64_t* hashes, size_t n, bool* out, bool prefetch) {
  const ProbeConstants consts(num_probes);
  if (!prefetch) {
    for (size_t i = 0; i < n; ++i) {
      out[i] = ProbeBlock(bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes,
                          ProbeSeed(hashes[i]), consts);
    }
    return;
  }
  const size_t lead = n < kPrefetchDistance ? n : kPrefetchDistance;
  for (size_t i = 0; i < lead; ++i) {
    hwy::Prefetch(bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes);
  }
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchDistance < n) {
      hwy::Prefetch(bits + BlockIndex(hashes[i + kPrefetchDistance], num_blocks) *
                               kBlockBytes);
    }
    out[i] = ProbeBlock(bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes,
                        ProbeSeed(hashes[i]), consts);
  }
}

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes,
               const uint64_t* hashes, size_t n) {
  const D d;
  const ProbeConstants consts(num_probes);
  HWY_ALIGN uint32_t positions[kBlockWords];
  for (size_t i = 0; i < n; ++i) {
    uint8_t* block = bits + BlockIndex(hashes[i], num_blocks) * kBlockBytes;
    const uint32_t seed = ProbeSeed(hashes[i]);
    for (size_t c = 0; c < consts.chunks; ++c) {
      hn::Store(Positions(d, seed, consts, c), d, positions + c * kLanes);
    }
    for (int probe = 0; probe < num_probes; ++probe) {
      const uint32_t bit = positions[probe];
      OrWord(block + (bit / 32) * 4, 1u << (bit % 32));
    }
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

int64_t Target() { return HWY_TARGET; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace internal
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lsmbloom {
namespace internal {

HWY_EXPORT(ProbeOne);
HWY_EXPORT(ProbeBatch);
HWY_EXPORT(AddHashes);
HWY_EXPORT(Target);

ProbeOneFn ChosenProbeOne() {
  // Before the first dispatch the table's current entry is Highway's
  // initialising trampoline; make sure the real choice has been made.
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return &HWY_DYNAMIC_DISPATCH(ProbeOne);
}

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks, int num_probes,
                const uint64_t* hashes, size_t n, bool* out, bool prefetch) {
  HWY_DYNAMIC_DISPATCH(ProbeBatch)(bits, num_blocks, num_probes, hashes, n,
                                   out, prefetch);
}

void AddHashes(uint8_t* bits, uint64_t num_blocks, int num_probes,
               const uint64_t* hashes, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddHashes)(bits, num_blocks, num_probes, hashes, n);
}

int64_t ChosenTarget() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace internal
}  // namespace lsmbloom
#endif  // HWY_ONCE
