// Table benchmarks: build throughput, and Get of present and absent keys
// with the blocked filter, the classic filter, and no filter, from
// in-memory files; and the blocked filter's Get from a file on disk, opened
// as OpenPosixFile does by default and with pread. 16-byte keys, 100-byte
// values.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// How a table of the blocked policy is read: from memory (the benchmarks
// above), or from a file on disk, through OpenPosixFile's default or pread.
enum class Source { kMemory, kFileDefault, kFilePread };

const Table& FileTable(size_t n, Source source) {
  static auto* cache = new std::map<std::pair<size_t, Source>, std::unique_ptr<Table>>;
  auto& t = (*cache)[{n, source}];
  if (t) return *t;
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
                           "/lsmbloom_table_bench_" + std::to_string(n) + ".sst";
  const std::string bytes = BuildTableBytes(n, kBlocked);
  {
    std::unique_ptr<WritableFile> out = *NewPosixWritableFile(path);
    if (!out->Append(bytes).ok() || !out->Close().ok()) std::abort();
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
      source == Source::kFilePread ? OpenPosixFile(path, FileAccess::kPread) : OpenPosixFile(path);
  if (!file.ok()) std::abort();
  std::remove(path.c_str());  // The open file stays readable.
  t = std::move(*Table::Open(std::move(*file)));
  return *t;
}

void TableBuild(benchmark::State& state, int policy) {
  const size_t n = state.range(0);
  SortedKeys(n);
  size_t bytes = 0;
  for (auto _ : state) bytes = BuildTableBytes(n, policy).size();
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * (kKeyBytes + kValueBytes));
  state.counters["file_bytes"] = bytes;
}

void RunGets(benchmark::State& state, int policy, bool present,
             Source source = Source::kMemory) {
  const size_t n = state.range(0);
  const Table& table = source == Source::kMemory ? CachedTable(n, policy) : FileTable(n, source);
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
  // The blocked policy's table in a file, as a store opens it.
  const std::pair<const char*, Source> files[] = {{"FileDefault", Source::kFileDefault},
                                                  {"FilePread", Source::kFilePread}};
  for (const auto& [name, source] : files) {
    const Source s = source;
    for (const bool present : {true, false}) {
      auto* b = benchmark::RegisterBenchmark(
          (std::string(present ? "BM_TableGetPresent_Lsmbloom" : "BM_TableGetAbsent_Lsmbloom") +
           name)
              .c_str(),
          [s, present](benchmark::State& st) { RunGets(st, kBlocked, present, s); });
      for (int64_t n : sizes) b->Arg(n);
    }
  }
}

}  // namespace bench
}  // namespace lsmbloom
