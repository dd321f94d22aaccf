// Table benchmarks: build throughput, and Get of present and absent keys
// with the blocked filter, the classic filter, and no filter. In-memory
// files, 16-byte keys, 100-byte values.

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "bench/bench_keys.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"

namespace lsmbloom {
namespace bench {
namespace {

constexpr size_t kValueBytes = 100;

// Keys sorted as a table needs them.
const std::vector<std::string>& SortedKeys(size_t n) {
  static auto* cache = new std::map<size_t, std::vector<std::string>>;
  auto& keys = (*cache)[n];
  if (keys.empty()) {
    const KeySet& set = Keys(1, n);
    keys.reserve(n);
    for (size_t i = 0; i < n; ++i) keys.emplace_back(set[i]);
    std::sort(keys.begin(), keys.end());
  }
  return keys;
}

std::shared_ptr<const FilterPolicy> Policy(int which) {
  switch (which) {
    case 0:
      return nullptr;
    case 1:
      return DefaultFilterPolicy();
    default:
      return *NewClassicBloomPolicy(10);
  }
}

std::string BuildTableBytes(size_t n, int policy) {
  TableOptions options;
  options.filter_policy = Policy(policy);
  std::string bytes;
  TableBuilder builder(options, NewMemWritableFile(&bytes));
  const std::string value(kValueBytes, 'v');
  for (const std::string& key : SortedKeys(n)) {
    if (!builder.Add(key, 1, EntryType::kValue, value).ok()) std::abort();
  }
  if (!builder.Finish().ok()) std::abort();
  return bytes;
}

const Table& CachedTable(size_t n, int policy) {
  static auto* cache = new std::map<std::pair<size_t, int>, std::unique_ptr<Table>>;
  auto& t = (*cache)[{n, policy}];
  if (!t) t = std::move(*Table::Open(NewMemRandomAccessFile(BuildTableBytes(n, policy))));
  return *t;
}

// Policies by the implementation name the report groups by.
constexpr int kNoFilter = 0, kBlocked = 1, kClassic = 2;

void TableBuild(benchmark::State& state, int policy) {
  const size_t n = state.range(0);
  SortedKeys(n);
  size_t bytes = 0;
  for (auto _ : state) bytes = BuildTableBytes(n, policy).size();
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * (kKeyBytes + kValueBytes));
  state.counters["file_bytes"] = bytes;
}

void RunGets(benchmark::State& state, int policy, bool present) {
  const size_t n = state.range(0);
  const Table& table = CachedTable(n, policy);
  const std::vector<std::string>& keys = SortedKeys(n);
  const KeySet& absent = Keys(2, 1 << 16);
  size_t i = 0, found = 0;
  for (auto _ : state) {
    const std::string_view key =
        present ? std::string_view(keys[(i * 7919) % n]) : absent[i & 0xffff];
    absl::StatusOr<LookupResult> r = table.Get(key);
    found += r.ok() && r->kind == LookupResult::Kind::kFound;
    ++i;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

void RegisterAll() {
  const std::vector<int64_t> sizes = KeyCounts({100000, 1000000});
  const std::pair<const char*, int> impls[] = {
      {"NoFilter", kNoFilter}, {"Lsmbloom", kBlocked}, {"ClassicBloom", kClassic}};
  for (const auto& [name, policy] : impls) {
    const int p = policy;
    auto* build = benchmark::RegisterBenchmark((std::string("BM_TableBuild_") + name).c_str(),
                                               [p](benchmark::State& s) { TableBuild(s, p); });
    auto* present =
        benchmark::RegisterBenchmark((std::string("BM_TableGetPresent_") + name).c_str(),
                                     [p](benchmark::State& s) { RunGets(s, p, true); });
    auto* absent = benchmark::RegisterBenchmark((std::string("BM_TableGetAbsent_") + name).c_str(),
                                                [p](benchmark::State& s) { RunGets(s, p, false); });
    build->Unit(benchmark::kMillisecond);
    for (int64_t n : sizes) {
      build->Arg(n);
      present->Arg(n);
      absent->Arg(n);
    }
  }
}

}  // namespace bench
}  // namespace lsmbloom
