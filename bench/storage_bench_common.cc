// The storage cases' shared pieces (storage_bench.h): timing, skipping,
// the key sets, the counters.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>

#include "bench/storage_bench.h"
#include "lsmbloom/io/file.h"
#include "tools/lsm_fixture.h"

namespace lsmbloom {
namespace bench {
namespace storage {

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int64_t Iterations(int64_t n) {
  const char* quick = std::getenv("LSMBLOOM_BENCH_QUICK");
  return quick != nullptr && *quick != '\0' ? n / 16 : n;
}

namespace {

// Why the tables cannot be read directly here (tmpfs, some overlays refuse
// O_DIRECT), or empty: asked of a small file beside the tables. Every case
// then skips with that message rather than end the whole binary.
const std::string& DirectReadsRefused() {
  static const std::string* why = [] {
    const std::string path = TheData().dir + "/direct-probe";
    absl::Status s;
    if (absl::StatusOr<std::unique_ptr<WritableFile>> w = NewPosixWritableFile(path); !w.ok()) {
      s = w.status();
    } else if (s = (*w)->Append(std::string(4096, 'x')); s.ok()) {
      s = (*w)->Close();
    }
    if (s.ok()) s = OpenPosixFile(path, FileAccess::kDirect).status();
    return new std::string(s.ok() ? "" : "direct reads refused: " + std::string(s.message()));
  }();
  return *why;
}

}  // namespace

bool Skipped(benchmark::State& state) {
  if (DirectReadsRefused().empty()) return false;
  state.SkipWithError(DirectReadsRefused().c_str());
  return true;
}

// ---- Keys ----

namespace {

// Zipfian ranks in [0, n), rank 0 the most frequent (Gray et al., "Quickly
// generating billion-record synthetic databases", as YCSB draws them).
class Zipf {
 public:
  Zipf(uint64_t n, double theta) : n_(n), theta_(theta) {
    double zetan = 0;
    for (uint64_t i = 1; i <= n; ++i) zetan += 1 / std::pow(static_cast<double>(i), theta);
    zetan_ = zetan;
    alpha_ = 1 / (1 - theta);
    const double zeta2 = 1 + std::pow(0.5, theta);
    eta_ = (1 - std::pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetan);
  }

  uint64_t Next(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const double uz = u * zetan_;
    if (uz < 1) return 0;
    if (uz < 1 + std::pow(0.5, theta_)) return 1;
    const auto r = static_cast<uint64_t>(n_ * std::pow(eta_ * u - eta_ + 1, alpha_));
    return std::min(r, n_ - 1);
  }

 private:
  uint64_t n_;
  double theta_, zetan_, alpha_, eta_;
};

}  // namespace

const char* NameOf(Keys k) {
  switch (k) {
    case Keys::kAbsent:
      return "Absent";
    case Keys::kPresent:
      return "Present";
    case Keys::kPresentZipf:
      return "PresentZipf";
    case Keys::kMixed:
      return "Mixed";
    case Keys::kMixedZipf:
      return "MixedZipf";
  }
  return "?";
}

// WarmLookups() keys and then kGets more (kBatches * kBatch at most), the same for every
// engine (fixed seeds). Key index i is id 2i if present, 2i + 1 if absent
// (tools/lsm_fixture.h); a Zipfian rank r is index (r * p) mod n for a
// prime p > n, a bijection that scatters the hot ranks.
const std::vector<std::string>& KeysOf(Keys k) {
  static std::map<Keys, std::vector<std::string>> sets;
  std::vector<std::string>& keys = sets[k];
  if (!keys.empty()) return keys;
  const uint64_t n = NumKeys();
  static const Zipf* zipf = new Zipf(n, kZipfTheta);
  std::mt19937_64 rng(1000 + static_cast<int>(k));
  const bool zipfian = k == Keys::kPresentZipf || k == Keys::kMixedZipf;
  static_assert(kGets >= kBatches * kBatch);
  const size_t count = WarmLookups() + Iterations(kGets);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t index = zipfian ? zipf->Next(rng) * uint64_t{2654435761} % n
                                   : std::uniform_int_distribution<uint64_t>(0, n - 1)(rng);
    bool present = k == Keys::kPresent || k == Keys::kPresentZipf;
    if (k == Keys::kMixed || k == Keys::kMixedZipf) present = rng() & 1;
    keys.push_back(fixture::KeyOf(2 * index + (present ? 0 : 1)));
  }
  return keys;
}

void SetCounters(benchmark::State& state, double seconds, double keys, double reads,
                 double hit_rate, double found) {
  state.counters["us_per_key"] = seconds * 1e6 / keys;
  state.counters["reads_per_key"] = reads / keys;
  state.counters["cache_hit_rate"] = hit_rate;
  state.counters["found"] = found / keys;
  state.SetItemsProcessed(static_cast<int64_t>(keys));
}

}  // namespace storage
}  // namespace bench
}  // namespace lsmbloom
