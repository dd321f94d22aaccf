#include "tests/golden_files.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/table/table_builder.h"
#include "src/util/random.h"

namespace lsmbloom {
namespace golden {
namespace {

// Fixed so that a table's bytes do not depend on when or where it is written.
constexpr uint64_t kGoldenUniqueId = 0x5eed60d1f11e5ull;
constexpr int64_t kGoldenCreationTime = 1796321039;

std::shared_ptr<const FilterPolicy> Blocked(double bits_per_key, int num_probes) {
  BlockedBloomOptions options;
  options.bits_per_key = bits_per_key;
  options.num_probes = num_probes;
  return *NewBlockedBloomPolicy(options);
}

std::shared_ptr<const FilterPolicy> Ribbon(double bits_per_key) {
  RibbonOptions options;
  options.bits_per_key = bits_per_key;
  return *NewRibbonPolicy(options);
}

std::shared_ptr<const FilterPolicy> Modular(std::vector<double> module_bits_per_key) {
  ModularBloomOptions options;
  options.module_bits_per_key = std::move(module_bits_per_key);
  return *NewModularBloomPolicy(options);
}

TableOptions Table(std::shared_ptr<const FilterPolicy> policy, bool hash_index) {
  TableOptions options;
  options.filter_policy = std::move(policy);
  options.data_block_hash_index = hash_index;
  options.block_size = 512;  // Many blocks from a few hundred keys.
  options.restart_interval = 4;
  options.unique_id = kGoldenUniqueId;
  options.creation_time = kGoldenCreationTime;
  return options;
}

}  // namespace

std::vector<GoldenFilter> GoldenFilters() {
  return {
      {"blocked_bloom_10_bits", Blocked(10, 0)},
      {"blocked_bloom_7.5_bits_k3", Blocked(7.5, 3)},
      {"classic_bloom_10_bits", *NewClassicBloomPolicy(10)},
      {"ribbon_7_bits", Ribbon(7)},
      {"ribbon_13.5_bits", Ribbon(13.5)},
      // Uneven modules: each module's hash (ModuleHash) and geometry.
      {"modular_bloom_6_3_1.5_0.5_bits", Modular({6, 3, 1.5, 0.5})},
  };
}

std::vector<GoldenTable> GoldenTables() {
  return {
      {"table_blocked_bloom", Table(Blocked(10, 0), false)},
      {"table_hash_index_modular_bloom", Table(Modular({4, 2, 2}), true)},
      {"table_hash_index_ribbon", Table(Ribbon(9), true)},
  };
}

std::vector<std::string> MakeGoldenKeys() {
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 400; ++i) {
    // A zero-padded counter keeps them ascending; a hex tail of 0 to 16
    // digits varies their lengths.
    char counter[16];
    std::snprintf(counter, sizeof(counter), "%04u", static_cast<unsigned>(i));
    std::string tail = absl::StrCat(absl::Hex(internal::SplitMix64(i), absl::kZeroPad16));
    keys.push_back(absl::StrCat("golden-", counter, "-", tail.substr(0, i % 17)));
  }
  return keys;
}

GoldenEntry GoldenEntryFor(const std::vector<std::string>& keys, size_t i) {
  if (i % 9 == 4) return {keys[i], 1000 + i, EntryType::kDeletion, ""};
  return {keys[i], 1000 + i, EntryType::kValue,
          absl::StrCat(std::string(i % 13, static_cast<char>('a' + i % 26)), i)};
}

absl::StatusOr<std::string> WriteGoldenFilter(const GoldenFilter& format,
                                              const std::vector<std::string>& keys) {
  std::unique_ptr<FilterBuilder> builder = format.policy->NewBuilder();
  for (const std::string& key : keys) builder->AddKey(key);
  return builder->Finish();
}

absl::StatusOr<std::string> WriteGoldenTable(const GoldenTable& format,
                                             const std::vector<std::string>& keys) {
  std::string bytes;
  TableBuilder builder(format.options, NewMemWritableFile(&bytes));
  for (size_t i = 0; i < keys.size(); ++i) {
    const GoldenEntry e = GoldenEntryFor(keys, i);
    absl::Status added = builder.Add(e.key, e.seq, e.type, e.value);
    if (!added.ok()) return added;
  }
  absl::Status finished = builder.Finish();
  if (!finished.ok()) return finished;
  return bytes;
}

uint32_t FilterFormatVersion(const std::string& filter) {
  return filter.size() > 4 ? static_cast<uint8_t>(filter[4]) : 0;
}

uint32_t TableFormatVersion(const std::string& table) {
  if (table.size() < 64) return 0;
  const size_t at = table.size() - 64 + 40;  // The footer's version field.
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<uint8_t>(table[at + i])} << (8 * i);
  return v;
}

std::string GoldenFileName(const std::string& name, uint32_t version) {
  return absl::StrCat(name, ".v", version);
}

}  // namespace golden
}  // namespace lsmbloom
