// Fuzz target: arbitrary bytes as a serialized Ribbon filter. Open must
// refuse or accept without reading out of bounds; an accepted filter answers
// single, batched and scalar reference probes alike. Builds nothing, so it
// runs fast; ribbon_builder_fuzzer.cc is the build half.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/ribbon.h"
#include "src/filter/ribbon_reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto reader = lsmbloom::RibbonReader::Open(bytes);
  if (!reader.ok()) return 0;
  uint64_t hashes[8];
  bool out[8];
  for (int i = 0; i < 8; ++i) hashes[i] = 0x9e3779b97f4a7c15ull * (i + 1);
  reader->MayMatchBatch(hashes, absl::MakeSpan(out));
  for (int i = 0; i < 8; ++i) {
    if (out[i] != reader->MayMatchHash(hashes[i])) __builtin_trap();
    if (out[i] != lsmbloom::internal::RibbonMayMatch(reader->view(), hashes[i])) {
      __builtin_trap();
    }
  }
  reader->MayMatch(bytes.substr(0, size / 2));
  return 0;
}
