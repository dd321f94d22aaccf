// The call site compiled for AVX-512: -march=x86-64-v4, plus AES and PCLMUL,
// which Highway's x86 targets require (see BUILD), so that its static
// target, and the prober's, is AVX3.
#include "hwy/highway.h"

#if HWY_TARGET != HWY_AVX3
#error "compile with the AVX-512 flags of BUILD: this measures the inlined AVX-512 probe"
#endif

#define CALL_SITE(name) name##Avx512Site
#include "bench/call_site.inc"
