// FLB at its best: its AVX2 probe, compiled with -mavx2 -mbmi2 (see BUILD).
#define FLB_VARIANT avx2
#include "bench/flb/flb_variant.inc"
