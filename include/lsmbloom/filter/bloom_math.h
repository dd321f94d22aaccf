// The accuracy model of Bloom filters, standard and cache-line blocked.
//
// A blocked filter sends every key to one block of B bits (B = 512 here) and
// sets k bits inside it, each uniform over the block. Blocks receive different
// numbers of keys: with b bits per key the load L of a block is close to
// Poisson(B/b), and crowded blocks answer "maybe" more often than the average
// fill suggests. Two models of that, both Poisson mixtures over L:
//
//   mean fill:  FPR = sum_L Pois(L) * (1 - (1 - 1/B)^(k*L))^k
//   exact:      FPR = sum_L Pois(L) * E[(X_L / B)^k]
//
// where X_L is the number of distinct bits set by the k*L throws. The first
// raises the block's *expected* fill to the k-th power; since x^k is convex,
// the exact expectation is higher (Jensen), by 1.2% at 10 bits/key and 3.3%
// at 20. Measured filters match the exact model (tests/blocked_bloom_fpr_test)
// so lsmbloom predicts with it and picks k from it. Both are far above the
// standard formula (1 - e^(-k/b))^k, which ignores uneven block loads.
// At 10 bits/key: mean fill 0.957% (k = 7), exact 0.966% (k = 6), standard
// 0.819%.

#ifndef LSMBLOOM_FILTER_BLOOM_MATH_H_
#define LSMBLOOM_FILTER_BLOOM_MATH_H_

namespace lsmbloom {

// The blocked filter's block, one 64-byte cache line (in bytes and 32-bit
// words: blocked_bloom_layout.h), and the most bits a key sets in it, k: one
// 16-lane vector of positions.
inline constexpr int kBlockBits = 512;
inline constexpr int kMaxProbesPerKey = 16;

// FPR of a standard (unblocked) Bloom filter with `bits_per_key` and k probes.
double StandardBloomFpr(double bits_per_key, int num_probes);

// FPR of a blocked Bloom filter, exact model above.
// REQUIRES: bits_per_key > 0, 1 <= num_probes <= kMaxProbesPerKey, block_bits >= 16.
double BlockedBloomFpr(double bits_per_key, int num_probes, int block_bits = kBlockBits);

// The mean-fill approximation above: a lower bound on BlockedBloomFpr.
double BlockedBloomFprMeanFill(double bits_per_key, int num_probes, int block_bits = kBlockBits);

// The k in [1, kMaxProbesPerKey] that minimises BlockedBloomFpr at `bits_per_key`:
// a pure function, read from a table of the model's crossings (k rises by
// one at each, up to kMaxProbesPerKey from 35.4 bits/key on).
int OptimalBlockedProbes(double bits_per_key);

// The smallest bits/key (to 1/1000 bit) whose optimal blocked FPR is at most
// `target_fpr`. REQUIRES: 0 < target_fpr < 1.
double BitsPerKeyForFpr(double target_fpr);

// Predicted FPR of one block whose fraction `fill` of bits is set: fill^k.
double FprFromFill(double fill, int num_probes);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_BLOOM_MATH_H_
