// The call site compiled for AVX-512, -march=x86-64-v4 (see BUILD).
#if !defined(__AVX512F__)
#error "compile with -march=x86-64-v4 (see BUILD): this measures the inlined AVX-512 probe"
#endif

#define CALL_SITE(name) name##Avx512Site
#include "bench/call_site.inc"
