// The modular blocked Bloom filter: one file's filter cut into modules that
// can be held in memory separately.
//
// Each module is a complete blocked Bloom filter (blocked_bloom.h) of every
// key of the file, placed by its own hash: module 0 by the key's KeyHash,
// module m by ModuleHash(KeyHash, m), whose bits within a block are a remix,
// so the modules' false positives are nearly independent. A key is rejected when any module it is
// probed in rejects it; a reader holding only modules 0..j-1 answers with
// the FPR product of those modules, and each further module multiplies it
// by its own FPR (about 0.4 for 2 bits/key, 0.15 for 4). Splitting costs
// almost nothing: Bloom FPR falls exponentially with bits/key, so modules
// of b_1 + b_2 bits/key together match one filter of that many bits (the
// blocked penalty is lower at few bits/key; docs/PERFORMANCE.md measures
// it). What it buys is that a TableSet under a filter memory cap
// (LookupOptions::filter_memory_cap_bytes) keeps module 0 of every file and
// only as many further modules of each file as its lookups repay.
//
// The bytes (docs/FORMAT.md, "Modular blocked Bloom filter"): a header
// naming each module's offset, size, XXH3 checksum and geometry, itself
// checksummed, then the modules at 64-byte boundaries, module 0 first. A
// table reads the header (checked against a checksum in its properties,
// which binds it to the table) and module 0 when it opens, and any other
// module when asked (Table::ReadFilterModule); a module whose checksum
// fails is not used, and the filter answers "maybe" for what it would have
// ruled out. Never a false negative with any set of modules held.
//
// Example:
//   ModularBloomOptions options;
//   options.module_bits_per_key = {2, 2, 2, 2};
//   absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy =
//       NewModularBloomPolicy(options);
//   TableOptions table_options;
//   table_options.filter_policy = *policy;

#ifndef LSMBLOOM_FILTER_MODULAR_BLOOM_H_
#define LSMBLOOM_FILTER_MODULAR_BLOOM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"

namespace lsmbloom {
namespace internal {
class AlignedBuffer;  // src/util/aligned_buffer.h
}  // namespace internal

inline constexpr char kModularBloomPolicyName[] = "lsmbloom.ModularBloom.v1";
inline constexpr int kMaxFilterModules = 16;

struct ModularBloomOptions {
  // Bits per key of each module, module 0 first: 1 to kMaxFilterModules
  // modules, each in [0.5, 30]. The sum is what the file stores; module 0
  // is what a TableSet always holds of it.
  std::vector<double> module_bits_per_key;

  // Out of line, as every constructor of a public type holding floating
  // point is (tests/public_headers_odr_test.sh). Default: 8 modules of 2.
  ModularBloomOptions();
  ModularBloomOptions(const ModularBloomOptions&);
  ModularBloomOptions& operator=(const ModularBloomOptions&);
  ~ModularBloomOptions();
};

// InvalidArgument naming the bad field, or OK.
absl::Status ValidateModularBloomOptions(const ModularBloomOptions& options);

// The policy (kModularBloomPolicyName). InvalidArgument as
// ValidateModularBloomOptions. Its reader over a whole filter uses every
// module; over a prefix of one (header and the first modules, as a table
// reads it), the modules it has.
absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewModularBloomPolicy(
    const ModularBloomOptions& options);

// Module m's hash of a key whose KeyHash (default HashSpec) is key_hash:
// key_hash itself for module 0; for the others, key_hash's high half (which
// picks the block) and a remix of all of key_hash as the low half (which
// picks the bits in it). So a key's bits in a module are independent of
// those in the others, while its block is the same in every module of one
// size: a reader may hold such modules interleaved, a key's blocks side by
// side (src/lookup/held_modules.h).
inline uint64_t ModuleHash(uint64_t key_hash, int module) {
  if (module == 0) return key_hash;
  uint64_t h = key_hash ^ (static_cast<uint64_t>(module) * 0x9E3779B97F4A7C15ull);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return (key_hash & 0xFFFFFFFF00000000ull) | (h & 0xFFFFFFFFull);
}

// One module as the header describes it.
struct FilterModuleInfo {
  uint64_t offset = 0;  // From the start of the filter; a multiple of 64.
  uint64_t size = 0;    // Bytes: a serialized blocked Bloom filter.
  uint64_t checksum = 0;
  uint64_t num_blocks = 0;
  int num_probes = 0;
  // The blocked model's FPR for this module's geometry and the filter's
  // key count.
  double predicted_fpr = 1;

  // Out of line, as every constructor of a public type holding floating
  // point is (tests/public_headers_odr_test.sh).
  FilterModuleInfo();
};

// The header of a modular filter.
struct ModularBloomHeader {
  int format_version = 0;
  uint64_t num_keys = 0;
  uint64_t header_size = 0;  // Where module 0 starts.
  std::vector<FilterModuleInfo> modules;

  ModularBloomHeader();
  ModularBloomHeader(const ModularBloomHeader&);
  ModularBloomHeader(ModularBloomHeader&&) noexcept;
  ModularBloomHeader& operator=(const ModularBloomHeader&);
  ModularBloomHeader& operator=(ModularBloomHeader&&) noexcept;
  ~ModularBloomHeader();

  // Bytes from the start of the filter to the end of module m: what a
  // reader needs to hold modules 0..m.
  uint64_t PrefixSize(int m) const { return modules[m].offset + modules[m].size; }
};

// The most bytes a header takes: a reader that reads this many (or the
// whole filter, if shorter) has all of it.
inline constexpr uint64_t kMaxModularHeaderSize = 576;

// Parses and verifies the header at the start of `filter` (which may be
// cut anywhere after the header). DataLoss (bad magic, checksum, sizes or
// offsets) or InvalidArgument (a version this build does not know).
absl::StatusOr<ModularBloomHeader> ParseModularBloomHeader(std::string_view filter);

// One module held in memory on its own: its bytes, verified, and a reader.
class FilterModule {
 public:
  // Copies `bytes` (module `info`'s, as read from the filter) to an aligned
  // buffer and opens it: DataLoss when the checksum or the module's own
  // header does not verify, or its geometry is not the header's.
  static absl::StatusOr<std::shared_ptr<const FilterModule>> Open(std::string_view bytes,
                                                                  const FilterModuleInfo& info,
                                                                  uint64_t num_keys);
  ~FilterModule();

  const BlockedBloomReader& reader() const { return reader_; }
  BlockedBloomView view() const { return reader_.view(); }
  // Bytes held: the module's serialized size.
  uint64_t memory() const { return info_.size; }
  const FilterModuleInfo& info() const { return info_; }

 private:
  FilterModule(std::unique_ptr<internal::AlignedBuffer> bytes, const BlockedBloomReader& reader,
               const FilterModuleInfo& info);
  std::unique_ptr<internal::AlignedBuffer> bytes_;
  BlockedBloomReader reader_;
  FilterModuleInfo info_;
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_MODULAR_BLOOM_H_
