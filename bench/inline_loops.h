// Query loops with lsmbloom's probe inlined per SIMD target (inline_loops.cc),
// dispatched once per call. Keys are n fixed-size keys laid end to end.

#ifndef LSMBLOOM_BENCH_INLINE_LOOPS_H_
#define LSMBLOOM_BENCH_INLINE_LOOPS_H_

#include <cstddef>
#include <cstdint>

#include "lsmbloom/filter/blocked_bloom.h"

namespace lsmbloom {
namespace bench {

// How many of the hashes may match.
size_t CountHashesInline(const BlockedBloomView& filter, const uint64_t* hashes, size_t n);

// out[i] = whether hashes[i] may match.
void ProbeHashesInline(const BlockedBloomView& filter, const uint64_t* hashes, size_t n, bool* out);

// How many of the keys may match, each hashed by KeyHashInline (default spec).
size_t CountKeysInline(const BlockedBloomView& filter, const char* keys, size_t key_size, size_t n);

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_INLINE_LOOPS_H_
