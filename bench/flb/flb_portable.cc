// FLB without AVX2: the scalar probe with an early exit.
#define FLB_VARIANT portable
#include "bench/flb/flb_variant.inc"
