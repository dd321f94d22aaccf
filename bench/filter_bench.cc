// Filter microbenchmarks: lsmbloom's blocked filter against a baseline of
// RocksDB's FastLocalBloom (bench/flb, written here from its design: "Flb" is
// its AVX2 variant, "FlbPortable" the scalar one) and LevelDB's Bloom filter
// (Debian's libleveldb, NewBloomFilterPolicy(10)), in the same binary, on the
// same keys (random 16-byte), hashed by the same XXH3-64 (KeyHash), at the
// same bits/key, every filter 64-byte aligned.
//
// lsmbloom appears twice where a call per key is measured: "Lsmbloom" is the
// public reader API (an indirect call per key into the kernel picked at run
// time), "LsmbloomInline" the probe of lsmbloom/filter/blocked_bloom-inl.h inlined
// into a per-target loop (bench/inline_loops.cc), as FLB's probe is inlined
// into its callers. Builds likewise: "BuildInlineHash" hashes in the
// caller's loop with KeyHashInline (lsmbloom/filter/key_hash-inl.h).
//
// Every benchmark reports items_per_second; ns/key = 1e9 / items_per_second.
// Counters: bits_per_key, fpr (measured on 2^20 absent keys), fpr_model.
// Environment: LSMBLOOM_SIMD pins the SIMD target of the unsuffixed runs;
// LSMBLOOM_BENCH_MAX_KEYS caps n (default 10^8).
//
// The benchmarks live in filter_bench_build.cc, filter_bench_query.cc,
// filter_bench_lines.cc and filter_bench_fpr.cc, the filters they measure in filter_bench_filters.cc;
// this file registers them, in the order the report lists them.

#include "bench/filter_bench.h"

#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "lsmbloom/filter/simd.h"

namespace lsmbloom {
namespace bench {
namespace {

// Runs `fn` with the kernels pinned to `target`, then restores the choice
// made from LSMBLOOM_SIMD (or the best target).
template <typename Fn>
void OnTarget(benchmark::State& state, const std::string& target, Fn fn) {
  if (!PinSimdTarget(target).ok()) {
    state.SkipWithError("target unavailable");
    return;
  }
  fn(state);
  PinSimdTarget("best").IgnoreError();
  PinSimdTargetFromEnvironment().IgnoreError();
}

}  // namespace

void RegisterAll() {
  const std::vector<int64_t> sizes = KeyCounts({10000, 100000, 1000000, 10000000, 100000000});
  auto per_size = [&](const char* name, void (*fn)(benchmark::State&)) {
    auto* b = benchmark::RegisterBenchmark(name, fn);
    for (int64_t n : sizes) b->Arg(n);
    return b;
  };
  // Lambdas capture the variant: FLB's AVX2 and portable builds.
  using Fn = std::function<void(benchmark::State&)>;
  auto per_size_fn = [&](const std::string& name, Fn fn) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
    for (int64_t n : sizes) b->Arg(n);
    return b;
  };
  struct FlbVariant {
    const char* suffix;
    bool avx2;
  };
  const FlbVariant flb_variants[] = {{"Flb", true}, {"FlbPortable", false}};

  per_size("BM_Build_Lsmbloom", BM_Build_Lsmbloom)->Unit(benchmark::kMillisecond);
  per_size("BM_BuildAddKeys_Lsmbloom", BM_BuildAddKeys_Lsmbloom)->Unit(benchmark::kMillisecond);
  per_size("BM_BuildInlineHash_Lsmbloom", BM_BuildInlineHash_Lsmbloom)
      ->Unit(benchmark::kMillisecond);
  per_size("BM_BuildInlineHashChunks_Lsmbloom", BM_BuildInlineHashChunks_Lsmbloom)
      ->Unit(benchmark::kMillisecond);
  for (const FlbVariant& v : flb_variants) {
    per_size_fn(std::string("BM_Build_") + v.suffix, [v](benchmark::State& s) {
      BM_Build_Flb(s, v.avx2);
    })->Unit(benchmark::kMillisecond);
  }
  per_size("BM_Build_LevelDb", BM_Build_LevelDb)->Unit(benchmark::kMillisecond);

  for (bool present : {false, true}) {
    const std::string what = present ? "BM_QueryPresentKey_" : "BM_QueryAbsentKey_";
    per_size(present ? "BM_QueryPresentKey_Lsmbloom" : "BM_QueryAbsentKey_Lsmbloom",
             present ? BM_QueryPresentKey_Lsmbloom : BM_QueryAbsentKey_Lsmbloom);
    per_size_fn(what + "LsmbloomInline",
                [present](benchmark::State& s) { BM_QueryKey_LsmbloomInline(s, present); });
    per_size_fn(what + "LsmbloomAvx2Site",
                [present](benchmark::State& s) { BM_QueryKey_LsmbloomAvx2Site(s, present); });
    per_size_fn(what + "LsmbloomAvx512Site",
                [present](benchmark::State& s) { BM_QueryKey_LsmbloomAvx512Site(s, present); });
    for (const FlbVariant& v : flb_variants) {
      per_size_fn(what + v.suffix,
                  [v, present](benchmark::State& s) { BM_QueryKey_Flb(s, v.avx2, present); });
    }
    per_size(present ? "BM_QueryPresentKey_LevelDb" : "BM_QueryAbsentKey_LevelDb",
             present ? BM_QueryPresentKey_LevelDb : BM_QueryAbsentKey_LevelDb);
  }

