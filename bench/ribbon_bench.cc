// The Ribbon filter beside lsmbloom's blocked Bloom filter, in one process,
// on the same keys (random 16-byte, bench_keys.h), hashed by the same
// KeyHash, both filters 64-byte aligned:
//
//   BM_BitsAtFpr/<kind>/<n>/<fpr ppm>: the fewest bits/key (to 0.005) whose
//     filter measures an FPR at most the target on 2^22 absent keys (the
//     search runs on one key set; counters bits_per_key, fpr, fpr_model).
//   BM_AtTargetFpr/<kind>/<n>/<fpr ppm>: built from the target FPR (as a
//     user would), its bits/key and measured FPR (2^22 absent keys).
//   BM_Build/<kind>/<n>: AddKey per key (hashing included) and Finish.
//   BM_QueryHash/<kind>/<n>: MayMatchHash per absent key, hashes precomputed.
//   BM_QueryBatch32/<kind>/<n>: MayMatchBatch over groups of 32 hashes.
//   BM_QueryKey/<kind>/<n>: MayMatch per absent key, hashing included.
//
// In the timed runs Ribbon is built at target FPR 1%, the blocked filter at
// 10 bits/key (its ~1% point: 0.96%), from 10^5 to 10^8 keys
// (LSMBLOOM_BENCH_MAX_KEYS caps n; the accuracy searches stop at 10^7).
// MayMatchBatch of both prefetches only for filters over twice the L2 cache.
// ns/key = 1e9 / items_per_second. Both readers' MayMatchHash here is the
// public API: one indirect call per key into the SIMD kernel picked at run
// time (this file has no -m flags); BM_QueryHashInline/RibbonScalar is the
// scalar reference probe inlined.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_keys.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/key_hash.h"
#include "src/filter/ribbon/ribbon_reference.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/util/aligned_buffer.h"

