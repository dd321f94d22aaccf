// lsmbloom's probes inlined into the caller's loop, one copy of the loop per
// SIMD target and one dispatch per call (per chunk of keys): how a caller
// that keeps its own per-target code uses lsmbloom/filter/blocked_bloom-inl.h, and
// the counterpart of FLB's probe inlined into its callers.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/inline_loops.cc"
#include "bench/inline_loops.h"

#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lsmbloom/filter/blocked_bloom-inl.h"
#include "lsmbloom/filter/key_hash-inl.h"

HWY_BEFORE_NAMESPACE();
namespace lsmbloom {
namespace bench {
namespace HWY_NAMESPACE {

size_t CountHashesInline(const BlockedBloomView& filter, const uint64_t* hashes, size_t n) {
  const lsmbloom::HWY_NAMESPACE::BlockedBloomProber prober(filter);
  size_t maybe = 0;
  for (size_t i = 0; i < n; ++i) maybe += prober.MayMatchHash(hashes[i]);
  return maybe;
}

void ProbeHashesInline(const BlockedBloomView& filter, const uint64_t* hashes, size_t n,
                       bool* out) {
  const lsmbloom::HWY_NAMESPACE::BlockedBloomProber prober(filter);
  for (size_t i = 0; i < n; ++i) out[i] = prober.MayMatchHash(hashes[i]);
}

// flatten: XXH3's entry point is too large for GCC to inline by itself; the
// FLB loop it is measured against is flattened alike.
__attribute__((flatten)) size_t CountKeysInline(const BlockedBloomView& filter, const char* keys,
                                                size_t key_size, size_t n) {
  const lsmbloom::HWY_NAMESPACE::BlockedBloomProber prober(filter);
  size_t maybe = 0;
  for (size_t i = 0; i < n; ++i) {
    maybe += prober.MayMatchHash(KeyHashInline(std::string_view(keys + i * key_size, key_size)));
  }
  return maybe;
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bench
}  // namespace lsmbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace lsmbloom {
namespace bench {

HWY_EXPORT(CountHashesInline);
HWY_EXPORT(CountKeysInline);
HWY_EXPORT(ProbeHashesInline);

size_t CountHashesInline(const BlockedBloomView& filter, const uint64_t* hashes, size_t n) {
  return HWY_DYNAMIC_DISPATCH(CountHashesInline)(filter, hashes, n);
}

void ProbeHashesInline(const BlockedBloomView& filter, const uint64_t* hashes, size_t n,
                       bool* out) {
  HWY_DYNAMIC_DISPATCH(ProbeHashesInline)(filter, hashes, n, out);
}

size_t CountKeysInline(const BlockedBloomView& filter, const char* keys, size_t key_size,
                       size_t n) {
  return HWY_DYNAMIC_DISPATCH(CountKeysInline)(filter, keys, key_size, n);
}

}  // namespace bench
}  // namespace lsmbloom
#endif  // HWY_ONCE
