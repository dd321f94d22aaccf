// Fuzz target: builder and reader round trip of the blocked and classic
// Bloom filters, with arbitrary key sets and parameters. Property: every
// added key is found ("maybe"), single and batched, by a reader over the
// filter as built and over a copy of its bytes at another address, and
// through each kind's policy (what a table reads filters with).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "tests/fuzz/key_check.h"

namespace {

// A policy's filter of `keys`: it must build and open, and find them all.
void CheckPolicyRoundTrip(const lsmbloom::FilterPolicy& policy,
                          const std::vector<std::string>& keys) {
  std::unique_ptr<lsmbloom::FilterBuilder> builder = policy.NewBuilder();
  for (const std::string& k : keys) builder->AddKey(k);
  absl::StatusOr<std::string> filter = builder->Finish();
  if (!filter.ok()) __builtin_trap();
  std::string storage;
  for (std::string_view bytes : {std::string_view(*filter), lsmbloom::fuzz::OddCopy(*filter, &storage)}) {
    auto reader = policy.NewReader(bytes);
    if (!reader.ok()) __builtin_trap();
    lsmbloom::fuzz::CheckPolicyReaderFindsKeys(**reader, keys);
  }
}

}  // namespace

// The input: byte 0 the bits/key, byte 1 k, byte 2 the hash seed, byte 3 a
// separator; the rest are keys cut at every separator byte.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  lsmbloom::BlockedBloomOptions options;
  options.bits_per_key = 0.5 + data[0] / 8.0;  // 0.5 .. 32.4
  options.num_probes = data[1] % 17;           // 0 = automatic
  options.hash.seed = data[2];
  auto builder = lsmbloom::BlockedBloomBuilder::Create(options);
  if (!builder.ok()) __builtin_trap();
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
  lsmbloom::fuzz::CheckFindsKeys(*reader, keys);
  std::string storage;
  auto copied = lsmbloom::BlockedBloomReader::Open(lsmbloom::fuzz::OddCopy(*filter, &storage));
  if (!copied.ok() || copied->bits() != reader->bits()) __builtin_trap();
  lsmbloom::fuzz::CheckFindsKeys(*copied, keys);

  auto blocked_policy = lsmbloom::NewBlockedBloomPolicy(options);
  if (!blocked_policy.ok()) __builtin_trap();
  CheckPolicyRoundTrip(**blocked_policy, keys);
  auto classic_policy = lsmbloom::NewClassicBloomPolicy(options.bits_per_key);
  if (!classic_policy.ok()) __builtin_trap();
  CheckPolicyRoundTrip(**classic_policy, keys);
  return 0;
}
