// filter_memory_bench (issue 41): how many device reads each engine's
// filters let through under one filter memory cap, the Monkey split of
// today against modular filters that follow the workload and against
// RocksDB's two ways of saving filter memory. bench/filter_memory_bench.h
// lists the files; bench/report/memory_table.py turns the JSON into
// bench/report/memory/REPORT.md.
//
// The tree: 10^7 distinct keys (LSMBLOOM_MEMORY_KEYS; 10^5 under
// LSMBLOOM_BENCH_QUICK) in 5 levels, each a tenth of the one below, 160
// files in the bottom level; about 1.115 entries per key. Every engine reads
// the same files with O_DIRECT and keeps no data block in memory, so each
// data block a lookup reads is a device read. The cap: 5 bits per entry
// (CapBytes()), the memory of 5 bits/key in every filter.
//
// Cases Memory_<Stream>_<Variant>: the engine is reset (caches emptied),
// looks up WarmupCount() keys of the stream, then MeasuredCount() more are
// timed (wall time: lookups wait on the device). Streams: ZipfMixed
// (Zipfian 0.99 over keys in key order: hot keys are neighbours),
// ZipfScrambled (the same ranks scattered), UniformMixed; half the lookups
// of each ask an absent key (an odd id beside a drawn even one).
//
// Counters, per measured lookup:
//   reads_per_lookup         every block read from the files (device reads)
//   data_reads_per_lookup    data blocks read
//   fp_reads_per_lookup      data reads that found no entry: data reads
//                            minus the lookups whose key has an entry (each
//                            of those reads its entry's block once)
//   filter_fp_per_lookup     the same by the filters' own counters
//                            (positives - true positives); identity_gap is
//                            fp_reads - filter_fp: 0 where every level is
//                            filtered, the unfiltered bottom level's reads
//                            for RocksOptimizeForHits
//   filter_loads_per_lookup  filter blocks read (RocksDB's partitions,
//                            lsmbloom's modules)
//   index_loads_per_lookup   index partitions read (RocksPartitioned)
//   excess_reads_per_lookup  fp_reads + filter_loads: the reads the issue's
//                            targets count
//   bottom_filter_checks_per_lookup, data_block_hits (a total, 0)
//   found                    the share of keys found (a value)
//   us_per_lookup            wall time
//   filter_bytes             filter memory resident at the end;
//                            filter_bits_per_entry the same per entry;
//                            cap_bytes the cap; cached_index_bytes the
//                            index partitions beside the filters in
//                            RocksPartitioned's cache
//
// Memory_CachedAbsentGet_<Variant>: the cached regime, for the CPU target:
// uniform absent keys on the same tables mapped and page-cached, CPU time
// per Get (Google Benchmark's own timing).

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "bench/filter_memory_bench.h"
#include "benchmark/benchmark.h"
#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {
namespace bench {
namespace memory {
namespace {

using EngineOf = Engine* (*)();

void SetCounters(benchmark::State& state, const Counts& c, double lookups, double with_entry,
                 double found, double seconds) {
  const double fp_reads = c.data_reads - with_entry;
  auto per = [lookups](double v) { return v / lookups; };
  state.counters["reads_per_lookup"] = per(c.device_reads);
  state.counters["data_reads_per_lookup"] = per(c.data_reads);
  state.counters["fp_reads_per_lookup"] = per(fp_reads);
  state.counters["filter_fp_per_lookup"] = per(c.filter_false_positives);
  state.counters["identity_gap"] = per(fp_reads - c.filter_false_positives);
  state.counters["filter_loads_per_lookup"] = per(c.filter_loads);
  state.counters["index_loads_per_lookup"] = per(c.index_loads);
  state.counters["excess_reads_per_lookup"] = per(fp_reads + c.filter_loads);
  state.counters["bottom_filter_checks_per_lookup"] = per(c.bottom_filter_checks);
  state.counters["data_block_hits"] = c.data_block_hits;
  state.counters["found"] = per(found);
  state.counters["us_per_lookup"] = per(seconds * 1e6);
  state.counters["filter_bytes"] = c.filter_bytes;
  state.counters["filter_bits_per_entry"] = 8 * c.filter_bytes / TheData().entries;
  state.counters["cached_index_bytes"] = c.cached_index_bytes;
  state.counters["cap_bytes"] = static_cast<double>(CapBytes());
  state.SetItemsProcessed(static_cast<int64_t>(lookups));
}

void LookUp(benchmark::State& state, EngineOf engine_of, Stream s) {
  if (Skipped(state)) return;
  Engine* engine = engine_of();
  if (engine == nullptr) {
    state.SkipWithError(
        "modular filters not built yet (the stub in bench/filter_memory_bench_lsmbloom.cc)");
    return;
  }
  const Lookups& l = LookupsOf(s);
  engine->Reset();
  for (size_t i = 0; i < WarmupCount(); ++i) engine->Get(l.keys[i]);
  engine->AfterWarmup();
  engine->StartCounting();
  size_t i = WarmupCount(), found = 0, with_entry = 0;
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    found += engine->Get(l.keys[i]);
    with_entry += l.has_entry[i];
    ++i;
  }
  const double seconds = Seconds(start);
  SetCounters(state, engine->counts(), static_cast<double>(state.iterations()),
              static_cast<double>(with_entry), static_cast<double>(found), seconds);
  state.SetLabel(engine->Label());
}

// 2^16 absent keys, uniform over the key space (odd ids), cycled through.
const std::vector<std::string>& CachedAbsentKeys() {
  static const std::vector<std::string>* keys = [] {
    auto* k = new std::vector<std::string>;
    std::mt19937_64 rng(4200);
    for (int i = 0; i < (1 << 16); ++i) {
      k->push_back(fixture::KeyOf(2 * (rng() % NumKeys()) + 1));
    }
    return k;
  }();
  return *keys;
}

void CachedAbsentGet(benchmark::State& state, CachedVariant v) {
  if (Skipped(state)) return;
  const TableSet* set = MappedSet(v);
  if (set == nullptr) {
    state.SkipWithError(
        "modular filters not built yet (the stub in bench/filter_memory_bench_lsmbloom.cc)");
    return;
  }
  const std::vector<std::string>& keys = CachedAbsentKeys();
  LookupResult result;
  for (const std::string& key : keys) {  // Pages the filters and indexes in.
    if (!set->Get(key, &result).ok()) Die("a lookup failed");
  }
  size_t i = 0, found = 0;
  for (auto _ : state) {
    if (!set->Get(keys[i++ & (keys.size() - 1)], &result).ok()) Die("a lookup failed");
    found += result.kind == LookupResult::Kind::kFound;
  }
  if (found != 0) Die("an absent key was found");
  state.SetItemsProcessed(state.iterations());
}

}  // namespace
}  // namespace memory

