// Starting a load early, in a way the compiler keeps.
//
// GCC 12 (its -fipa-modref, on at -O2) judges a function whose only effect
// is __builtin_prefetch to have no side effects and deletes calls to it
// from the same file: Block's interval and restart prefetches had vanished
// from the lookup path without a trace (objdump showed neither the
// prefetches nor a call). An asm statement marked volatile is an effect
// the compiler must keep, wherever it is inlined or called from.

#ifndef LSMBLOOM_SRC_UTIL_PREFETCH_H_
#define LSMBLOOM_SRC_UTIL_PREFETCH_H_

namespace lsmbloom {
namespace internal {

// Asks for the cache line holding `p` to be loaded into every cache level,
// for reading. Never faults, whatever `p` is.
inline void PrefetchForRead(const void* p) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_PREFETCH_H_
