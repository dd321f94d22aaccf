// Moved to src/filter/ribbon/ribbon_reference.h. Kept for
// tests/fuzz/ribbon_fuzzer.cc, whose owner points it there; then delete.

#ifndef LSMBLOOM_SRC_FILTER_RIBBON_REFERENCE_H_
#define LSMBLOOM_SRC_FILTER_RIBBON_REFERENCE_H_

#include "src/filter/ribbon/ribbon_reference.h"  // IWYU pragma: export

#endif  // LSMBLOOM_SRC_FILTER_RIBBON_REFERENCE_H_
