#include "lsmbloom/filter/bloom_math.h"

#include <cmath>

namespace lsmbloom {

double StandardBloomFpr(double bits_per_key, int num_probes) {
  return std::pow(1.0 - std::exp(-num_probes / bits_per_key), num_probes);
}

namespace {

// Sums term(L) * Pois(L; mean) over block loads L well past the mean; the
// tail beyond 12 standard deviations is below 1e-30 and cannot move it.
template <typename Term>
double PoissonMixture(double mean_load, Term term) {
  const int last = static_cast<int>(mean_load + 12.0 * std::sqrt(mean_load) + 24.0);
  double sum = 0.0;
  for (int load = 0; load <= last; ++load) {
    const double log_p = -mean_load + load * std::log(mean_load) - std::lgamma(load + 1.0);
    sum += std::exp(log_p) * term(load);
  }
  return sum;
}

double Binomial(int n, int r) {
  double c = 1.0;
  for (int i = 1; i <= r; ++i) c = c * (n - r + i) / i;
  return c;
}

}  // namespace

double BlockedBloomFprMeanFill(double bits_per_key, int num_probes, int block_bits) {
  const double stays_clear = 1.0 - 1.0 / block_bits;
  return PoissonMixture(block_bits / bits_per_key, [&](int load) {
    const double fill = 1.0 - std::pow(stays_clear, static_cast<double>(num_probes) * load);
    return std::pow(fill, num_probes);
  });
}

double BlockedBloomFpr(double bits_per_key, int num_probes, int block_bits) {
  // A probe's k positions cover j distinct bits with probability
  // S(k, j) * B(B-1)...(B-j+1) / B^k (S: Stirling numbers of the second
  // kind). After t = k*L throws, j given bits are all set with probability
  // sum_i (-1)^i C(j, i) (1 - i/B)^t (inclusion-exclusion).
  const int k = num_probes;
  const double B = block_bits;
  double stirling[kMaxProbesPerKey + 1][kMaxProbesPerKey + 1] = {};
  stirling[0][0] = 1.0;
  for (int n = 1; n <= k; ++n) {
    for (int j = 1; j <= n; ++j) {
      stirling[n][j] = j * stirling[n - 1][j] + stirling[n - 1][j - 1];
    }
  }
  double covers[kMaxProbesPerKey + 1] = {};
  for (int j = 1; j <= k; ++j) {
    double falling = 1.0;  // B(B-1)..(B-j+1) / B^j
    for (int i = 0; i < j; ++i) falling *= (B - i) / B;
    covers[j] = stirling[k][j] * falling * std::pow(B, j - k);
  }
  // clear[i] = (1 - i/B)^(k*L), advanced by one factor per load: the
  // mixture below visits loads in increasing order, so no pow() per term.
  double clear[kMaxProbesPerKey + 1], step[kMaxProbesPerKey + 1];
  for (int i = 0; i <= k; ++i) {
    clear[i] = 1.0;
    step[i] = std::pow(1.0 - i / B, k);
  }
  double binomial[kMaxProbesPerKey + 1][kMaxProbesPerKey + 1];
  for (int j = 0; j <= k; ++j) {
    for (int i = 0; i <= j; ++i) binomial[j][i] = Binomial(j, i);
  }
  int next_load = 0;
  return PoissonMixture(block_bits / bits_per_key, [&](int load) {
    for (; next_load < load; ++next_load) {
      for (int i = 0; i <= k; ++i) clear[i] *= step[i];
    }
    double p = 0.0;
    for (int j = 1; j <= k; ++j) {
      double all_set = 0.0;
      for (int i = 0; i <= j; ++i) {
        all_set += ((i % 2 == 0) ? 1.0 : -1.0) * binomial[j][i] * clear[i];
      }
      p += covers[j] * all_set;
    }
    return p;
  });
}

namespace {

// kProbeThresholds[k - 1]: the bits/key from which k + 1 probes give a lower
// BlockedBloomFpr than k (the model's crossings, found by bisection to the
// last bit of a double; bloom_math_test checks every entry against the
// model). The optimum rises one probe at a time, so the thresholds ascend.
constexpr double kProbeThresholds[] = {
    2.0819749013786271,  // 1 -> 2
    3.5841956306281482,  // 2 -> 3
    5.1036919039685795,  // 3 -> 4
    6.6734140570221445,  // 4 -> 5
    8.3170992033113329,  // 5 -> 6
    10.05795167817803,   // 6 -> 7
    11.920637620780543,  // 7 -> 8
    13.932252855027915,  // 8 -> 9
    16.123099440431055,  // 9 -> 10
    18.527480722886128,  // 10 -> 11
    21.18459674909808,   // 11 -> 12
    24.139590876301412,  // 12 -> 13
    27.444791722457214,  // 13 -> 14
    31.161218459380805,  // 14 -> 15
    35.360352250552658,  // 15 -> 16
};
static_assert(sizeof(kProbeThresholds) / sizeof(kProbeThresholds[0]) == kMaxProbesPerKey - 1,
              "one threshold between each two consecutive k");

}  // namespace

int OptimalBlockedProbes(double bits_per_key) {
  int k = 1;
  while (k < kMaxProbesPerKey && bits_per_key >= kProbeThresholds[k - 1]) ++k;
  return k;
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

double FprFromFill(double fill, int num_probes) { return std::pow(fill, num_probes); }

}  // namespace lsmbloom
