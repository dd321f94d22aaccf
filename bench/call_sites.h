// lsmbloom's per-target prober (blocked_bloom-inl.h) in code compiled for
// AVX2 (as FLB's probe is, -mavx2 -mbmi2, with what Highway's AVX2 target
// adds) and for AVX-512 (-march=x86-64-v4, what -march=native gives on Zen
// 4/5 and recent Xeons); see BUILD. There the prober inlines the probe of
// that instruction set, as it does in an application built with those flags
// (BlockedBloomReader::MayMatchHash calls the kernel chosen at run time
// whatever the flags). Call each family only on a CPU that has its
// instruction set (__builtin_cpu_supports).

#ifndef LSMBLOOM_BENCH_CALL_SITES_H_
#define LSMBLOOM_BENCH_CALL_SITES_H_

#include <cstddef>
#include <cstdint>

#include "lsmbloom/filter/blocked_bloom.h"

namespace lsmbloom {
namespace bench {

// How many of the hashes the reader's filter may hold.
size_t CountHashesAvx2Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n);
size_t CountHashesAvx512Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n);

// out[i] = the prober's answer for hashes[i], for tests of the inlined probes.
void ProbeHashesAvx2Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n,
                         bool* out);
void ProbeHashesAvx512Site(const BlockedBloomReader& reader, const uint64_t* hashes, size_t n,
                           bool* out);

// How many of n keys of key_size bytes, laid end to end, may be in the
// reader's filter (each hashed by KeyHashInline).
size_t CountKeysAvx2Site(const BlockedBloomReader& reader, const char* keys, size_t key_size,
                         size_t n);
size_t CountKeysAvx512Site(const BlockedBloomReader& reader, const char* keys, size_t key_size,
                           size_t n);

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_CALL_SITES_H_
