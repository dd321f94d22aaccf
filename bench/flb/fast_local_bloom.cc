#include "bench/flb/fast_local_bloom.h"

#include <cstdlib>

namespace lsmbloom {
namespace bench {
namespace flb {

int ProbesForMillibits(int millibits) {
  // FLB's table: the k that measured best for each range of bits/key.
  if (millibits <= 2080) return 1;
  if (millibits <= 3580) return 2;
  if (millibits <= 5100) return 3;
  if (millibits <= 6640) return 4;
  if (millibits <= 8300) return 5;
  if (millibits <= 10070) return 6;
  if (millibits <= 11720) return 7;
  if (millibits <= 14001) return 8;
  if (millibits <= 16050) return 9;
  if (millibits <= 18300) return 10;
  if (millibits <= 22001) return 11;
  if (millibits <= 25501) return 12;
  if (millibits > 50000) return 24;
  return (millibits - 1) / 2000 - 1;
}

uint32_t LinesFor(size_t num_keys, int millibits) {
  if (num_keys == 0) return 0;
  const uint64_t bits = (static_cast<uint64_t>(num_keys) * millibits + 999) / 1000;
  const uint64_t lines = (bits + 511) / 512;
  return static_cast<uint32_t>(lines == 0 ? 1 : lines);
}

void FreeFilter(Filter* filter) {
  std::free(filter->lines);
  filter->lines = nullptr;
  filter->num_lines = 0;
}

bool Avx2Supported() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"); }

}  // namespace flb
}  // namespace bench
}  // namespace lsmbloom
