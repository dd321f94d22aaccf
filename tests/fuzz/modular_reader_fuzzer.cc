// Fuzz target: the modular blocked Bloom filter (modular_bloom.h), in two
// halves: every input is read, and one whose first byte has its top bit set
// (a filter's, "LSMM", has not) also drives a round trip.
//
// Reading: the input as a serialized modular filter, as it is and with its
// checksums recomputed (fix_checksums.h: each module's own, its entry's,
// the header's), so that mutations of the header, the entries and the
// modules' geometry reach the checks behind the checksums.
// ParseModularBloomHeader, the policy's reader and FilterModule::Open (a
// table's path to modules 1..n-1) must refuse or accept without reading out
// of bounds; an accepted reader answers single and batched probes alike.
//
// Round trip: a filter built from keys and module sizes taken from the
// input. Every added key must match (by key, by hash and in a batch) in a
// reader over each prefix a table
// may hold (header and modules 0..m; and for one m the input picks, with
// module m+1 cut short), over the whole filter with one byte of a later
// module flipped (that module is then left out), and in each module opened
// on its own. A filter with module 0 cut short must be refused.
//
// Opening a reader parses the header, which computes each module's model
// FPR: the round trip's cost grows with the square of the module count, so
// it opens n + 3 readers for n modules, not one for every cut.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "tests/fuzz/fix_checksums.h"
#include "tests/fuzz/key_check.h"
#include "tests/fuzz/probe_check.h"

