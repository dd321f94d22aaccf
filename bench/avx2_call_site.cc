// The call site compiled with FLB's flags, -mavx2 -mbmi2 (see BUILD).
#if !defined(__AVX2__) || defined(__AVX512F__)
#error "compile with -mavx2 and without AVX-512 (see BUILD): this measures the inlined AVX2 probe"
#endif

#define CALL_SITE(name) name##Avx2Site
#include "bench/call_site.inc"
