// Filter queries: single ones from keys (hashing included), through the
// public reader, the inlined probe and the per-target call sites, against
// FLB's and LevelDB's; and single and batched ones from precomputed hashes.

#include "bench/filter_bench.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "bench/call_sites.h"
#include "bench/inline_loops.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace bench {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

// Queries from precomputed hashes, single and batched.

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

namespace {

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

}  // namespace

void BM_QueryAbsentBatch_Lsmbloom(benchmark::State& state) {
  RunBatchQueries(state, Reopened(OurFilter(state.range(0))), AbsentHashes());
}

void BM_QueryPresentBatch_Lsmbloom(benchmark::State& state) {
  RunBatchQueries(state, Reopened(OurFilter(state.range(0))), PresentHashes(state.range(0)));
}

}  // namespace bench
}  // namespace lsmbloom
