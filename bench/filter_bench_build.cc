// Filter builds, hashing included: from keys in memory to serialized bytes,
// lsmbloom's (by each way the keys can reach its builder), FLB's and
// LevelDB's.

#include "bench/filter_bench.h"

#include <string>
#include <vector>

namespace lsmbloom {
namespace bench {

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

}  // namespace bench
}  // namespace lsmbloom
