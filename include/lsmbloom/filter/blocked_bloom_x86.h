// The probe of one block with AVX2 or AVX-512, as inline functions that carry
// their own target attribute.
//
// Two kinds of callers inline them: the per-target code of
// blocked_bloom-inl.h (Highway compiles it for each target the CPU may
// have), and BlockedBloomReader::MayMatchHash itself when the caller is
// compiled for AVX2 or better (-mavx2, -march=native): then a probe costs no
// call at all. GCC and Clang inline a function into a caller whose target
// includes the function's, and refuse otherwise, so a build without those
// flags cannot reach them by mistake.
//
// Both compute the layout of blocked_bloom_layout.h: lane i works out probe i
// (bit (seed * kProbeMultipliers[i]) >> 23); its top 4 bits pick the 32-bit
// word of the block and the next 5 the bit in it.

#ifndef LSMBLOOM_FILTER_BLOCKED_BLOOM_X86_H_
#define LSMBLOOM_FILTER_BLOCKED_BLOOM_X86_H_

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define LSMBLOOM_HAVE_X86_PROBES 1

#include <immintrin.h>

#include <cstdint>

#include "lsmbloom/filter/blocked_bloom_layout.h"

// always_inline: these are a handful of instructions, and a call would cost
// as much as the probe.
#define LSMBLOOM_TARGET_AVX2 __attribute__((target("avx2"), always_inline)) inline
#define LSMBLOOM_TARGET_AVX512 __attribute__((target("avx512f"), always_inline)) inline

namespace lsmbloom {
namespace internal {

// 1 in each of lanes [8 * half, 8 * half + 8) that stands for a probe below
// k, 0 in the others: shifting it makes each live lane's one-hot bit and
// leaves dead lanes empty, with no mask to apply.
LSMBLOOM_TARGET_AVX2 __m256i Avx2LiveLanes(int num_probes, int half) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(num_probes - 8 * half), lane);
  return _mm256_srli_epi32(live, 31);
}

// The block's two 32-byte halves; one vector multiply yields 8 probes, the
// top bit of each word index (the product's sign) picks the half in one
// blend, and one vptest says whether every wanted bit is set. A second round
// only when k > 8. `live_low`/`live_high` are Avx2LiveLanes(k, 0) and (k, 1).
LSMBLOOM_TARGET_AVX2 bool ProbeBlockAvx2(const uint8_t* block, uint32_t seed, int num_probes,
                                         __m256i live_low, __m256i live_high) {
  const __m256i* halves = reinterpret_cast<const __m256i*>(block);
  const __m256i lower = _mm256_loadu_si256(halves);
  const __m256i upper = _mm256_loadu_si256(halves + 1);
  const __m256i seeds = _mm256_set1_epi32(static_cast<int>(seed));
  int all_set = 1;
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && num_probes <= 8) break;
    const __m256i product = _mm256_mullo_epi32(
        seeds,
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kProbeMultipliers + 8 * round)));
    // vpermd reads only the low 3 bits of each index.
    const __m256i word = _mm256_srli_epi32(product, 28);
    const __m256i got = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lower, word)),
                         _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(upper, word)),
                         _mm256_castsi256_ps(product)));
    const __m256i bit = _mm256_sllv_epi32(round == 0 ? live_low : live_high,
                                          _mm256_srli_epi32(_mm256_slli_epi32(product, 4), 27));
    all_set &= _mm256_testc_si256(got, bit);
  }
  return all_set != 0;
}

// Lanes below k: the mask ProbeBlockAvx512 tests under.
inline uint16_t Avx512LiveLanes(int num_probes) {
  return static_cast<uint16_t>((uint32_t{1} << num_probes) - 1);
}

// The whole block is one register, and k lanes, one per probe, test their
// bits under a lane mask. A rotate by the position makes the one-hot bit
// (its count is taken mod 32, which saves masking it). Every op is
// zero-masked to the live lanes: GCC 12 warns about the "undefined"
// pass-through operand of the unmasked forms, and dead lanes are ignored.
LSMBLOOM_TARGET_AVX512 bool ProbeBlockAvx512(const uint8_t* block, uint32_t seed, uint16_t live) {
  const __mmask16 lanes = static_cast<__mmask16>(live);
  const __m512i product = _mm512_mullo_epi32(
      _mm512_set1_epi32(static_cast<int>(seed)), _mm512_loadu_si512(kProbeMultipliers));
  const __m512i words = _mm512_loadu_si512(block);
  const __m512i got =
      _mm512_maskz_permutexvar_epi32(lanes, _mm512_maskz_srli_epi32(lanes, product, 28), words);
  const __m512i bit = _mm512_maskz_rolv_epi32(lanes, _mm512_set1_epi32(1),
                                              _mm512_maskz_srli_epi32(lanes, product, 23));
  return _mm512_mask_testn_epi32_mask(lanes, got, bit) == 0;
}

}  // namespace internal
}  // namespace lsmbloom

#undef LSMBLOOM_TARGET_AVX2
#undef LSMBLOOM_TARGET_AVX512

#endif  // x86 with GCC or Clang

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_X86_H_