  per_size("BM_QueryAbsentHash_Lsmbloom", BM_QueryAbsentHash_Lsmbloom);
  per_size("BM_QueryAbsentHash_LsmbloomInline", BM_QueryAbsentHash_LsmbloomInline);
  per_size("BM_QueryAbsentHash_LsmbloomAvx2Site", BM_QueryAbsentHash_LsmbloomAvx2Site);
  per_size("BM_QueryAbsentHash_LsmbloomAvx512Site", BM_QueryAbsentHash_LsmbloomAvx512Site);
  for (const FlbVariant& v : flb_variants) {
    per_size_fn(std::string("BM_QueryAbsentHash_") + v.suffix,
                [v](benchmark::State& s) { BM_QueryAbsentHash_Flb(s, v.avx2); });
  }

  auto* batch =
      benchmark::RegisterBenchmark("BM_QueryAbsentBatch_Lsmbloom", BM_QueryAbsentBatch_Lsmbloom);
  for (int64_t n : sizes) {
    for (int64_t b : {8, 32, 128, 1024}) batch->Args({n, b});
  }
  for (const FlbVariant& v : flb_variants) {
    auto* flb_batch = benchmark::RegisterBenchmark(
        (std::string("BM_QueryAbsentBatch_") + v.suffix).c_str(),
        [v](benchmark::State& s) { BM_QueryAbsentBatch_Flb(s, v.avx2); });
    for (int64_t n : sizes) {
      for (int64_t b : {8, 32, 128, 1024}) flb_batch->Args({n, b});
    }
  }
  // What no batch can beat: one random line per key, nothing else.
  auto* lines = benchmark::RegisterBenchmark("BM_RandomLines", BM_RandomLines);
  for (int64_t n : sizes) {
    for (int64_t b : {32, 128}) lines->Args({n, b});
  }
  auto* present_batch =
      benchmark::RegisterBenchmark("BM_QueryPresentBatch_Lsmbloom", BM_QueryPresentBatch_Lsmbloom);
  for (int64_t n : sizes) present_batch->Args({n, 128});
  for (auto* fpr : {benchmark::RegisterBenchmark("BM_Fpr_Lsmbloom", BM_Fpr_Lsmbloom),
                    benchmark::RegisterBenchmark("BM_Fpr_Flb", BM_Fpr_Flb),
                    benchmark::RegisterBenchmark("BM_Fpr_ClassicBloom", BM_Fpr_ClassicBloom),
                    benchmark::RegisterBenchmark("BM_Fpr_LevelDb", BM_Fpr_LevelDb)}) {
    fpr->Iterations(1)->Unit(benchmark::kMillisecond);
    for (int bits = 4; bits <= 24; bits += 2) fpr->Arg(bits * 1000);
  }
  // The value of each SIMD target: the same work at n = 10^6, per target.
  for (const std::string& target : AvailableSimdTargets()) {
    const std::string suffix = "/simd:" + target;
    benchmark::RegisterBenchmark(
        ("BM_Build_Lsmbloom" + suffix).c_str(),
        [target](benchmark::State& s) { OnTarget(s, target, BM_Build_Lsmbloom); })
        ->Arg(1000000)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(
        ("BM_QueryAbsentHash_Lsmbloom" + suffix).c_str(),
        [target](benchmark::State& s) { OnTarget(s, target, BM_QueryAbsentHash_Lsmbloom); })
        ->Arg(1000000);
    benchmark::RegisterBenchmark(
        ("BM_QueryAbsentHash_LsmbloomInline" + suffix).c_str(),
        [target](benchmark::State& s) { OnTarget(s, target, BM_QueryAbsentHash_LsmbloomInline); })
        ->Arg(1000000);
    benchmark::RegisterBenchmark(
        ("BM_QueryAbsentBatch_Lsmbloom" + suffix).c_str(),
        [target](benchmark::State& s) { OnTarget(s, target, BM_QueryAbsentBatch_Lsmbloom); })
        ->Args({1000000, 32});
    // Identical bytes on every target, so identical FPR: measured to show it.
    benchmark::RegisterBenchmark(
        ("BM_Fpr_Lsmbloom" + suffix).c_str(),
        [target](benchmark::State& s) { OnTarget(s, target, BM_Fpr_Lsmbloom); })
        ->Arg(10000)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace bench
}  // namespace lsmbloom
