// The filters the filter benchmarks measure, each built once per process,
// and the counters (size, measured and modelled FPR) each benchmark sets.

#include "bench/filter_bench.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lsmbloom/filter/key_hash.h"
#include "src/util/aligned_buffer.h"

namespace lsmbloom {
namespace bench {


std::string BuildOurs(size_t n, AddCalls calls) {
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

}  // namespace bench
}  // namespace lsmbloom
