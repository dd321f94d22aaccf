// Where a hash lands in a Ribbon filter: the layout of format version 1.
//
// A Ribbon filter (Dillinger & Walzer, "Ribbon filter: practically smaller
// than Bloom and Xor", 2021) stores a solution S of a linear system over
// GF(2): num_slots rows of r bits. Each key contributes one equation: a
// 128-bit coefficient row c, placed at a start slot s, must give
//
//     XOR over t in [0, 128) with bit t of c set, of S[s + t]   ==   0
//
// in every one of the r result columns. This is the homogeneous variant: the
// right-hand side is always zero, so every key set has a solution and
// construction never fails. A query recomputes c and s from the key's hash and
// answers "maybe" only if all r parities are zero.
//
// These few lines define the format (docs/FORMAT.md, "Ribbon filter"): the
// builder, the reader and the golden tests compute exactly this. Changing any
// constant changes the bytes of every filter and needs a new format version.
//
//   num_starts = num_slots - 127
//   placed     = hash * m                                   mod 2^64
//   start      = ((placed >> 32) * num_starts) >> 32        multiply-shift
//   c          = (Remix(hash ^ kCoeffSeedHi) << 64) | Remix(hash ^ kCoeffSeedLo) | 1
//
// (128 bits; the two halves are mixed independently, so a probe computes
// them in parallel). m = RibbonStartMultiplier(layout seed), an odd constant
// the filter names (seed 0: m = 1, the hash's high half unchanged): a
// builder whose band saturated where starts cluster lays the same keys out
// anew with another seed, where they do not.
//
// The first coefficient is always one, so the equation's pivot is its start
// slot. Starts follow the placed hashes' order, so the builder sorts by
// placed hash (m is odd: multiplying is a bijection) and bands in that
// order.
//
// Solution storage is interleaved: slots are grouped into segments of 64, and
// segment b stores its r_b columns as r_b consecutive little-endian 64-bit
// words, bit i of word j being column j of slot 64 * b + i. Segments before
// upper_start have r columns, the others r + 1: mixing the two gives any
// fractional number of bits per key. A key starting in segment b reads the
// r_b columns of segments b, b + 1 and b + 2 (its 128 slots span three of
// them unless it starts on a segment boundary).

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_LAYOUT_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_LAYOUT_H_

#include <cstdint>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "lsmbloom reads Ribbon solution words as little-endian; port it first"
#endif

namespace lsmbloom {
namespace internal {

inline constexpr int kRibbonCoeffBits = 128;
inline constexpr int kRibbonSegmentSlots = 64;
// Result columns: r + 1 of the upper segments is at most this.
inline constexpr int kRibbonMaxColumns = 32;
// num_starts = num_slots - 127 must fit the 32-bit multiply-shift.
inline constexpr uint64_t kRibbonMaxSegments = uint64_t{1} << 26;

inline constexpr uint64_t kCoeffSeedLo = 0x2f0a7c6d15b3e981ULL;
inline constexpr uint64_t kCoeffSeedHi = 0xc1d94e2b7a60f35dULL;
// Free slots (no equation pivots there) take pseudo-random bits, so that an
// absent key's parities are uniform: Remix(slot ^ kFreeSlotSeed), bit j for
// column j.
inline constexpr uint64_t kFreeSlotSeed = 0x6b43a9b5e2d1c087ULL;

// A bijective 64-bit mixer (two multiply-xorshift rounds).
inline uint64_t RibbonRemix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xe9846af9b1a615dULL;
  x ^= x >> 32;
  x *= 0xe9846af9b1a615dULL;
  x ^= x >> 28;
  return x;
}

// The start multiplier of layout seed `seed`: 1 for seed 0, else odd.
inline uint64_t RibbonStartMultiplier(uint32_t seed) {
  return seed == 0 ? 1 : RibbonRemix(seed * 0x9e3779b97f4a7c15ULL) | 1;
}

// The start of a placed hash (hash * RibbonStartMultiplier(seed)).
// REQUIRES: 1 <= num_starts <= 2^32.
inline uint64_t RibbonStart(uint64_t placed, uint64_t num_starts) {
  return ((placed >> 32) * num_starts) >> 32;
}

struct RibbonCoeffs {
  uint64_t lo;  // Slots start .. start + 63; bit 0 always set.
  uint64_t hi;  // Slots start + 64 .. start + 127.
};

inline RibbonCoeffs RibbonCoefficients(uint64_t hash) {
  return RibbonCoeffs{RibbonRemix(hash ^ kCoeffSeedLo) | 1, RibbonRemix(hash ^ kCoeffSeedHi)};
}

// Word offset of segment `segment`'s first column: lower segments hold
// `columns` words, segments from `upper_start` on one more.
inline uint64_t RibbonSegmentOffset(uint64_t segment, uint64_t columns, uint64_t upper_start) {
  return segment * columns + (segment > upper_start ? segment - upper_start : 0);
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_RIBBON_LAYOUT_H_
