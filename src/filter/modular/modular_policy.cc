// The modular blocked Bloom filter's builder, reader and policy
// (modular_bloom.h).

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "src/filter/filter_probe.h"
#include "src/filter/modular/modular_format.h"
#include "src/util/checksum.h"

namespace lsmbloom {

ModularBloomOptions::ModularBloomOptions() : module_bits_per_key(8, 2.0) {}
ModularBloomOptions::ModularBloomOptions(const ModularBloomOptions&) = default;
ModularBloomOptions& ModularBloomOptions::operator=(const ModularBloomOptions&) = default;
ModularBloomOptions::~ModularBloomOptions() = default;

absl::Status ValidateModularBloomOptions(const ModularBloomOptions& options) {
  const size_t n = options.module_bits_per_key.size();
  if (n < 1 || n > static_cast<size_t>(kMaxFilterModules)) {
    return absl::InvalidArgumentError(absl::StrCat("module_bits_per_key: ", n,
                                                   " modules; 1 to ", kMaxFilterModules));
  }
  for (size_t m = 0; m < n; ++m) {
    const double b = options.module_bits_per_key[m];
    if (!(b >= 0.5 && b <= 30)) {
      return absl::InvalidArgumentError(
          absl::StrCat("module_bits_per_key[", m, "] = ", b, "; must be in [0.5, 30]"));
    }
  }
  return absl::OkStatus();
}

namespace {

const HashSpec kDefaultHash;

class ModularBloomBuilder final : public FilterBuilder {
 public:
  explicit ModularBloomBuilder(const ModularBloomOptions& options) : options_(options) {}

  void AddKey(std::string_view key) override { Add(KeyHash(key)); }
  const HashSpec* hash_spec() const override { return &kDefaultHash; }
  absl::Status AddHash(uint64_t hash) override {
    Add(hash);
    return absl::OkStatus();
  }

  // Builds one module at a time from the buffered hashes: the scratch is
  // the hashes (8 bytes a key) and one module builder's copy of them.
  absl::StatusOr<std::string> Finish() override {
    std::vector<std::string> modules;
    std::vector<FilterModuleInfo> infos;
    const int num_modules = static_cast<int>(options_.module_bits_per_key.size());
    uint64_t offset = internal::ModularHeaderSize(num_modules);
    for (int m = 0; m < num_modules; ++m) {
      BlockedBloomOptions o;
      o.bits_per_key = options_.module_bits_per_key[m];
      absl::StatusOr<BlockedBloomBuilder> builder = BlockedBloomBuilder::Create(o);
      if (!builder.ok()) return builder.status();
      constexpr size_t kChunk = 256;
      uint64_t chunk[kChunk];
      for (size_t i = 0; i < hashes_.size(); i += kChunk) {
        const size_t n = std::min(kChunk, hashes_.size() - i);
        for (size_t j = 0; j < n; ++j) chunk[j] = ModuleHash(hashes_[i + j], m);
        builder->AddHashes({chunk, n});
      }
      absl::StatusOr<BlockedBloomGeometry> g =
          PlanBlockedBloom(builder->num_buffered(), builder->options());
      if (!g.ok()) return g.status();
      absl::StatusOr<std::string> bytes = builder->Finish();
      if (!bytes.ok()) return bytes.status();
      FilterModuleInfo info;
      info.offset = offset;
      info.size = bytes->size();
      info.checksum = internal::Checksum64(bytes->data(), bytes->size());
      info.num_blocks = g->num_blocks;
      info.num_probes = g->num_probes;
      offset = (offset + info.size + 63) / 64 * 64;
      infos.push_back(info);
      modules.push_back(*std::move(bytes));
    }
    std::string out = internal::EncodeModularHeader(hashes_.size(), infos);
    out.reserve(offset);
    for (int m = 0; m < num_modules; ++m) {
      out.resize(infos[m].offset, '\0');
      out.append(modules[m]);
    }
    out.resize(offset, '\0');
    hashes_.clear();
    has_last_ = false;
    return out;
  }

 private:
  void Add(uint64_t hash) {
    // An adjacent repeat (a key at several sequence numbers) adds nothing.
    if (has_last_ && hash == last_) return;
    last_ = hash;
    has_last_ = true;
    hashes_.push_back(hash);
  }

