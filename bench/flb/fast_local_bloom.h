// A baseline written here from the published design of RocksDB's
// FastLocalBloom ("FLB", its format_version 5 filter), to measure lsmbloom
// beside it in the same binary. Bench-only; no RocksDB code is used.
//
// The design: k from millibits/key by a fixed table; a 64-bit key hash h;
// the low half picks a 64-byte line by multiply-shift, the high half h2
// makes the probes: k times, bit = h2 >> 23 (9 bits: byte bit >> 3, bit
// bit & 7 of the line), then h2 *= 0x9e3779b9. The build buffers the hashes
// (adjacent repeats dropped), sizes from their count, then sets each hash's
// bits through an 8-deep prefetch ring. A batched query hashes and fetches
// every key's line first, then probes each.
//
// The same source is compiled twice: `avx2` (with -mavx2 -mbmi2, FLB's
// fastest probe: one vector multiply by the first 8 powers of 0x9e3779b9,
// two lane permutes blended by the word index's top bit, one test) and
// `portable` (the scalar loop with an early exit). Each variant's loops are
// compiled in its own file so that FLB's inline probe is inlined into them,
// as it is into RocksDB's callers. Only C types cross this interface: the
// AVX2 file must not instantiate templates other files share.

#ifndef LSMBLOOM_BENCH_FLB_FAST_LOCAL_BLOOM_H_
#define LSMBLOOM_BENCH_FLB_FAST_LOCAL_BLOOM_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace bench {
namespace flb {

// FLB's k for a millibits/key setting.
int ProbesForMillibits(int millibits_per_key);

// Cache lines FLB gives `num_keys` keys at `millibits_per_key`.
uint32_t LinesFor(size_t num_keys, int millibits_per_key);

struct Filter {
  uint8_t* lines = nullptr;  // 64-byte aligned, num_lines * 64 bytes.
  uint32_t num_lines = 0;
  int num_probes = 1;
};

void FreeFilter(Filter* filter);

// True if the CPU runs the avx2 variant.
bool Avx2Supported();

#define LSMBLOOM_FLB_VARIANT_API                                                    \
  /* Keys are n fixed-size keys laid end to end, hashed by KeyHash (build) */       \
  /* or KeyHashInline (queries), as lsmbloom's builder and loops do.       */       \
  Filter Build(const char* keys, size_t key_size, size_t n, int millibits_per_key); \
  /* Same, from hashes already computed. */                                         \
  Filter BuildFromHashes(const uint64_t* hashes, size_t n, int millibits_per_key);  \
  /* One query per key, hashing included; returns how many may match. */            \
  size_t CountKeys(const Filter& f, const char* keys, size_t key_size, size_t n);   \
  /* One query per hash; returns how many may match. */                             \
  size_t CountHashes(const Filter& f, const uint64_t* hashes, size_t n);            \
  /* FLB's batched query: fetch every line, then probe. n <= kMaxBatch. */          \
  void MayMatchBatch(const Filter& f, const uint64_t* hashes, size_t n, bool* out);

constexpr size_t kMaxBatch = 1024;

namespace avx2 {
LSMBLOOM_FLB_VARIANT_API
}  // namespace avx2

namespace portable {
LSMBLOOM_FLB_VARIANT_API
}  // namespace portable

#undef LSMBLOOM_FLB_VARIANT_API

}  // namespace flb
}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_FLB_FAST_LOCAL_BLOOM_H_
