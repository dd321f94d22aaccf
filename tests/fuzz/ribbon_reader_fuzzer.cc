// Fuzz target: arbitrary bytes as a serialized Ribbon filter. Open must
// refuse or accept without reading out of bounds; an accepted filter answers
// single, batched and scalar reference probes alike. Builds nothing, so it
// runs fast; ribbon_builder_fuzzer.cc is the build half.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/ribbon.h"
#include "src/filter/ribbon/ribbon_reference.h"
#include "tests/fuzz/probe_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto reader = lsmbloom::RibbonReader::Open(bytes);
  if (!reader.ok()) return 0;
  lsmbloom::fuzz::CheckProbesAgree(*reader, bytes.substr(0, size / 2), [&](uint64_t hash) {
    return lsmbloom::internal::RibbonMayMatch(reader->view(), hash);
  });
  return 0;
}
