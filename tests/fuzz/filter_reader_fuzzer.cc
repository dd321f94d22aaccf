// Fuzz target: the filter reader on arbitrary bytes. Open must refuse or
// accept without reading out of bounds; an accepted filter answers queries.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "tests/fuzz/probe_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto reader = lsmbloom::BlockedBloomReader::Open(bytes);
  if (reader.ok()) {
    lsmbloom::fuzz::CheckProbesAgree(*reader, bytes.substr(0, size / 2));
  }
  // The same bytes through the classic policy's reader.
  static const auto classic = *lsmbloom::NewClassicBloomPolicy(10);
  auto classic_reader = classic->NewReader(bytes);
  if (classic_reader.ok()) (*classic_reader)->KeyMayMatch("key");
  return 0;
}
