// What a consumer's own build gets from lsmbloom: Table::Get and
// TableSet::Get of present and absent keys, on table files opened as
// OpenPosixFile does by default (mapped) and with pread. Built in this
// separate workspace, the loop is consumer code: -O0 in a default
// (fastbuild) build, optimised under -c opt, while the library compiles
// optimised in both (its copts). tools/consumer_bench.sh compares the two.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"

namespace {

using lsmbloom::FileAccess;

constexpr int kKeys = 100000;
constexpr int kFiles = 4;  // One per level, each holding every fourth key.

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user%012d", i * 2);  // Odd numbers: absent.
  return buf;
}

std::string TempDir() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp");
}

// Writes file `f` (keys i with i % kFiles == f) and opens it with `access`.
std::shared_ptr<const lsmbloom::Table> OpenTable(int f, FileAccess access) {
  const std::string path = TempDir() + "/lsmbloom_consumer_bench_" + std::to_string(getpid()) +
                           "_" + std::to_string(f) + ".sst";
  {
    auto out = lsmbloom::NewPosixWritableFile(path);
    if (!out.ok()) std::abort();
    lsmbloom::TableBuilder builder(lsmbloom::TableOptions(), std::move(*out));
    const std::string value(100, 'v');
    for (int i = f; i < kKeys; i += kFiles) {
      if (!builder.Add(Key(i), 1, lsmbloom::EntryType::kValue, value).ok()) std::abort();
    }
    if (!builder.Finish().ok()) std::abort();
  }
  auto file = lsmbloom::OpenPosixFile(path, access);
  std::remove(path.c_str());  // An open file stays readable.
  if (!file.ok()) std::abort();
  auto table = lsmbloom::Table::Open(std::move(*file));
  if (!table.ok()) std::abort();
  return std::shared_ptr<const lsmbloom::Table>(std::move(*table));
}

const std::vector<std::shared_ptr<const lsmbloom::Table>>& Tables(FileAccess access) {
  static auto* cache = new std::map<FileAccess, std::vector<std::shared_ptr<const lsmbloom::Table>>>;
  auto& tables = (*cache)[access];
  if (tables.empty()) {
    for (int f = 0; f < kFiles; ++f) tables.push_back(OpenTable(f, access));
  }
  return tables;
}

// Keys in a fixed pseudo-random order; absent keys fall between present ones.
const std::vector<std::string>& Probes(bool present) {
  static auto* cache = new std::map<bool, std::vector<std::string>>;
  auto& keys = (*cache)[present];
  if (keys.empty()) {
    for (int i = 0; i < 1 << 16; ++i) {
      const int k = static_cast<int>((i * 7919ull) % kKeys);
      keys.push_back(present ? Key(k) : Key(k) + "x");
    }
  }
  return keys;
}

void TableGet(benchmark::State& state, FileAccess access, bool present) {
  // Table 0's keys (every kFiles-th), or absent ones.
  const lsmbloom::Table& table = *Tables(access)[0];
  std::vector<std::string> keys;
  for (int i = 0; i < 1 << 16; ++i) {
    const int k = static_cast<int>((i * 7919ull) % (kKeys / kFiles)) * kFiles;
    keys.push_back(present ? Key(k) : Key(k) + "x");
  }
  size_t i = 0;
  int64_t found = 0;
  lsmbloom::LookupResult result;
  for (auto _ : state) {
    if (!table.Get(keys[i++ & 0xffff], &result).ok()) std::abort();
    found += result.kind == lsmbloom::LookupResult::Kind::kFound;
  }
  if (found != (present ? state.iterations() : 0)) state.SkipWithError("a wrong answer");
}

void SetGet(benchmark::State& state, FileAccess access, bool present) {
  lsmbloom::LookupOptions options;
  options.count_stats = false;
  lsmbloom::TableSet set(options);
  lsmbloom::VersionEdit edit;
  const auto& tables = Tables(access);
  for (int f = 0; f < kFiles; ++f) edit.added.push_back({f, static_cast<uint64_t>(f + 1), tables[f]});
  if (!set.Apply(edit).ok()) std::abort();
  const std::vector<std::string>& keys = Probes(present);
  size_t i = 0;
  int64_t found = 0;
  lsmbloom::LookupResult result;
  for (auto _ : state) {
    if (!set.Get(keys[i++ & 0xffff], &result).ok()) std::abort();
    found += result.kind == lsmbloom::LookupResult::Kind::kFound;
  }
  if (present && found != state.iterations()) state.SkipWithError("a present key was not found");
  if (!present && found != 0) state.SkipWithError("an absent key was found");
}

void Register() {
  const std::pair<const char*, FileAccess> accesses[] = {{"Default", FileAccess::kDefault},
                                                         {"Pread", FileAccess::kPread}};
  for (const auto& [name, access] : accesses) {
    const FileAccess a = access;
    for (const bool present : {true, false}) {
      const std::string which = std::string(present ? "Present_" : "Absent_") + name;
      benchmark::RegisterBenchmark(("BM_TableGet" + which).c_str(),
                                   [a, present](benchmark::State& s) { TableGet(s, a, present); });
      benchmark::RegisterBenchmark(("BM_TableSetGet" + which).c_str(),
                                   [a, present](benchmark::State& s) { SetGet(s, a, present); });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
