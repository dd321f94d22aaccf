// Fuzz target: the Ribbon filter on arbitrary bytes, two ways.
//   - As a serialized filter: Open must refuse or accept without reading out
//     of bounds; an accepted filter answers single, batched and scalar
//     reference probes alike.
//   - As up to 4096 hashes (8 bytes each) at a bits/key taken from the first
//     byte: the built filter must open and match every hash (no false
//     negative, whatever the hashes' pattern: repeats, zeros, runs).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "lsmbloom/filter/ribbon.h"
#include "src/filter/ribbon_reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto reader = lsmbloom::RibbonReader::Open(bytes);
  if (reader.ok()) {
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
  }

  if (size < 1) return 0;
  lsmbloom::RibbonOptions options;
  options.bits_per_key = 1.1 + (data[0] % 64) * 0.5;
  auto builder = lsmbloom::RibbonBuilder::Create(options);
  std::vector<uint64_t> added;
  for (size_t at = 1; at + 8 <= size && added.size() < 4096; at += 8) {
    uint64_t h;
    std::memcpy(&h, data + at, 8);
    builder->AddHash(h);
    added.push_back(h);
  }
  const auto filter = builder->Finish();
  if (!filter.ok()) __builtin_trap();
  auto built = lsmbloom::RibbonReader::Open(*filter);
  if (!built.ok()) __builtin_trap();
  for (uint64_t h : added) {
    if (!built->MayMatchHash(h)) __builtin_trap();
  }
  return 0;
}