namespace lsmbloom {
namespace bench {
namespace {

constexpr size_t kFprProbeKeys = size_t{1} << 22;
constexpr size_t kChunk = 1024;

enum Kind { kRibbon, kBlocked };
const char* KindName(Kind kind) { return kind == kRibbon ? "Ribbon" : "BlockedBloom"; }

std::string BuildRibbon(size_t n, const RibbonOptions& options) {
  auto builder = RibbonBuilder::Create(options);
  const KeySet& keys = Present(n);
  for (size_t i = 0; i < n; ++i) builder->AddKey(keys[i]);
  return *builder->Finish();
}

std::string BuildBlocked(size_t n, const BlockedBloomOptions& options) {
  auto builder = BlockedBloomBuilder::Create(options);
  const KeySet& keys = Present(n);
  for (size_t i = 0; i < n; ++i) builder->AddKey(keys[i]);
  return *builder->Finish();
}

RibbonOptions RibbonAtOnePercent() {
  RibbonOptions options;
  options.target_fpr = 0.01;
  return options;
}

BlockedBloomOptions BlockedAtTenBits() {
  BlockedBloomOptions options;
  options.bits_per_key = 10;
  return options;
}

struct Filters {
  std::unique_ptr<internal::AlignedBuffer> ribbon_bytes, blocked_bytes;
  std::unique_ptr<RibbonReader> ribbon;
  std::unique_ptr<BlockedBloomReader> blocked;
};

// One pair of filters per n, built once per process.
const Filters& FiltersFor(size_t n) {
  static auto* cache = new std::map<size_t, Filters>;
  Filters& f = (*cache)[n];
  if (!f.ribbon) {
    f.ribbon_bytes.reset(new internal::AlignedBuffer(BuildRibbon(n, RibbonAtOnePercent()), 64));
    f.ribbon.reset(new RibbonReader(*RibbonReader::Open(f.ribbon_bytes->view())));
    f.blocked_bytes.reset(new internal::AlignedBuffer(BuildBlocked(n, BlockedAtTenBits()), 64));
    f.blocked.reset(new BlockedBloomReader(*BlockedBloomReader::Open(f.blocked_bytes->view())));
  }
  return f;
}

// Runs count(first) -> hits over consecutive chunks of kChunk probes.
template <typename Count>
void RunChunks(benchmark::State& state, Count count) {
  size_t next = 0, hits = 0;
  for (auto _ : state) {
    hits += count(next);
    next = (next + kChunk) % kProbeKeys;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * kChunk);
}

void BM_Build(benchmark::State& state, Kind kind) {
  const size_t n = state.range(0);
  Present(n);
  for (auto _ : state) {
    std::string filter =
        kind == kRibbon ? BuildRibbon(n, RibbonAtOnePercent()) : BuildBlocked(n, BlockedAtTenBits());
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_QueryHash(benchmark::State& state, Kind kind) {
  const Filters& f = FiltersFor(state.range(0));
  const uint64_t* hashes = AbsentHashes().data();
  if (kind == kRibbon) {
    const RibbonReader& r = *f.ribbon;
    RunChunks(state, [&](size_t first) {
      size_t hits = 0;
      for (size_t j = 0; j < kChunk; ++j) hits += r.MayMatchHash(hashes[first + j]);
      return hits;
    });
  } else {
    const BlockedBloomReader& r = *f.blocked;
    RunChunks(state, [&](size_t first) {
      size_t hits = 0;
      for (size_t j = 0; j < kChunk; ++j) hits += r.MayMatchHash(hashes[first + j]);
      return hits;
    });
  }
}

// The scalar reference probe, inlined (no call per key).
void BM_QueryHashInline(benchmark::State& state, Kind kind) {
  const Filters& f = FiltersFor(state.range(0));
  const uint64_t* hashes = AbsentHashes().data();
  const RibbonView v = f.ribbon->view();
  (void)kind;
  RunChunks(state, [&](size_t first) {
    size_t hits = 0;
    for (size_t j = 0; j < kChunk; ++j) hits += internal::RibbonMayMatch(v, hashes[first + j]);
    return hits;
  });
}

void BM_QueryBatch32(benchmark::State& state, Kind kind) {
  const Filters& f = FiltersFor(state.range(0));
  const uint64_t* hashes = AbsentHashes().data();
  bool out[32];
  RunChunks(state, [&](size_t first) {
    size_t hits = 0;
    for (size_t j = 0; j < kChunk; j += 32) {
      const auto in = absl::MakeConstSpan(hashes + first + j, 32);
      if (kind == kRibbon) {
        f.ribbon->MayMatchBatch(in, absl::MakeSpan(out));
      } else {
        f.blocked->MayMatchBatch(in, absl::MakeSpan(out));
      }
      for (bool b : out) hits += b;
    }
    return hits;
  });
}

void BM_QueryKey(benchmark::State& state, Kind kind) {
  const Filters& f = FiltersFor(state.range(0));
  const KeySet& probes = Absent();
  RunChunks(state, [&](size_t first) {
    size_t hits = 0;
    if (kind == kRibbon) {
      for (size_t j = 0; j < kChunk; ++j) hits += f.ribbon->MayMatch(probes[first + j]);
    } else {
      for (size_t j = 0; j < kChunk; ++j) hits += f.blocked->MayMatch(probes[first + j]);
    }
    return hits;
  });
}

// Measured FPR of `kind` at `bits` bits/key over n keys, and its geometry.
struct Point {
  double fpr, bits_per_key, model;
};

Point MeasureAt(Kind kind, size_t n, double bits) {
  const KeySet& absent = Keys(3, kFprProbeKeys);
  size_t fp = 0;
  Point p;
  if (kind == kRibbon) {
    RibbonOptions options;
    options.bits_per_key = bits;
    const std::string filter = BuildRibbon(n, options);
    auto r = *RibbonReader::Open(filter);
    for (size_t i = 0; i < kFprProbeKeys; ++i) fp += r.MayMatch(absent[i]);
    p.bits_per_key = 8.0 * filter.size() / n;  // Header included.
    p.model = r.geometry().predicted_fpr();
  } else {
    BlockedBloomOptions options;
    options.bits_per_key = bits;
    const std::string filter = BuildBlocked(n, options);
    auto r = *BlockedBloomReader::Open(filter);
    for (size_t i = 0; i < kFprProbeKeys; ++i) fp += r.MayMatch(absent[i]);
    p.bits_per_key = 8.0 * filter.size() / n;
    p.model = r.geometry().predicted_fpr();
  }
  p.fpr = static_cast<double>(fp) / kFprProbeKeys;
  return p;
}

void BM_BitsAtFpr(benchmark::State& state, Kind kind) {
  const size_t n = state.range(0);
  const double target = state.range(1) * 1e-6;
  Point best{};
  for (auto _ : state) {
    // Bisection on bits/key; measured FPR falls (nearly) monotonically.
    double lo = kind == kRibbon ? 1.2 : 2.0, hi = kind == kRibbon ? 14.0 : 20.0;
    best = MeasureAt(kind, n, hi);
    while (hi - lo > 0.005) {
      const double mid = (lo + hi) / 2;
      const Point p = MeasureAt(kind, n, mid);
      if (p.fpr <= target) {
        hi = mid;
        best = p;
      } else {
        lo = mid;
      }
    }
  }
  state.counters["bits_per_key"] = best.bits_per_key;
  state.counters["fpr"] = best.fpr;
  state.counters["fpr_model"] = best.model;
}

// Built as a user would: from a target FPR (the blocked filter through its
// own BitsPerKeyForFpr), measured on 2^22 absent keys.
void BM_AtTargetFpr(benchmark::State& state, Kind kind) {
  const size_t n = state.range(0);
  const double target = state.range(1) * 1e-6;
  const KeySet& absent = Keys(3, kFprProbeKeys);
  for (auto _ : state) {
    size_t fp = 0;
    if (kind == kRibbon) {
      RibbonOptions options;
      options.target_fpr = target;
      const std::string filter = BuildRibbon(n, options);
      auto r = *RibbonReader::Open(filter);
      for (size_t i = 0; i < kFprProbeKeys; ++i) fp += r.MayMatch(absent[i]);
      state.counters["bits_per_key"] = 8.0 * filter.size() / n;
      state.counters["fpr_model"] = r.geometry().predicted_fpr();
    } else {
      BlockedBloomOptions options;
      options.target_fpr = target;
      const std::string filter = BuildBlocked(n, options);
      auto r = *BlockedBloomReader::Open(filter);
      for (size_t i = 0; i < kFprProbeKeys; ++i) fp += r.MayMatch(absent[i]);
      state.counters["bits_per_key"] = 8.0 * filter.size() / n;
      state.counters["fpr_model"] = r.geometry().predicted_fpr();
    }
    state.counters["fpr"] = static_cast<double>(fp) / kFprProbeKeys;
  }
}

}  // namespace

void RegisterAll() {
  const std::vector<int64_t> sizes = KeyCounts({100000, 1000000, 10000000});
  const std::vector<int64_t> speed_sizes = KeyCounts({100000, 1000000, 10000000, 100000000});
  for (Kind kind : {kRibbon, kBlocked}) {
    auto* b = benchmark::RegisterBenchmark(absl::StrCat("BM_BitsAtFpr/", KindName(kind)).c_str(),
                                           BM_BitsAtFpr, kind);
    for (int64_t n : sizes) {
      for (int64_t ppm : {10000, 1000}) b->Args({n, ppm});
    }
    b->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (Kind kind : {kRibbon, kBlocked}) {
    auto* b = benchmark::RegisterBenchmark(
        absl::StrCat("BM_AtTargetFpr/", KindName(kind)).c_str(), BM_AtTargetFpr, kind);
    for (int64_t n : sizes) {
      for (int64_t ppm : {10000, 1000}) b->Args({n, ppm});
    }
    b->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (int64_t n : speed_sizes) {
    for (Kind kind : {kRibbon, kBlocked}) {
      benchmark::RegisterBenchmark(absl::StrCat("BM_Build/", KindName(kind)).c_str(), BM_Build,
                                   kind)
          ->Arg(n)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark("BM_QueryHashInline/RibbonScalar", BM_QueryHashInline, kRibbon)
        ->Arg(n);
    for (auto* fn : {BM_QueryHash, BM_QueryBatch32, BM_QueryKey}) {
      for (Kind kind : {kRibbon, kBlocked}) {
        const char* what = fn == BM_QueryHash      ? "BM_QueryHash/"
                           : fn == BM_QueryBatch32 ? "BM_QueryBatch32/"
                                                   : "BM_QueryKey/";
        benchmark::RegisterBenchmark(absl::StrCat(what, KindName(kind)).c_str(), fn, kind)
            ->Arg(n);
      }
    }
  }
}

}  // namespace bench
}  // namespace lsmbloom