namespace {

using lsmbloom::FilterPolicy;
using lsmbloom::FilterReader;
using lsmbloom::ModularBloomHeader;

// The policy's reader needs no options: every filter describes itself.
const FilterPolicy& Policy() {
  static const auto policy = *lsmbloom::NewModularBloomPolicy(lsmbloom::ModularBloomOptions());
  return *policy;
}

void ReadHalf(std::string_view bytes) {
  absl::StatusOr<ModularBloomHeader> header = lsmbloom::ParseModularBloomHeader(bytes);
  absl::StatusOr<std::unique_ptr<FilterReader>> reader = Policy().NewReader(bytes);
  // The reader parses the same header: it cannot accept what the parser
  // refuses.
  if (reader.ok() && !header.ok()) __builtin_trap();
  if (reader.ok()) {
    lsmbloom::fuzz::CheckPolicyReaderProbes(**reader, bytes.substr(0, bytes.size() / 2));
  }
  if (!header.ok()) return;
  if (header->modules.empty() || header->header_size > bytes.size()) __builtin_trap();
  for (size_t m = 0; m < header->modules.size(); ++m) {
    const lsmbloom::FilterModuleInfo& info = header->modules[m];
    if (info.offset % 64 != 0 || info.size == 0) __builtin_trap();
    if (info.offset >= bytes.size() || info.size > bytes.size() - info.offset) break;
    auto module =
        lsmbloom::FilterModule::Open(bytes.substr(info.offset, info.size), info, header->num_keys);
    if (module.ok()) {
      lsmbloom::fuzz::CheckProbesAgree((*module)->reader(), bytes.substr(0, bytes.size() / 2));
    }
  }
}

// A reader over `filter` must open; then every key matches.
void CheckOpensWithKeys(std::string_view filter, const std::vector<std::string>& keys) {
  absl::StatusOr<std::unique_ptr<FilterReader>> reader = Policy().NewReader(filter);
  if (!reader.ok()) __builtin_trap();
  lsmbloom::fuzz::CheckPolicyReaderFindsKeys(**reader, keys);
}

// The input: byte 0 picks the module count (1 to 16; its top bit is the
// round trip's switch), the next that many
// bytes each module's bits/key (0.5 to 30 in steps of 0.5), the next a
// separator, and the rest are keys cut at every separator byte.
void RoundTripHalf(const uint8_t* data, size_t size) {
  if (size < 2) return;
  const int num_modules = 1 + data[0] % lsmbloom::kMaxFilterModules;
  if (size < static_cast<size_t>(num_modules) + 2) return;
  lsmbloom::ModularBloomOptions options;
  options.module_bits_per_key.clear();
  for (int m = 0; m < num_modules; ++m) {
    options.module_bits_per_key.push_back(0.5 + (data[1 + m] % 60) * 0.5);
  }
  const uint8_t separator = data[1 + num_modules];
  std::vector<std::string> keys;
  std::string key;
  for (size_t i = num_modules + 2; i < size; ++i) {
    if (data[i] == separator) {
      keys.push_back(key);
      key.clear();
    } else {
      key.push_back(static_cast<char>(data[i]));
    }
  }
  keys.push_back(key);

  auto policy = lsmbloom::NewModularBloomPolicy(options);
  if (!policy.ok()) __builtin_trap();
  std::unique_ptr<lsmbloom::FilterBuilder> builder = (*policy)->NewBuilder();
  for (const std::string& k : keys) builder->AddKey(k);
  absl::StatusOr<std::string> built = builder->Finish();
  if (!built.ok()) __builtin_trap();
  const std::string& filter = *built;
  absl::StatusOr<ModularBloomHeader> header = lsmbloom::ParseModularBloomHeader(filter);
  if (!header.ok() || static_cast<int>(header->modules.size()) != num_modules) __builtin_trap();
  if (header->num_keys > keys.size() || filter.size() % 64 != 0) __builtin_trap();
  if (header->PrefixSize(num_modules - 1) > filter.size()) __builtin_trap();

  // What the input picks: a module, a byte of it, a bit pattern.
  const uint64_t pick =
      lsmbloom::KeyHash(std::string_view(reinterpret_cast<const char*>(data), size));
  const int picked = static_cast<int>(pick % num_modules);

  // Module 0 cut short: refused, never a reader that rules keys out.
  if (Policy().NewReader(std::string_view(filter).substr(0, header->PrefixSize(0) - 1)).ok()) {
    __builtin_trap();
  }
  for (int m = 0; m < num_modules; ++m) {
    // Header and modules 0..m, as a table holding them reads them.
    CheckOpensWithKeys(std::string_view(filter).substr(0, header->PrefixSize(m)), keys);
    // And with module m + 1 cut one byte short, when there is one.
    if (m == picked && m + 1 < num_modules) {
      CheckOpensWithKeys(std::string_view(filter).substr(0, header->PrefixSize(m + 1) - 1), keys);
    }
    // Each module on its own, probed with its module hash.
    const lsmbloom::FilterModuleInfo& info = header->modules[m];
    auto module = lsmbloom::FilterModule::Open(
        std::string_view(filter).substr(info.offset, info.size), info, header->num_keys);
    if (!module.ok()) __builtin_trap();
    std::vector<uint64_t> module_hashes;
    for (const std::string& k : keys) {
      module_hashes.push_back(lsmbloom::ModuleHash(lsmbloom::KeyHash(k), m));
    }
    lsmbloom::fuzz::CheckFindsHashes((*module)->reader(), module_hashes);
  }

  // One byte of a later module flipped, at a place the input picks: the
  // reader leaves that module out and still matches every key.
  if (num_modules > 1) {
    const int m = 1 + static_cast<int>((pick >> 16) % (num_modules - 1));
    const lsmbloom::FilterModuleInfo& info = header->modules[m];
    std::string damaged = filter;
    damaged[info.offset + (pick >> 32) % info.size] ^= static_cast<char>(1 + (pick >> 8) % 255);
    CheckOpensWithKeys(damaged, keys);
    CheckOpensWithKeys(std::string_view(damaged).substr(0, header->PrefixSize(m)), keys);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ReadHalf(bytes);
  std::string fixed(bytes);
  lsmbloom::fuzz::FixFilterChecksums(&fixed);
  if (fixed != bytes) ReadHalf(fixed);
  // Building costs time in the number of keys: inputs past 64 KiB read only.
  if (size > 0 && (data[0] & 0x80) != 0 && size <= 65536) RoundTripHalf(data, size);
  return 0;
}
