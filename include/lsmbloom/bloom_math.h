// The accuracy model of Bloom filters, standard and cache-line blocked.
//
// A blocked filter sends every key to one block of B bits (B = 512 here) and
// sets k bits inside it. Blocks receive different numbers of keys: with n keys
// in m/B blocks the load of a block is close to Poisson(n*B/m), and crowded
// blocks answer "maybe" more often than the average fill suggests. The
// false-positive rate is therefore the Poisson mixture
//
//   FPR(b, k) = sum_L  Pois(L; B/b) * (1 - (1 - 1/B)^(k*L))^k
//
// for b bits per key, which is higher than the standard formula
// (1 - e^(-k/b))^k and has its optimum at a smaller k. lsmbloom chooses k from
// this model. At 10 bits/key: k = 7 and FPR = 0.957% (standard: 0.819%).

#ifndef LSMBLOOM_BLOOM_MATH_H_
#define LSMBLOOM_BLOOM_MATH_H_

namespace lsmbloom {

inline constexpr int kBlockBits = 512;  // One 64-byte cache line.
inline constexpr int kMaxProbes = 16;   // k never exceeds one 16-lane vector.

// FPR of a standard (unblocked) Bloom filter with `bits_per_key` and k probes.
double StandardBloomFpr(double bits_per_key, int num_probes);

// FPR of a blocked Bloom filter (Poisson mixture above).
// REQUIRES: bits_per_key > 0, num_probes >= 1, block_bits >= 1.
double BlockedBloomFpr(double bits_per_key, int num_probes,
                       int block_bits = kBlockBits);

// The k in [1, kMaxProbes] that minimises BlockedBloomFpr at `bits_per_key`.
int OptimalBlockedProbes(double bits_per_key);

// The smallest bits/key (to 1/1000 bit) whose optimal blocked FPR is at most
// `target_fpr`. REQUIRES: 0 < target_fpr < 1.
double BitsPerKeyForFpr(double target_fpr);

// Predicted FPR of one block whose fraction `fill` of bits is set: fill^k.
double FprFromFill(double fill, int num_probes);

}  // namespace lsmbloom

#endif  // LSMBLOOM_BLOOM_MATH_H_
