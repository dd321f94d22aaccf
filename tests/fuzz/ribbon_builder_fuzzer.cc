// Fuzz target: the Ribbon builder on arbitrary hashes. The input is a
// bits/key taken from the first byte and up to 4096 hashes (8 bytes each):
// the built filter must open and find every hash (no false negative,
// whatever the hashes' pattern: repeats, zeros, runs), probed singly and in
// a batch, over the bytes as built, over a copy of them at another address,
// and through the Ribbon policy's reader. Every input builds a filter, so
// this runs far slower than ribbon_reader_fuzzer.cc, the read half.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "tests/fuzz/key_check.h"

namespace {

// The policy's reader finds every hash, singly and in a batch.
void CheckPolicyFindsHashes(std::string_view filter, const std::vector<uint64_t>& hashes) {
  static const auto policy = *lsmbloom::NewRibbonPolicy(lsmbloom::RibbonOptions());
  auto reader = policy->NewReader(filter);
  if (!reader.ok()) __builtin_trap();
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  (*reader)->HashesMayMatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (!out[i] || !(*reader)->HashMayMatch(hashes[i])) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  lsmbloom::RibbonOptions options;
  options.bits_per_key = 1.1 + (data[0] % 64) * 0.5;
  auto builder = lsmbloom::RibbonBuilder::Create(options);
  if (!builder.ok()) __builtin_trap();
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
  lsmbloom::fuzz::CheckFindsHashes(*built, added);
  std::string storage;
  const std::string_view copy = lsmbloom::fuzz::OddCopy(*filter, &storage);
  auto copied = lsmbloom::RibbonReader::Open(copy);
  if (!copied.ok()) __builtin_trap();
  lsmbloom::fuzz::CheckFindsHashes(*copied, added);
  CheckPolicyFindsHashes(copy, added);
  return 0;
}
