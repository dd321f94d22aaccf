// What the filter benchmarks (filter_bench_*.cc) share: the keys, the
// filters under test built once per process (lsmbloom's blocked filter,
// RocksDB's FastLocalBloom as bench/flb writes it, LevelDB's Bloom filter),
// the counters each sets, and the benchmark functions that filter_bench.cc
// registers. See filter_bench.cc for what is measured.
//
// First: it includes xxHash inlined (XXH_INLINE_ALL), before any other
// inclusion of <xxhash.h>; so every filter_bench_*.cc includes this header
// first.

#ifndef LSMBLOOM_BENCH_FILTER_BENCH_H_
#define LSMBLOOM_BENCH_FILTER_BENCH_H_

#include "lsmbloom/filter/key_hash-inl.h"

#include <cstddef>
#include <string>
#include <vector>

#include "bench/bench_keys.h"
#include "bench/flb/fast_local_bloom.h"
#include "benchmark/benchmark.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "lsmbloom/filter/blocked_bloom.h"

namespace lsmbloom {
namespace bench {

constexpr double kBitsPerKey = 10.0;
constexpr size_t kChunk = 1024;  // Keys per timed iteration.
constexpr int kMillibitsPerKey = static_cast<int>(kBitsPerKey * 1000);

// ---- The filters under test and their counters (filter_bench_filters.cc). ----

// How the keys reach the builder.
enum class AddCalls {
  kAddKeyEach,        // One AddKey call per key, as a table builder adds them.
  kAddKeysOnce,       // All keys in one AddKeys call, as FLB's build here takes them.
  kInlineHashEach,    // The opt-in tier: the caller's loop hashes with
                      // KeyHashInline (key_hash-inl.h) and calls AddHash.
  kInlineHashChunks,  // The same, 64 hashes at a time into AddHashes.
};

std::string BuildOurs(size_t n, AddCalls calls = AddCalls::kAddKeyEach);
// One filter per n, its bits 64-byte aligned, built once per process.
const BlockedBloomReader& OurFilter(size_t n);

inline const leveldb::FilterPolicy& LevelDbPolicy() {
  static const leveldb::FilterPolicy* policy =
      leveldb::NewBloomFilterPolicy(static_cast<int>(kBitsPerKey));
  return *policy;
}
std::vector<leveldb::Slice> Slices(const KeySet& keys);
const std::string& LevelDbFilter(size_t n);

// The keys of a KeySet as FLB's flat-key interface takes them.
inline const char* Flat(const KeySet& keys) { return keys[0].data(); }
// False, and the benchmark skipped, where FLB's AVX2 variant (avx2) or the
// AVX-512 call site cannot run.
bool RequireAvx2(benchmark::State& state, bool avx2);
bool RequireAvx512(benchmark::State& state);
flb::Filter BuildFlb(bool avx2, const KeySet& keys, size_t n, int millibits);
// One FLB filter per (variant, n), built once per process.
const flb::Filter& FlbFilter(bool avx2, size_t n);

// Measured FPRs on kProbeKeys absent keys, and the counters of each filter.
double FlbFpr(bool avx2, const flb::Filter& f);
double OurFpr(const BlockedBloomReader& reader);
double LevelDbFpr(const std::string& filter);
void SetFlbCounters(benchmark::State& state, bool avx2, size_t n);
void SetOurCounters(benchmark::State& state, const BlockedBloomReader& r);
void SetLevelDbCounters(benchmark::State& state, size_t n);

// ---- Build: hashing included, from keys in memory to serialized bytes
// (filter_bench_build.cc). ----

void BM_Build_Lsmbloom(benchmark::State& state);
void BM_BuildAddKeys_Lsmbloom(benchmark::State& state);
void BM_BuildInlineHashChunks_Lsmbloom(benchmark::State& state);
void BM_BuildInlineHash_Lsmbloom(benchmark::State& state);
void BM_Build_LevelDb(benchmark::State& state);
void BM_Build_Flb(benchmark::State& state, bool avx2);

// ---- Queries: single ones from keys (hashing included), and single and
// batched ones from precomputed hashes (filter_bench_query.cc). ----

void BM_QueryAbsentKey_Lsmbloom(benchmark::State& state);
void BM_QueryPresentKey_Lsmbloom(benchmark::State& state);
void BM_QueryAbsentKey_LevelDb(benchmark::State& state);
void BM_QueryPresentKey_LevelDb(benchmark::State& state);
void BM_QueryKey_LsmbloomInline(benchmark::State& state, bool present);
void BM_QueryKey_LsmbloomAvx2Site(benchmark::State& state, bool present);
void BM_QueryKey_LsmbloomAvx512Site(benchmark::State& state, bool present);
void BM_QueryKey_Flb(benchmark::State& state, bool avx2, bool present);
void BM_QueryAbsentHash_Lsmbloom(benchmark::State& state);
void BM_QueryAbsentHash_LsmbloomInline(benchmark::State& state);
void BM_QueryAbsentHash_LsmbloomAvx2Site(benchmark::State& state);
void BM_QueryAbsentHash_LsmbloomAvx512Site(benchmark::State& state);
void BM_QueryAbsentHash_Flb(benchmark::State& state, bool avx2);
void BM_QueryAbsentBatch_Flb(benchmark::State& state, bool avx2);
void BM_QueryAbsentBatch_Lsmbloom(benchmark::State& state);
void BM_QueryPresentBatch_Lsmbloom(benchmark::State& state);

// ---- The memory limit: independent random 64-byte loads from a buffer the
// size of the filter of n keys, in batches (filter_bench_lines.cc). Args:
// n, batch. ----

void BM_RandomLines(benchmark::State& state);

// ---- Accuracy: FPR against bits/key, with the models as counters
// (filter_bench_fpr.cc). Arg: bits/key in thousandths. ----

void BM_Fpr_Lsmbloom(benchmark::State& state);
void BM_Fpr_ClassicBloom(benchmark::State& state);
void BM_Fpr_LevelDb(benchmark::State& state);
void BM_Fpr_Flb(benchmark::State& state);

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_FILTER_BENCH_H_
