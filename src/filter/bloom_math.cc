#include "lsmbloom/bloom_math.h"

#include <cmath>

namespace lsmbloom {

double StandardBloomFpr(double bits_per_key, int num_probes) {
  return std::pow(1.0 - std::exp(-num_probes / bits_per_key), num_probes);
}

double BlockedBloomFpr(double bits_per_key, int num_probes, int block_bits) {
  const double mean_load = block_bits / bits_per_key;
  const double bit_stays_clear = 1.0 - 1.0 / block_bits;
  // Sum the Poisson terms well past the mean; the tail beyond 12 standard
  // deviations is below 1e-30 and cannot move the result.
  const int last = static_cast<int>(mean_load + 12.0 * std::sqrt(mean_load) + 24.0);
  double sum = 0.0;
  for (int load = 0; load <= last; ++load) {
    const double log_p =
        -mean_load + load * std::log(mean_load) - std::lgamma(load + 1.0);
    const double fill =
        1.0 - std::pow(bit_stays_clear, static_cast<double>(num_probes) * load);
    sum += std::exp(log_p) * std::pow(fill, num_probes);
  }
  return sum;
}

int OptimalBlockedProbes(double bits_per_key) {
  int best = 1;
  double best_fpr = BlockedBloomFpr(bits_per_key, 1);
  for (int k = 2; k <= kMaxProbes; ++k) {
    const double fpr = BlockedBloomFpr(bits_per_key, k);
    if (fpr < best_fpr) {
      best = k;
      best_fpr = fpr;
    }
  }
  return best;
}

double BitsPerKeyForFpr(double target_fpr) {
  // FPR falls monotonically with bits/key at the optimal k: bisect in
  // thousandths of a bit.
  auto good_enough = [target_fpr](int milli_bits) {
    const double b = milli_bits / 1000.0;
    return BlockedBloomFpr(b, OptimalBlockedProbes(b)) <= target_fpr;
  };
  int lo = 1, hi = 1000;  // lo is never good enough; hi is raised until it is.
  while (!good_enough(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > (1 << 20)) return hi / 1000.0;  // Beyond 1000 bits/key: give up.
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (good_enough(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi / 1000.0;
}

double FprFromFill(double fill, int num_probes) {
  return std::pow(fill, num_probes);
}

}  // namespace lsmbloom
