// filter_memory_bench's data: the tree's shape and key count, the cap, the
// key streams, and skipping where direct reads are refused.

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/filter_memory_bench.h"
#include "lsmbloom/io/file.h"

namespace lsmbloom {
namespace bench {
namespace memory {

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void Die(const std::string& what) {
  std::fprintf(stderr, "filter_memory_bench: %s\n", what.c_str());
  std::exit(1);
}

bool Quick() {
  const char* quick = std::getenv("LSMBLOOM_BENCH_QUICK");
  return quick != nullptr && *quick != '\0';
}

uint64_t NumKeys() {
  static const uint64_t n = [] {
    const char* v = std::getenv("LSMBLOOM_MEMORY_KEYS");
    if (v == nullptr || *v == '\0') return Quick() ? uint64_t{100000} : uint64_t{10000000};
    uint64_t keys = 0;
    if (!absl::SimpleAtoi(v, &keys) || keys < 10000) {
      std::fprintf(stderr, "filter_memory_bench: LSMBLOOM_MEMORY_KEYS=%s is not a count >= 10000\n",
                   v);
      std::exit(2);
    }
    return keys;
  }();
  return n;
}

std::vector<fixture::LevelSpec> MemoryShape() {
  // DeepShape's shares, four times its files in levels 1 to 4.
  return {{4, 160, 1.0}, {3, 32, 0.1}, {2, 8, 0.01}, {1, 4, 0.001}, {0, 4, 0.004}};
}

const Data& TheData() {
  static const Data* data = [] {
    auto* d = new Data;
    // /tmp, as lookup_bench's data: the disk the benchmarks read.
    char tmpl[] = "/tmp/lsmbloom-memory-bench-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) Die("cannot create a directory in /tmp");
    d->dir = tmpl;
    std::atexit([] {
      const std::string rm = "rm -rf " + TheData().dir;
      if (std::system(rm.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", rm.c_str());
    });
    const Clock::time_point start = Clock::now();
    d->layout = fixture::MakeLayout(NumKeys(), 42, MemoryShape());
    for (const fixture::FileSpec& f : d->layout) d->entries += f.entries.size();
    std::fprintf(stderr, "filter_memory_bench: laid out %llu keys (%llu entries) in %.1f s\n",
                 static_cast<unsigned long long>(NumKeys()),
                 static_cast<unsigned long long>(d->entries), Seconds(start));
    return d;
  }();
  return *data;
}

uint64_t CapBytes() {
  return static_cast<uint64_t>(kCapBitsPerKey * static_cast<double>(TheData().entries) / 8);
}

namespace {

// Why TheData().dir refuses O_DIRECT (tmpfs and some overlays do), or
// empty: asked once, of a small file written there.
const std::string& DirectReadsRefused() {
  static const std::string* why = [] {
    const std::string path = TheData().dir + "/direct-probe";
    absl::Status s;
    absl::StatusOr<std::unique_ptr<WritableFile>> w = NewPosixWritableFile(path);
    if (!w.ok()) {
      s = w.status();
    } else {
      s = (*w)->Append(std::string(4096, 'x'));
      if (s.ok()) s = (*w)->Close();
    }
    if (s.ok()) s = OpenPosixFile(path, FileAccess::kDirect).status();
    ::unlink(path.c_str());
    return new std::string(s.ok() ? "" : absl::StrCat("direct reads refused: ", s.message()));
  }();
  return *why;
}

// Ranks in [0, n) with P(r) proportional to 1 / (r + 1)^theta, drawn by
// the closed-form approximation of Gray et al. (SIGMOD 1994) that YCSB
// uses: exact for ranks 0 and 1, a power law in between.
class ZipfRanks {
 public:
  ZipfRanks(uint64_t n, double theta) : n_(n), theta_(theta), alpha_(1 / (1 - theta)) {
    for (uint64_t i = 1; i <= n; ++i) zeta_n_ += std::pow(static_cast<double>(i), -theta);
    const double zeta_2 = 1 + std::pow(2.0, -theta);
    eta_ = (1 - std::pow(2.0 / static_cast<double>(n), 1 - theta)) / (1 - zeta_2 / zeta_n_);
    second_ = 1 + std::pow(0.5, theta);
  }

  uint64_t Draw(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const double scaled = u * zeta_n_;
    if (scaled < 1) return 0;
    if (scaled < second_) return 1;
    const double r = static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1, alpha_);
    return std::min<uint64_t>(static_cast<uint64_t>(r), n_ - 1);
  }

 private:
  uint64_t n_;
  double theta_, alpha_;
  double zeta_n_ = 0, eta_ = 0, second_ = 0;
};

constexpr double kTheta = 0.99;

// A fixed bijection of [0, n) that scatters neighbours: multiplication by a
// prime larger than any n here (so coprime with n), modulo n.
uint64_t Scatter(uint64_t rank, uint64_t n) {
  constexpr uint64_t kPrime = 4294967291;  // The largest prime below 2^32.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rank) * kPrime) % n);
}

}  // namespace

bool Skipped(benchmark::State& state) {
  if (DirectReadsRefused().empty()) return false;
  state.SkipWithError(DirectReadsRefused().c_str());
  return true;
}

const char* NameOf(Stream s) {
  switch (s) {
    case Stream::kZipfMixed:
      return "ZipfMixed";
    case Stream::kZipfScrambled:
      return "ZipfScrambled";
    case Stream::kUniformMixed:
      return "UniformMixed";
  }
  return "?";
}

// Warm-up: enough lookups for a cache of the cap to fill (RocksDB's filter
// partitions) and for observed access to settle (modular filters); the
// measured lookups after it. A sixteenth of each under --quick.
size_t WarmupCount() { return Quick() ? 8192 : 131072; }
size_t MeasuredCount() { return Quick() ? 4096 : 65536; }

const Lookups& LookupsOf(Stream s) {
  static std::map<Stream, Lookups>* streams = new std::map<Stream, Lookups>;
  Lookups& l = (*streams)[s];
  if (!l.keys.empty()) return l;
  const uint64_t n = NumKeys();  // Key index i is id 2i (fixture: even ids exist).
  static const ZipfRanks* zipf = new ZipfRanks(n, kTheta);
  const Clock::time_point start = Clock::now();
  std::mt19937_64 rng(4100 + static_cast<int>(s));
  const size_t count = WarmupCount() + MeasuredCount();
  for (size_t i = 0; i < count; ++i) {
    uint64_t index;
    switch (s) {
      case Stream::kZipfMixed:
        index = zipf->Draw(rng);
        break;
      case Stream::kZipfScrambled:
        index = Scatter(zipf->Draw(rng), n);
        break;
      case Stream::kUniformMixed:
      default:
        index = std::uniform_int_distribution<uint64_t>(0, n - 1)(rng);
        break;
    }
    const bool present = (rng() & 1) != 0;
    l.keys.push_back(fixture::KeyOf(2 * index + (present ? 0 : 1)));
    l.has_entry.push_back(present);
  }
  std::fprintf(stderr, "filter_memory_bench: drew %zu %s keys in %.1f s\n", count, NameOf(s),
               Seconds(start));
  return l;
}

}  // namespace memory
}  // namespace bench
}  // namespace lsmbloom
