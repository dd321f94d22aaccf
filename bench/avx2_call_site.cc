// The call site compiled for AVX2: FLB's flags (-mavx2 -mbmi2) plus what
// Highway's AVX2 target also requires (FMA, F16C, AES, PCLMUL; see BUILD),
// so that its static target, and the prober's, is AVX2.
#include "hwy/highway.h"

#if HWY_TARGET != HWY_AVX2
#error "compile with the AVX2 flags of BUILD: this measures the inlined AVX2 probe"
#endif

#define CALL_SITE(name) name##Avx2Site
#include "bench/call_site.inc"
