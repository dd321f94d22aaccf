// Fuzz target: builder and reader round trip with arbitrary key sets and
// parameters. Property: every added key matches, single and batched.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  lsmbloom::BlockedBloomOptions options;
  options.bits_per_key = 0.5 + data[0] / 8.0;  // 0.5 .. 32.4
  options.num_probes = data[1] % 17;           // 0 = automatic
  options.hash.seed = data[2];
  auto builder = lsmbloom::BlockedBloomBuilder::Create(options);
  if (!builder.ok()) __builtin_trap();
  // Keys: the rest of the input cut at every byte equal to data[3].
  std::vector<std::string> keys;
  std::string key;
  for (size_t i = 4; i < size; ++i) {
    if (data[i] == data[3]) {
      keys.push_back(key);
      key.clear();
    } else {
      key.push_back(static_cast<char>(data[i]));
    }
  }
  keys.push_back(key);
  for (const std::string& k : keys) builder->AddKey(k);
  auto filter = builder->Finish();
  if (!filter.ok()) __builtin_trap();
  auto reader = lsmbloom::BlockedBloomReader::Open(*filter);
  if (!reader.ok()) __builtin_trap();
  std::vector<uint64_t> hashes;
  for (const std::string& k : keys) {
    if (!reader->MayMatch(k)) __builtin_trap();  // A false negative.
    hashes.push_back(lsmbloom::KeyHash(k, options.hash));
  }
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  reader->MayMatchBatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (!out[i]) __builtin_trap();
  }
  return 0;
}
