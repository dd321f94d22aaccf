// filter_memory_bench's Memory_ModulePrefix cases: which kind of module pays.
// A modular Bloom filter held as a prefix of j modules of 2 bits/key against
// what a Ribbon filter split into column groups would give with the same
// bits: a prefix of r columns of a homogeneous Ribbon filter is itself a
// Ribbon filter of r bits/key, so a Ribbon filter built at 2j bits/key
// measures it. Each case: FPR on keys known to be absent, and ns per probe
// from a key (the filters out of cache at 10^7 keys, in it at 10^6).

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/filter_memory_bench.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"

namespace lsmbloom {
namespace bench {
namespace memory {
namespace {

constexpr int kModules = 8;
constexpr uint64_t kKeys = 1000000;
constexpr uint64_t kAbsent = 1000000;

std::string KeyAt(uint64_t i) { return absl::StrCat("user", i); }

const std::string& ModularFilter() {
  static const std::string* filter = [] {
    ModularBloomOptions options;
    options.module_bits_per_key = std::vector<double>(kModules, 2.0);
    auto builder = (*NewModularBloomPolicy(options))->NewBuilder();
    for (uint64_t i = 0; i < kKeys; ++i) builder->AddKey(KeyAt(2 * i));
    return new std::string(*builder->Finish());
  }();
  return *filter;
}

// FPR and ns per probe of `may_match` over kAbsent absent keys.
template <class MayMatch>
void Measure(benchmark::State& state, const MayMatch& may_match, const char* prefix) {
  std::vector<std::string> absent;
  absent.reserve(kAbsent);
  for (uint64_t i = 0; i < kAbsent; ++i) absent.push_back(KeyAt(2 * i + 1));
  uint64_t positives = 0, probes = 0;
  for (auto _ : state) {
    for (const std::string& key : absent) positives += may_match(key);
    probes += absent.size();
  }
  state.counters[absl::StrCat(prefix, "_fpr")] = static_cast<double>(positives) / probes;
  state.counters[absl::StrCat(prefix, "_ns_per_probe")] = benchmark::Counter(
      static_cast<double>(probes), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void ModulePrefix(benchmark::State& state) {
  const int modules = static_cast<int>(state.range(0));
  const std::string& filter = ModularFilter();
  const ModularBloomHeader header = *ParseModularBloomHeader(filter);
  auto reader = (*NewModularBloomPolicy(ModularBloomOptions()))
                    ->NewReader(std::string_view(filter).substr(0, header.PrefixSize(modules - 1)));
  if (!reader.ok()) Die(std::string(reader.status().message()));
  Measure(state, [&](const std::string& k) { return (*reader)->KeyMayMatch(k); }, "modules");
  state.counters["predicted_fpr"] = (*reader)->predicted_fpr();
  state.counters["bits_per_key"] = (*reader)->bits_per_key();
}

void RibbonColumns(benchmark::State& state) {
  RibbonOptions options;
  options.bits_per_key = 2.0 * static_cast<double>(state.range(0));
  auto builder = RibbonBuilder::Create(options);
  if (!builder.ok()) Die(std::string(builder.status().message()));
  for (uint64_t i = 0; i < kKeys; ++i) builder->AddKey(KeyAt(2 * i));
  static std::string filter;
  filter = *builder->Finish();
  auto reader = RibbonReader::Open(filter);
  if (!reader.ok()) Die(std::string(reader.status().message()));
  Measure(state, [&](const std::string& k) { return reader->MayMatch(k); }, "ribbon");
  state.counters["bits_per_key"] = options.bits_per_key;
}

}  // namespace

void RegisterModulePrefix() {
  for (int modules : {1, 2, 3, 4, 6, 8}) {
    benchmark::RegisterBenchmark("Memory_ModulePrefix_BloomModules", ModulePrefix)
        ->Arg(modules)
        ->Iterations(1);
    // Ribbon needs 1.1 bits/key at least: from 2 up.
    benchmark::RegisterBenchmark("Memory_ModulePrefix_RibbonColumns", RibbonColumns)
        ->Arg(modules)
        ->Iterations(1);
  }
}

}  // namespace memory
}  // namespace bench
}  // namespace lsmbloom
