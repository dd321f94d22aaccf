// The memory limit under every batched probe: independent random 64-byte
// loads from a buffer the size of the blocked filter of n keys at 10
// bits/key. A probe of that filter reads one line, so no batched probe of n
// keys runs faster than this row at the same n and batch.

#include "bench/filter_bench.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/util/aligned_buffer.h"
#include "src/util/random.h"

namespace lsmbloom {
namespace bench {
namespace {

constexpr size_t kLineBytes = internal::kCacheLineBytes;

// n * 10 / 8 bytes rounded up to a line, allocated as the filters are
// (AlignedBuffer) and written through, so every page is mapped before timing.
const internal::AlignedBuffer& LineBuffer(size_t n) {
  static auto* cache = new std::map<size_t, std::unique_ptr<internal::AlignedBuffer>>;
  std::unique_ptr<internal::AlignedBuffer>& b = (*cache)[n];
  if (b == nullptr) {
    const size_t bytes = (n * 10 / 8 + kLineBytes - 1) / kLineBytes * kLineBytes;
    std::string fill(bytes, '\0');
    for (size_t i = 0; i < bytes; i += sizeof(uint64_t)) {
      const uint64_t v = internal::SplitMix64(i);
      std::memcpy(&fill[i], &v, sizeof(v));
    }
    b.reset(new internal::AlignedBuffer(fill));
  }
  return *b;
}

}  // namespace

void BM_RandomLines(benchmark::State& state) {
  const char* base = LineBuffer(state.range(0)).view().data();
  const size_t lines = LineBuffer(state.range(0)).view().size() / kLineBytes;
  const size_t batch = state.range(1);
  // Byte offsets of random lines, as many as the batch rows have hashes:
  // the index array streams through the cache as theirs does.
  std::vector<uint64_t> offsets(kProbeKeys);
  for (size_t i = 0; i < offsets.size(); ++i) {
    offsets[i] = internal::SplitMix64(i ^ 0x11e5) % lines * kLineBytes;
  }
  size_t next = 0;
  for (auto _ : state) {
    for (size_t j = 0; j < kChunk; j += batch) {
      // No load depends on another: each adds into a sum used only after.
      uint64_t sum = 0;
      for (size_t i = 0; i < batch; ++i) {
        uint64_t word;
        std::memcpy(&word, base + offsets[next + j + i], sizeof(word));
        sum += word;
      }
      benchmark::DoNotOptimize(sum);
    }
    next = next + 2 * kChunk <= offsets.size() ? next + kChunk : 0;
  }
  state.SetItemsProcessed(state.iterations() * kChunk);
  state.SetLabel("memory");
}

}  // namespace bench
}  // namespace lsmbloom
