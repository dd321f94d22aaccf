// Fuzz target: the filter reader on arbitrary bytes. Open must refuse or
// accept without reading out of bounds; an accepted filter answers queries.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto reader = lsmbloom::BlockedBloomReader::Open(bytes);
  if (reader.ok()) {
    uint64_t hashes[8];
    bool out[8];
    for (int i = 0; i < 8; ++i) hashes[i] = 0x9e3779b97f4a7c15ull * (i + 1);
    reader->MayMatchBatch(hashes, absl::MakeSpan(out));
    for (int i = 0; i < 8; ++i) {
      if (out[i] != reader->MayMatchHash(hashes[i])) __builtin_trap();
    }
    reader->MayMatch(bytes.substr(0, size / 2));
  }
  // The same bytes through the classic policy's reader.
  static const auto classic = *lsmbloom::NewClassicBloomPolicy(10);
  auto classic_reader = classic->NewReader(bytes);
  if (classic_reader.ok()) (*classic_reader)->KeyMayMatch("key");
  return 0;
}