  ModularBloomOptions options_;
  std::vector<uint64_t> hashes_;
  uint64_t last_ = 0;
  bool has_last_ = false;
};

// Over the header and the modules `filter` holds whole: module 0 must be
// there and verify; a later module that is cut short ends the modules used
// there, one whose checksum fails is left out (its keys then only "maybe").
class ModularBloomReader final : public FilterReader {
 public:
  static absl::StatusOr<std::unique_ptr<FilterReader>> Open(std::string_view filter) {
    absl::StatusOr<ModularBloomHeader> header = ParseModularBloomHeader(filter);
    if (!header.ok()) return header.status();
    auto reader = std::unique_ptr<ModularBloomReader>(new ModularBloomReader);
    reader->header_ = *std::move(header);
    const ModularBloomHeader& h = reader->header_;
    for (size_t m = 0; m < h.modules.size(); ++m) {
      const FilterModuleInfo& info = h.modules[m];
      if (h.PrefixSize(static_cast<int>(m)) > filter.size()) break;
      absl::StatusOr<BlockedBloomReader> module =
          internal::OpenModule(filter.substr(info.offset, info.size), info, h.num_keys);
      if (!module.ok()) {
        if (m == 0) {
          return absl::DataLossError(
              absl::StrCat("modular filter: module 0: ", module.status().message()));
        }
        ++reader->damaged_;
        continue;
      }
      reader->modules_.push_back({*module, static_cast<int>(m)});
    }
    if (reader->modules_.empty()) {
      return absl::DataLossError("modular filter: module 0 is cut short");
    }
    return std::unique_ptr<FilterReader>(std::move(reader));
  }

  bool KeyMayMatch(std::string_view key) const override { return HashMayMatch(KeyHash(key)); }
  const HashSpec* hash_spec() const override { return &kDefaultHash; }
  bool HashMayMatch(uint64_t hash) const override {
    for (const Held& held : modules_) {
      if (!held.reader.MayMatchHash(ModuleHash(hash, held.module))) return false;
    }
    return true;
  }
  std::string Describe() const override {
    return absl::StrFormat(
        "modular blocked bloom, %d modules (%.2f bits/key stored), %d held (%.2f bits/key, "
        "FPR %.4g)%s",
        header_.modules.size(), StoredBitsPerKey(), modules_.size(), bits_per_key(),
        predicted_fpr(), damaged_ == 0 ? "" : absl::StrCat(", ", damaged_, " damaged: not used"));
  }
  double bits_per_key() const override {
    double bits = 0;
    for (const Held& held : modules_) bits += held.reader.geometry().bits_per_key();
    return bits;
  }
  double predicted_fpr() const override {
    double fpr = 1;
    for (const Held& held : modules_) fpr *= held.reader.geometry().predicted_fpr();
    return fpr;
  }

 private:
  struct Held {
    BlockedBloomReader reader;
    int module;
  };
  ModularBloomReader() = default;

  double StoredBitsPerKey() const {
    if (header_.num_keys == 0) return 0;
    double bits = 0;
    for (const FilterModuleInfo& m : header_.modules) bits += m.num_blocks * 512.0;
    return bits / static_cast<double>(header_.num_keys);
  }

  // Lookups across many files probe module 0 with the other blocked
  // filters; they hold any further modules of the file themselves
  // (TableSet, under LookupOptions::filter_memory_cap_bytes).
  void DescribeProbe(internal::FilterProbe* probe) const override {
    probe->kind = FilterKind::kBlockedBloom;
    probe->hash = HashSpec();
    probe->blocked = modules_[0].reader.view();
    probe->modular = true;
  }

  ModularBloomHeader header_;
  std::vector<Held> modules_;
  int damaged_ = 0;
};

class ModularBloomPolicy final : public FilterPolicy {
 public:
  explicit ModularBloomPolicy(const ModularBloomOptions& options) : options_(options) {}
  std::string Name() const override { return kModularBloomPolicyName; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    return std::make_unique<ModularBloomBuilder>(options_);
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    return ModularBloomReader::Open(filter);
  }

 private:
  ModularBloomOptions options_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewModularBloomPolicy(
    const ModularBloomOptions& options) {
  absl::Status valid = ValidateModularBloomOptions(options);
  if (!valid.ok()) return valid;
  return std::shared_ptr<const FilterPolicy>(std::make_shared<ModularBloomPolicy>(options));
}

}  // namespace lsmbloom
