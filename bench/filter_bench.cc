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

// First: it includes xxHash inlined (XXH_INLINE_ALL), before any other
// inclusion of <xxhash.h>.
#include "lsmbloom/filter/key_hash-inl.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_keys.h"
#include "bench/bench_util.h"
#include "bench/call_sites.h"
#include "bench/flb/fast_local_bloom.h"
#include "bench/inline_loops.h"
#include "benchmark/benchmark.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/simd.h"
#include "src/util/aligned_buffer.h"

namespace lsmbloom {
namespace bench {
namespace {

constexpr double kBitsPerKey = 10.0;
constexpr size_t kProbeKeys = size_t{1} << 20;  // Absent keys probed.
constexpr size_t kChunk = 1024;                 // Keys per timed iteration.

const KeySet& Present(size_t n) { return Keys(1, n); }
const KeySet& Absent() { return Keys(2, kProbeKeys); }

// How the keys reach the builder.
enum class AddCalls {
  kAddKeyEach,        // One AddKey call per key, as a table builder adds them.
  kAddKeysOnce,       // All keys in one AddKeys call, as FLB's build here takes them.
  kInlineHashEach,    // The opt-in tier: the caller's loop hashes with
                      // KeyHashInline (key_hash-inl.h) and calls AddHash.
  kInlineHashChunks,  // The same, 64 hashes at a time into AddHashes.
};

std::string BuildOurs(size_t n, AddCalls calls = AddCalls::kAddKeyEach) {
  BlockedBloomOptions options;
  options.bits_per_key = kBitsPerKey;
  auto builder = BlockedBloomBuilder::Create(options);
  const KeySet& keys = Present(n);
  switch (calls) {
    case AddCalls::kAddKeyEach:
      for (size_t i = 0; i < n; ++i) builder->AddKey(keys[i]);
      break;
    case AddCalls::kAddKeysOnce:
      builder->AddKeys(keys);
      break;
    case AddCalls::kInlineHashEach:
      for (size_t i = 0; i < n; ++i) builder->AddHash(KeyHashInline(keys[i]));
      break;
    case AddCalls::kInlineHashChunks: {
      uint64_t hashes[64];
      for (size_t i = 0; i < n; i += 64) {
        const size_t m = std::min<size_t>(64, n - i);
        for (size_t j = 0; j < m; ++j) hashes[j] = KeyHashInline(keys[i + j]);
        builder->AddHashes(absl::MakeConstSpan(hashes, m));
      }
      break;
    }
  }
  return *builder->Finish();
}

// One filter per n, its bits 64-byte aligned, built once per process.
const BlockedBloomReader& OurFilter(size_t n) {
  struct Entry {
    std::unique_ptr<internal::AlignedBuffer> bytes;
    std::unique_ptr<BlockedBloomReader> reader;
  };
  static auto* cache = new std::map<size_t, Entry>;
  Entry& e = (*cache)[n];
  if (!e.reader) {
    e.bytes.reset(new internal::AlignedBuffer(BuildOurs(n), /*aligned_at=*/64));
    e.reader.reset(new BlockedBloomReader(*BlockedBloomReader::Open(e.bytes->view())));
  }
  return *e.reader;
}

const leveldb::FilterPolicy& LevelDbPolicy() {
  static const leveldb::FilterPolicy* policy =
      leveldb::NewBloomFilterPolicy(static_cast<int>(kBitsPerKey));
  return *policy;
}

std::vector<leveldb::Slice> Slices(const KeySet& keys) {
  std::vector<leveldb::Slice> slices(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    slices[i] = leveldb::Slice(keys[i].data(), keys[i].size());
  }
  return slices;
}

const std::string& LevelDbFilter(size_t n) {
  static auto* cache = new std::map<size_t, std::string>;
  std::string& f = (*cache)[n];
  if (f.empty()) {
    const std::vector<leveldb::Slice> slices = Slices(Present(n));
    LevelDbPolicy().CreateFilter(slices.data(), static_cast<int>(n), &f);
  }
  return f;
}

// ---- The FLB baseline. ----

constexpr int kMillibitsPerKey = static_cast<int>(kBitsPerKey * 1000);

// The keys of a KeySet as FLB's flat-key interface takes them.
const char* Flat(const KeySet& keys) { return keys[0].data(); }

bool RequireAvx2(benchmark::State& state, bool avx2) {
  if (avx2 && !flb::Avx2Supported()) {
    state.SkipWithError("FLB's AVX2 variant needs AVX2, which this CPU lacks");
    return false;
  }
  return true;
}

// The AVX-512 call site runs only where the CPU has AVX-512.
bool RequireAvx512(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("the AVX-512 call site needs AVX-512, which this CPU lacks");
    return false;
  }
  return true;
}

flb::Filter BuildFlb(bool avx2, const KeySet& keys, size_t n, int millibits) {
  return avx2 ? flb::avx2::Build(Flat(keys), kKeyBytes, n, millibits)
              : flb::portable::Build(Flat(keys), kKeyBytes, n, millibits);
}

// One FLB filter per (variant, n), built once per process.
const flb::Filter& FlbFilter(bool avx2, size_t n) {
  static auto* cache = new std::map<std::pair<bool, size_t>, flb::Filter>;
  flb::Filter& f = (*cache)[{avx2, n}];
  if (f.lines == nullptr) f = BuildFlb(avx2, Present(n), n, kMillibitsPerKey);
  return f;
}

double FlbFpr(bool avx2, const flb::Filter& f) {
  const size_t maybe = avx2 ? flb::avx2::CountKeys(f, Flat(Absent()), kKeyBytes, kProbeKeys)
                            : flb::portable::CountKeys(f, Flat(Absent()), kKeyBytes, kProbeKeys);
  return static_cast<double>(maybe) / kProbeKeys;
}

void SetFlbCounters(benchmark::State& state, bool avx2, size_t n) {
  const flb::Filter& f = FlbFilter(avx2, n);
  state.counters["bits_per_key"] = 512.0 * f.num_lines / n;
  state.counters["fpr"] = FlbFpr(avx2, f);
  state.counters["k"] = f.num_probes;
}

double OurFpr(const BlockedBloomReader& reader) {
  size_t fp = 0;
  for (size_t i = 0; i < kProbeKeys; ++i) fp += reader.MayMatch(Absent()[i]);
  return static_cast<double>(fp) / kProbeKeys;
}

double LevelDbFpr(const std::string& filter) {
  size_t fp = 0;
  for (size_t i = 0; i < kProbeKeys; ++i) {
    fp += LevelDbPolicy().KeyMayMatch(leveldb::Slice(Absent()[i].data(), kKeyBytes), filter);
  }
  return static_cast<double>(fp) / kProbeKeys;
}

void SetOurCounters(benchmark::State& state, const BlockedBloomReader& r) {
  state.counters["bits_per_key"] = r.geometry().bits_per_key();
  state.counters["fpr"] = OurFpr(r);
  state.counters["fpr_model"] = r.geometry().predicted_fpr();
}

void SetLevelDbCounters(benchmark::State& state, size_t n) {
  const std::string& f = LevelDbFilter(n);
  state.counters["bits_per_key"] = 8.0 * f.size() / n;
  state.counters["fpr"] = LevelDbFpr(f);
}

// ---- Build: hashing included, from keys in memory to serialized bytes. ----

void BM_Build_Lsmbloom(benchmark::State& state) {
  const size_t n = state.range(0);
  Present(n);
  for (auto _ : state) {
    std::string filter = BuildOurs(n);
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  SetOurCounters(state, OurFilter(n));
}

void BM_BuildAddKeys_Lsmbloom(benchmark::State& state) {
  const size_t n = state.range(0);
  Present(n);
  for (auto _ : state) {
    std::string filter = BuildOurs(n, AddCalls::kAddKeysOnce);
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  SetOurCounters(state, OurFilter(n));
}

void BM_BuildInlineHashChunks_Lsmbloom(benchmark::State& state) {
  const size_t n = state.range(0);
  Present(n);
  for (auto _ : state) {
    std::string filter = BuildOurs(n, AddCalls::kInlineHashChunks);
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  SetOurCounters(state, OurFilter(n));
}

void BM_BuildInlineHash_Lsmbloom(benchmark::State& state) {
  const size_t n = state.range(0);
  Present(n);
  for (auto _ : state) {
    std::string filter = BuildOurs(n, AddCalls::kInlineHashEach);
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  SetOurCounters(state, OurFilter(n));
}

void BM_Build_LevelDb(benchmark::State& state) {
  const size_t n = state.range(0);
  const std::vector<leveldb::Slice> slices = Slices(Present(n));
  for (auto _ : state) {
    std::string filter;
    LevelDbPolicy().CreateFilter(slices.data(), static_cast<int>(n), &filter);
    benchmark::DoNotOptimize(filter.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  SetLevelDbCounters(state, n);
}

void BM_Build_Flb(benchmark::State& state, bool avx2) {
  if (!RequireAvx2(state, avx2)) return;
  const size_t n = state.range(0);
  const KeySet& keys = Present(n);
  for (auto _ : state) {
    flb::Filter f = BuildFlb(avx2, keys, n, kMillibitsPerKey);
    benchmark::DoNotOptimize(f.lines);
    flb::FreeFilter(&f);
  }
  state.SetItemsProcessed(state.iterations() * n);
  SetFlbCounters(state, avx2, n);
}

// ---- Single queries from keys: hashing included. ----

template <typename MayMatch>
void RunKeyQueries(benchmark::State& state, const KeySet& probes, MayMatch may_match) {
  const size_t count = std::min(probes.size(), kProbeKeys);
  size_t next = 0, hits = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < kChunk; ++j) hits += may_match(probes[next + j]);
    next = next + 2 * kChunk <= count ? next + kChunk : 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * kChunk);
}

void BM_QueryAbsentKey_Lsmbloom(benchmark::State& state) {
  const BlockedBloomReader& r = OurFilter(state.range(0));
  RunKeyQueries(state, Absent(), [&](std::string_view k) { return r.MayMatch(k); });
  SetOurCounters(state, r);
}

void BM_QueryPresentKey_Lsmbloom(benchmark::State& state) {
  const BlockedBloomReader& r = OurFilter(state.range(0));
  RunKeyQueries(state, Present(state.range(0)), [&](std::string_view k) { return r.MayMatch(k); });
}

void BM_QueryAbsentKey_LevelDb(benchmark::State& state) {
  const std::string& f = LevelDbFilter(state.range(0));
  RunKeyQueries(state, Absent(), [&](std::string_view k) {
    return LevelDbPolicy().KeyMayMatch(leveldb::Slice(k.data(), k.size()), f);
  });
  SetLevelDbCounters(state, state.range(0));
}

void BM_QueryPresentKey_LevelDb(benchmark::State& state) {
  const std::string& f = LevelDbFilter(state.range(0));
  RunKeyQueries(state, Present(state.range(0)), [&](std::string_view k) {
    return LevelDbPolicy().KeyMayMatch(leveldb::Slice(k.data(), k.size()), f);
  });
}

// Runs count(first, kChunk) -> hits over consecutive chunks of the probes.
template <typename Count>
void RunChunks(benchmark::State& state, size_t available, Count count) {
  const size_t usable = std::min(available, kProbeKeys);
  size_t next = 0, hits = 0;
  for (auto _ : state) {
    hits += count(next);
    next = next + 2 * kChunk <= usable ? next + kChunk : 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * kChunk);
}

void BM_QueryKey_LsmbloomInline(benchmark::State& state, bool present) {
  const size_t n = state.range(0);
  const BlockedBloomView view = OurFilter(n).view();
  const KeySet& probes = present ? Present(n) : Absent();
  RunChunks(state, probes.size(), [&](size_t first) {
    return CountKeysInline(view, probes[first].data(), kKeyBytes, kChunk);
  });
}

void BM_QueryKey_LsmbloomAvx2Site(benchmark::State& state, bool present) {
  if (!RequireAvx2(state, true)) return;
  const size_t n = state.range(0);
  const BlockedBloomReader& reader = OurFilter(n);
  const KeySet& probes = present ? Present(n) : Absent();
  RunChunks(state, probes.size(), [&](size_t first) {
    return CountKeysAvx2Site(reader, probes[first].data(), kKeyBytes, kChunk);
  });
}

void BM_QueryKey_LsmbloomAvx512Site(benchmark::State& state, bool present) {
  if (!RequireAvx512(state)) return;
  const size_t n = state.range(0);
  const BlockedBloomReader& reader = OurFilter(n);
  const KeySet& probes = present ? Present(n) : Absent();
  RunChunks(state, probes.size(), [&](size_t first) {
    return CountKeysAvx512Site(reader, probes[first].data(), kKeyBytes, kChunk);
  });
}

void BM_QueryKey_Flb(benchmark::State& state, bool avx2, bool present) {
  if (!RequireAvx2(state, avx2)) return;
  const size_t n = state.range(0);
  const flb::Filter& f = FlbFilter(avx2, n);
  const KeySet& probes = present ? Present(n) : Absent();
  RunChunks(state, probes.size(), [&](size_t first) {
    return avx2 ? flb::avx2::CountKeys(f, probes[first].data(), kKeyBytes, kChunk)
                : flb::portable::CountKeys(f, probes[first].data(), kKeyBytes, kChunk);
  });
}

// ---- Queries from precomputed hashes, single and batched. ----

const std::vector<uint64_t>& AbsentHashes() {
  static const auto* hashes = [] {
    auto* h = new std::vector<uint64_t>(kProbeKeys);
    for (size_t i = 0; i < kProbeKeys; ++i) (*h)[i] = KeyHash(Absent()[i]);
    return h;
  }();
  return *hashes;
}

void BM_QueryAbsentHash_Lsmbloom(benchmark::State& state) {
  // A fresh reader binds the kernel of the target pinned now.
  const BlockedBloomReader r = OurFilter(state.range(0));
  auto reopened = BlockedBloomReader::Open(
      std::string_view(r.bits().data() - 64, r.geometry().serialized_size()));
  const std::vector<uint64_t>& hashes = AbsentHashes();
  size_t next = 0, hits = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < kChunk; ++j) {
      hits += reopened->MayMatchHash(hashes[next + j]);
    }
    next = next + 2 * kChunk <= hashes.size() ? next + kChunk : 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * kChunk);
}

void BM_QueryAbsentHash_LsmbloomInline(benchmark::State& state) {
  const BlockedBloomView view = OurFilter(state.range(0)).view();
  const std::vector<uint64_t>& hashes = AbsentHashes();
  RunChunks(state, hashes.size(),
            [&](size_t first) { return CountHashesInline(view, &hashes[first], kChunk); });
}

void BM_QueryAbsentHash_LsmbloomAvx2Site(benchmark::State& state) {
  if (!RequireAvx2(state, true)) return;
  const BlockedBloomReader& reader = OurFilter(state.range(0));
  const std::vector<uint64_t>& hashes = AbsentHashes();
  RunChunks(state, hashes.size(),
            [&](size_t first) { return CountHashesAvx2Site(reader, &hashes[first], kChunk); });
}

void BM_QueryAbsentHash_LsmbloomAvx512Site(benchmark::State& state) {
  if (!RequireAvx512(state)) return;
  const BlockedBloomReader& reader = OurFilter(state.range(0));
  const std::vector<uint64_t>& hashes = AbsentHashes();
  RunChunks(state, hashes.size(),
            [&](size_t first) { return CountHashesAvx512Site(reader, &hashes[first], kChunk); });
}

void BM_QueryAbsentHash_Flb(benchmark::State& state, bool avx2) {
  if (!RequireAvx2(state, avx2)) return;
  const flb::Filter& f = FlbFilter(avx2, state.range(0));
  const std::vector<uint64_t>& hashes = AbsentHashes();
  RunChunks(state, hashes.size(), [&](size_t first) {
    return avx2 ? flb::avx2::CountHashes(f, &hashes[first], kChunk)
                : flb::portable::CountHashes(f, &hashes[first], kChunk);
  });
}

void BM_QueryAbsentBatch_Flb(benchmark::State& state, bool avx2) {
  if (!RequireAvx2(state, avx2)) return;
  const flb::Filter& f = FlbFilter(avx2, state.range(0));
  const std::vector<uint64_t>& hashes = AbsentHashes();
  const size_t batch = state.range(1);
  bool out[flb::kMaxBatch];
  RunChunks(state, hashes.size(), [&](size_t first) {
    size_t hits = 0;
    for (size_t j = 0; j < kChunk; j += batch) {
      if (avx2) {
        flb::avx2::MayMatchBatch(f, &hashes[first + j], batch, out);
      } else {
        flb::portable::MayMatchBatch(f, &hashes[first + j], batch, out);
      }
      hits += out[0];
    }
    return hits;
  });
}

// Hashes of the first min(n, 2^20) present keys of the filter of n keys.
const std::vector<uint64_t>& PresentHashes(size_t n) {
  static auto* cache = new std::map<size_t, std::vector<uint64_t>>;
  std::vector<uint64_t>& h = (*cache)[n];
  if (h.empty()) {
    h.resize(std::min(n, kProbeKeys));
    for (size_t i = 0; i < h.size(); ++i) h[i] = KeyHash(Present(n)[i]);
  }
  return h;
}

void RunBatchQueries(benchmark::State& state, const BlockedBloomReader& r,
                     const std::vector<uint64_t>& hashes) {
  const size_t batch = state.range(1);
  std::unique_ptr<bool[]> out(new bool[batch]);
  size_t next = 0, hits = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < kChunk; j += batch) {
      r.MayMatchBatch(absl::MakeConstSpan(&hashes[next + j], batch),
                      absl::MakeSpan(out.get(), batch));
      hits += out[0];
    }
    next = next + 2 * kChunk <= hashes.size() ? next + kChunk : 0;
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * kChunk);
}

// A fresh reader binds the kernels of the target pinned now.
BlockedBloomReader Reopened(const BlockedBloomReader& r) {
  return *BlockedBloomReader::Open(
      std::string_view(r.bits().data() - 64, r.geometry().serialized_size()));
}

void BM_QueryAbsentBatch_Lsmbloom(benchmark::State& state) {
  RunBatchQueries(state, Reopened(OurFilter(state.range(0))), AbsentHashes());
}

void BM_QueryPresentBatch_Lsmbloom(benchmark::State& state) {
  RunBatchQueries(state, Reopened(OurFilter(state.range(0))), PresentHashes(state.range(0)));
}

// ---- Accuracy: FPR against bits/key, with the models as counters. ----

constexpr size_t kFprKeys = 1000000;

// Absent keys for the accuracy runs: 10^7 (so that two filters' rates can be
// told apart to about 2 sigma = 0.006 percentage points at 1%), or 2^20 when
// n is capped (--quick).
const KeySet& FprAbsent() { return Keys(2, MaxKeys() >= 10000000 ? 10000000 : kProbeKeys); }

void SetAbsentCount(benchmark::State& state) {
  state.counters["absent_keys"] = static_cast<double>(FprAbsent().size());
}

void SetModelCounters(benchmark::State& state, double bits_per_key, int k) {
  state.counters["fpr_model"] = BlockedBloomFpr(bits_per_key, k);
  state.counters["fpr_mean_fill"] = BlockedBloomFprMeanFill(bits_per_key, k);
  state.counters["fpr_standard"] = StandardBloomFpr(bits_per_key, k);
}

// Arg: bits/key in thousandths. One iteration: the time is not the point.
void BM_Fpr_Lsmbloom(benchmark::State& state) {
  const double bits = state.range(0) / 1000.0;
  BlockedBloomOptions options;
  options.bits_per_key = bits;
  double fpr = 0;
  int k = 0;
  for (auto _ : state) {
    auto builder = BlockedBloomBuilder::Create(options);
    const KeySet& keys = Present(kFprKeys);
    for (size_t i = 0; i < kFprKeys; ++i) builder->AddKey(keys[i]);
    const std::string filter = *builder->Finish();
    const BlockedBloomReader reader = *BlockedBloomReader::Open(filter);
    const KeySet& absent = FprAbsent();
    fpr = static_cast<double>(
              CountKeysInline(reader.view(), Flat(absent), kKeyBytes, absent.size())) /
          absent.size();
    k = reader.geometry().num_probes;
  }
  state.counters["fpr"] = fpr;
  state.counters["k"] = k;
  state.counters["bits_per_key"] = bits;
  SetModelCounters(state, bits, k);
  SetAbsentCount(state);
}

void BM_Fpr_ClassicBloom(benchmark::State& state) {
  const double bits = state.range(0) / 1000.0;
  double fpr = 0;
  for (auto _ : state) {
    auto builder = (*NewClassicBloomPolicy(bits))->NewBuilder();
    const KeySet& keys = Present(kFprKeys);
    for (size_t i = 0; i < kFprKeys; ++i) builder->AddKey(keys[i]);
    const std::string filter = *builder->Finish();
    auto reader = *(*NewClassicBloomPolicy(bits))->NewReader(filter);
    size_t fp = 0;
    for (size_t i = 0; i < kProbeKeys; ++i) fp += reader->KeyMayMatch(Absent()[i]);
    fpr = static_cast<double>(fp) / kProbeKeys;
  }
  state.counters["fpr"] = fpr;
  state.counters["bits_per_key"] = bits;
  const int k = std::max(1, static_cast<int>(std::lround(bits * std::log(2.0))));
  state.counters["fpr_standard"] = StandardBloomFpr(bits, k);
}

void BM_Fpr_LevelDb(benchmark::State& state) {
  const int bits = static_cast<int>(state.range(0) / 1000);
  double fpr = 0, size_bits = 0;
  for (auto _ : state) {
    const leveldb::FilterPolicy* policy = leveldb::NewBloomFilterPolicy(bits);
    const std::vector<leveldb::Slice> slices = Slices(Present(kFprKeys));
    std::string filter;
    policy->CreateFilter(slices.data(), static_cast<int>(kFprKeys), &filter);
    size_t fp = 0;
    for (size_t i = 0; i < kProbeKeys; ++i) {
      fp += policy->KeyMayMatch(leveldb::Slice(Absent()[i].data(), kKeyBytes), filter);
    }
    fpr = static_cast<double>(fp) / kProbeKeys;
    size_bits = 8.0 * filter.size();
    delete policy;
  }
  state.counters["fpr"] = fpr;
  state.counters["bits_per_key"] = size_bits / kFprKeys;
}

void BM_Fpr_Flb(benchmark::State& state) {
  const int millibits = static_cast<int>(state.range(0));
  const bool avx2 = flb::Avx2Supported();
  double fpr = 0, bits = 0;
  int k = 0;
  for (auto _ : state) {
    flb::Filter f = BuildFlb(avx2, Present(kFprKeys), kFprKeys, millibits);
    const KeySet& absent = FprAbsent();
    const size_t maybe = avx2 ? flb::avx2::CountKeys(f, Flat(absent), kKeyBytes, absent.size())
                              : flb::portable::CountKeys(f, Flat(absent), kKeyBytes, absent.size());
    fpr = static_cast<double>(maybe) / absent.size();
    bits = 512.0 * f.num_lines / kFprKeys;
    k = f.num_probes;
    flb::FreeFilter(&f);
  }
  state.counters["fpr"] = fpr;
  state.counters["k"] = k;
  state.counters["bits_per_key"] = bits;
  SetModelCounters(state, bits, k);
  SetAbsentCount(state);
}

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
