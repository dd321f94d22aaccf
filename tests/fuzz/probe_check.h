// What the filter fuzz targets ask of a reader that accepted arbitrary bytes
// (or bytes whose checksums fix_checksums.h recomputed): eight fixed hashes
// probed as a batch and one at a time answer alike, and as `reference`
// answers them (the scalar reference, where the filter kind has one); then
// a key probe of `key` reads in bounds. Traps otherwise.

#ifndef LSMBLOOM_TESTS_FUZZ_PROBE_CHECK_H_
#define LSMBLOOM_TESTS_FUZZ_PROBE_CHECK_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"
#include "lsmbloom/filter/filter_policy.h"

namespace lsmbloom {
namespace fuzz {

// Reference: bool(uint64_t hash).
template <typename Reader, typename Reference>
void CheckProbesAgree(const Reader& reader, std::string_view key, Reference reference) {
  uint64_t hashes[8];
  bool out[8];
  for (int i = 0; i < 8; ++i) hashes[i] = 0x9e3779b97f4a7c15ull * (i + 1);
  reader.MayMatchBatch(hashes, absl::MakeSpan(out));
  for (int i = 0; i < 8; ++i) {
    if (out[i] != reader.MayMatchHash(hashes[i])) __builtin_trap();
    if (out[i] != reference(hashes[i])) __builtin_trap();
  }
  reader.MayMatch(key);
}

// For a filter kind without a scalar reference.
template <typename Reader>
void CheckProbesAgree(const Reader& reader, std::string_view key) {
  CheckProbesAgree(reader, key, [&reader](uint64_t hash) { return reader.MayMatchHash(hash); });
}

// A policy's reader: the same through FilterReader's HashesMayMatch and
// HashMayMatch (when it takes hashes), then KeyMayMatch and Describe.
inline void CheckPolicyReaderProbes(const FilterReader& reader, std::string_view key) {
  if (reader.hash_spec() != nullptr) {
    uint64_t hashes[8];
    bool out[8];
    for (int i = 0; i < 8; ++i) hashes[i] = 0x9e3779b97f4a7c15ull * (i + 1);
    reader.HashesMayMatch(hashes, absl::MakeSpan(out));
    for (int i = 0; i < 8; ++i) {
      if (out[i] != reader.HashMayMatch(hashes[i])) __builtin_trap();
    }
  }
  reader.KeyMayMatch(key);
  reader.Describe();
}

}  // namespace fuzz
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_FUZZ_PROBE_CHECK_H_
