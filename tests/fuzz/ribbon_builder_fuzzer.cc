// Fuzz target: the Ribbon builder on arbitrary hashes. The input is a
// bits/key taken from the first byte and up to 4096 hashes (8 bytes each):
// the built filter must open and match every hash (no false negative,
// whatever the hashes' pattern: repeats, zeros, runs). Every input builds a
// filter, so this runs far slower than ribbon_reader_fuzzer.cc, the read
// half.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lsmbloom/filter/ribbon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
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