void RegisterAll() {
  using namespace memory;  // NOLINT: this binary's cases.
  const int64_t n = static_cast<int64_t>(NumKeys());
  const std::pair<const char*, EngineOf> variants[] = {
      {"LsmbloomMonkey", LsmbloomMonkey},
      {"LsmbloomUniform5", LsmbloomUniform5},
      {"LsmbloomModular", LsmbloomModular},
      {"LsmbloomModularHalf", LsmbloomModularHalf},
      {"LsmbloomModularEvery8K", LsmbloomModularEvery8K},
      {"RocksOptimizeForHits", RocksOptimizeForHits},
      {"RocksPartitioned", RocksPartitioned},
  };
  for (Stream s : {Stream::kZipfMixed, Stream::kZipfScrambled, Stream::kUniformMixed}) {
    for (const auto& [name, engine_of] : variants) {
      benchmark::RegisterBenchmark(
          absl::StrCat("Memory_", NameOf(s), "_", name).c_str(),
          [engine_of = engine_of, s](benchmark::State& st) { LookUp(st, engine_of, s); })
          ->Arg(n)
          ->Iterations(static_cast<int64_t>(MeasuredCount()))
          ->UseRealTime();
    }
  }
  RegisterModulePrefix();
  for (CachedVariant v : {CachedVariant::kMonkey, CachedVariant::kModular}) {
    benchmark::RegisterBenchmark(absl::StrCat("Memory_CachedAbsentGet_", NameOf(v)).c_str(),
                                 [v](benchmark::State& st) { CachedAbsentGet(st, v); })
        ->Arg(n);
  }
}

}  // namespace bench
}  // namespace lsmbloom
