// lsmbloom's public reader API called from code compiled as FLB's probe is
// (-mavx2 -mbmi2, see BUILD): there BlockedBloomReader::MayMatchHash inlines
// its AVX2 probe, as an application built with -mavx2 or -march=native gets.
// Call only on a CPU with AVX2.

#ifndef LSMBLOOM_BENCH_AVX2_CALL_SITE_H_
#define LSMBLOOM_BENCH_AVX2_CALL_SITE_H_

#include <cstddef>
#include <cstdint>

#include "lsmbloom/filter/blocked_bloom.h"

namespace lsmbloom {
namespace bench {

// How many of the hashes reader.MayMatchHash says may match.
size_t CountHashesAvx2Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n);

// out[i] = reader.MayMatchHash(hashes[i]), for tests of the inlined probe.
void ProbeHashesAvx2Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n,
                         bool* out);

// How many of n keys of key_size bytes, laid end to end, reader.MayMatch
// says may match.
size_t CountKeysAvx2Site(const BlockedBloomReader& reader, const char* keys, size_t key_size,
                         size_t n);

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_AVX2_CALL_SITE_H_
