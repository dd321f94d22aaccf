// The no-false-negative oracle of the round-trip targets: every key (or
// hash) a filter was built from is found ("maybe") by its reader, probed
// one at a time and as one batch. Traps otherwise. Readers of a kind
// (BlockedBloomReader, RibbonReader) and a policy's FilterReader alike.

#ifndef LSMBLOOM_TESTS_FUZZ_KEY_CHECK_H_
#define LSMBLOOM_TESTS_FUZZ_KEY_CHECK_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace fuzz {

// A kind's reader: MayMatchHash and MayMatchBatch find every hash.
template <typename Reader>
void CheckFindsHashes(const Reader& reader, const std::vector<uint64_t>& hashes) {
  for (uint64_t h : hashes) {
    if (!reader.MayMatchHash(h)) __builtin_trap();  // A false negative.
  }
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  reader.MayMatchBatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (!out[i]) __builtin_trap();  // A false negative in a batch.
  }
}

// A kind's reader: MayMatch finds every key, and the hash probes find their
// KeyHash under the filter's HashSpec.
template <typename Reader>
void CheckFindsKeys(const Reader& reader, const std::vector<std::string>& keys) {
  std::vector<uint64_t> hashes;
  for (const std::string& k : keys) {
    if (!reader.MayMatch(k)) __builtin_trap();  // A false negative.
    hashes.push_back(KeyHash(k, reader.geometry().hash));
  }
  CheckFindsHashes(reader, hashes);
}

// A policy's reader: KeyMayMatch finds every key; one that takes hashes
// finds their KeyHash through HashMayMatch and HashesMayMatch.
inline void CheckPolicyReaderFindsKeys(const FilterReader& reader,
                                       const std::vector<std::string>& keys) {
  for (const std::string& k : keys) {
    if (!reader.KeyMayMatch(k)) __builtin_trap();  // A false negative.
  }
  const HashSpec* spec = reader.hash_spec();
  if (spec == nullptr) return;
  std::vector<uint64_t> hashes;
  for (const std::string& k : keys) {
    hashes.push_back(KeyHash(k, *spec));
    if (!reader.HashMayMatch(hashes.back())) __builtin_trap();
  }
  std::unique_ptr<bool[]> out(new bool[hashes.size()]);
  reader.HashesMayMatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (!out[i]) __builtin_trap();  // A false negative in a batch.
  }
}

// `bytes` copied to an odd address in `storage` (as a table's buffer may
// hold a filter block): what a reader over a parsed copy is opened on.
inline std::string_view OddCopy(std::string_view bytes, std::string* storage) {
  storage->assign(bytes.size() + 1, '\0');
  if (!bytes.empty()) std::memcpy(storage->data() + 1, bytes.data(), bytes.size());
  return std::string_view(*storage).substr(1);
}

}  // namespace fuzz
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_FUZZ_KEY_CHECK_H_
