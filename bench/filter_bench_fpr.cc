// Filter accuracy: the measured FPR against bits/key of lsmbloom's blocked
// and classic Bloom filters, FLB's and LevelDB's, with the models' FPRs as
// counters.

#include "bench/filter_bench.h"

#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/inline_loops.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace bench {

namespace {

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

}  // namespace

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

}  // namespace bench
}  // namespace lsmbloom
