// What the storage cases of lookup_bench (bench/storage_bench*.cc) share:
// their sizes, the key sets every engine looks up, skipping where direct
// reads are refused, the counters each case reports, and the RocksDB
// cases (storage_bench_rocks.cc). storage_bench.cc says what is measured.

#ifndef LSMBLOOM_BENCH_STORAGE_BENCH_H_
#define LSMBLOOM_BENCH_STORAGE_BENCH_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/lookup_bench.h"
#include "benchmark/benchmark.h"

namespace lsmbloom {
namespace bench {
namespace storage {

constexpr size_t kBatch = 32;
// Iterations per case: about a second of device reads each, a sixteenth
// of that in tools/run_bench.sh --quick (LSMBLOOM_BENCH_QUICK set).
constexpr int64_t kGets = 32768;
constexpr int64_t kBatches = 1024;  // of kBatch keys
constexpr int64_t kDeviceReads = 16384;
constexpr double kCacheShare = 0.05;
constexpr double kZipfTheta = 0.99;

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start);
// n, or a sixteenth of it under LSMBLOOM_BENCH_QUICK.
int64_t Iterations(int64_t n);
// Skips the case, with the reason, where the tables cannot be read directly.
bool Skipped(benchmark::State& state);

enum class Keys { kAbsent, kPresent, kPresentZipf, kMixed, kMixedZipf };
const char* NameOf(Keys k);
// WarmLookups() keys and then kGets more, the same for every engine.
const std::vector<std::string>& KeysOf(Keys k);

// Lookups that warm a cache before a case: 4 per block it holds.
size_t WarmLookups();
// 5% of the Bloom10 tree's data, every engine's cache capacity.
uint64_t CacheBytes();

// The counters every case reports, over `keys` lookups.
void SetCounters(benchmark::State& state, double seconds, double keys, double reads,
                 double hit_rate, double found);

// RocksDB with direct reads over the same files (storage_bench_rocks.cc).
void GetRocks(benchmark::State& state, RocksFilter f, Keys k);
void MultiGetRocks(benchmark::State& state, RocksFilter f);

}  // namespace storage
}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_STORAGE_BENCH_H_
