// filter_memory_bench (issue 41, "filter memory that follows the workload"):
// device reads per lookup of each engine's filters under one filter memory
// cap, on an LSM tree of 5 levels read with O_DIRECT and no data block
// cache, so every data block a lookup reads is a device read. What the
// files share:
//
//   filter_memory_bench_data.cc      the tree's shape, the key streams,
//                                    the cap, skipping where O_DIRECT is
//                                    refused;
//   filter_memory_bench_lsmbloom.cc  lsmbloom's engines, static and
//                                    modular;
//   filter_memory_bench_modules.cc   Bloom modules against Ribbon
//                                    columns at the same bits/key;
//   filter_memory_bench_rocks.cc     RocksDB's two engines;
//   filter_memory_bench.cc           the cases, their counters, and
//                                    registration.
//
// An Engine answers Gets and counts what they read; every engine sees the
// same files (the same entries per file) and the same keys.

#ifndef LSMBLOOM_BENCH_FILTER_MEMORY_BENCH_H_
#define LSMBLOOM_BENCH_FILTER_MEMORY_BENCH_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "tools/lsm_fixture.h"

namespace lsmbloom {
namespace bench {
namespace memory {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point start);

[[noreturn]] void Die(const std::string& what);

// ---- The data (filter_memory_bench_data.cc) ----

// Distinct keys: 10^7; 10^5 under LSMBLOOM_BENCH_QUICK (tools/run_bench.sh
// --quick); LSMBLOOM_MEMORY_KEYS overrides both.
uint64_t NumKeys();
// Whether LSMBLOOM_BENCH_QUICK is set: fewer lookups per case too.
bool Quick();

struct Data {
  std::string dir;  // On the disk /tmp is on; removed at exit.
  std::vector<fixture::FileSpec> layout;
  // Entries over all files (a key with versions in 3 levels counts 3):
  // what the filters hold.
  uint64_t entries = 0;
};
const Data& TheData();

// The tree: DeepShape's level sizes (each level a tenth of the one below
// it, 4 small overlapping level-0 files), with more files per level so the
// bottom level has 160 (a memory allocated per file has many to choose
// among).
std::vector<fixture::LevelSpec> MemoryShape();

// The filter memory cap, in bytes: 5 bits per entry the filters hold, the
// memory 5 bits/key in every filter takes (and so what
// AllocateFilterBitsPerKey(FilterShapes(layout), 5) spends).
constexpr double kCapBitsPerKey = 5;
uint64_t CapBytes();

// Skips the case, with the reason, where TheData().dir refuses O_DIRECT.
bool Skipped(benchmark::State& state);

// ---- Key streams ----

enum class Stream {
  // Zipfian (theta 0.99) over key ranks, rank r the r-th key in key order:
  // hot keys are neighbours (ElasticBF's setup). Half the lookups absent:
  // the odd id just above a drawn even id.
  kZipfMixed,
  // The same ranks scattered over the keys by a fixed bijection (YCSB's
  // hashed Zipfian): hot keys are spread over every file.
  kZipfScrambled,
  // Uniform over the keys, half absent.
  kUniformMixed,
};
const char* NameOf(Stream s);

struct Lookups {
  std::vector<std::string> keys;  // WarmupCount() warm-up keys, then the measured ones.
  // Whether keys[i] has an entry in the tree (an even id: every even id has
  // one in the bottom level, maybe under a newer tombstone).
  std::vector<bool> has_entry;
};
// Fixed seeds: the same keys for every engine and every repetition.
const Lookups& LookupsOf(Stream s);
size_t WarmupCount();
size_t MeasuredCount();

// ---- Engines ----

// What an engine's Gets did since StartCounting(), summed over them.
struct Counts {
  // Every block read from the files (device reads with direct reads).
  double device_reads = 0;
  // Data blocks read from the files.
  double data_reads = 0;
  // Data reads after a filter's "maybe" for a key its file did not have,
  // by the filters' own counters (the identity the case checks:
  // data_reads - keys with an entry, when every level is filtered).
  double filter_false_positives = 0;
  // Filter blocks (RocksDB's partitions, lsmbloom's modules) read from the
  // files, and index blocks (RocksDB's partitions).
  double filter_loads = 0;
  double index_loads = 0;
  // Data blocks found in a block cache (0 for every engine here: checked).
  double data_block_hits = 0;
  // Filter checks in the bottom level (0 where its filters are skipped).
  double bottom_filter_checks = 0;
  // Filter memory resident at the end, in bytes, and the index memory held
  // in a block cache beside it (RocksPartitioned; 0 where indexes are in
  // table memory, as lsmbloom's always are).
  double filter_bytes = 0;
  double cached_index_bytes = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Says what the engine holds (bits/key per level, cache capacity).
  virtual std::string Label() const = 0;
  // Back to the state before any lookup: caches emptied, observations
  // forgotten, so each repetition starts alike.
  virtual void Reset() = 0;
  // Called once after the warm-up lookups and before the measured ones.
  virtual void AfterWarmup() {}
  virtual void StartCounting() = 0;
  // Whether `key` was found (a value, not a tombstone).
  virtual bool Get(std::string_view key) = 0;
  virtual Counts counts() const = 0;
};

// lsmbloom (filter_memory_bench_lsmbloom.cc). Each is built on first use
// and kept; null where the variant does not exist yet.
Engine* LsmbloomMonkey();
Engine* LsmbloomUniform5();
Engine* LsmbloomModular();      // The cap.
Engine* LsmbloomModularHalf();  // Half the cap.
// The cap, rebalanced every 8192 lookups as well (against once, after the
// warm-up: what rebalancing at compactions alone would do here).
Engine* LsmbloomModularEvery8K();

// The cached regime: the Monkey tables mapped (page-cached), no counting.
// Null for the modular ones while they are stubs.
enum class CachedVariant { kMonkey, kModular };
const char* NameOf(CachedVariant v);
const TableSet* MappedSet(CachedVariant v);

// Memory_ModulePrefix (filter_memory_bench_modules.cc): Bloom modules held
// as a prefix against a Ribbon filter of the same bits/key.
void RegisterModulePrefix();

// RocksDB (filter_memory_bench_rocks.cc).
Engine* RocksOptimizeForHits();
Engine* RocksPartitioned();

}  // namespace memory
}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_FILTER_MEMORY_BENCH_H_
