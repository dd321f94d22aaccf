// The modular filter's header (docs/FORMAT.md, "Modular blocked Bloom
// filter"), written by the builder and parsed by every reader, and the
// modules held on their own.

#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "src/filter/modular/modular_format.h"
#include "src/util/aligned_buffer.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

uint64_t ModularHeaderSize(int num_modules) {
  const uint64_t bytes = kModularFixedBytes + kModularEntryBytes * num_modules + 8;
  return (bytes + 63) / 64 * 64;
}

std::string EncodeModularHeader(uint64_t num_keys, const std::vector<FilterModuleInfo>& modules) {
  const uint64_t size = ModularHeaderSize(static_cast<int>(modules.size()));
  std::string out(size, '\0');
  char* p = out.data();
  EncodeFixed32(p, kModularMagic);
  p[4] = static_cast<char>(kModularFormatVersion);
  p[5] = static_cast<char>(modules.size());
  EncodeFixed64(p + 8, num_keys);
  char* e = p + kModularFixedBytes;
  for (const FilterModuleInfo& m : modules) {
    EncodeFixed64(e, m.offset);
    EncodeFixed64(e + 8, m.size);
    EncodeFixed64(e + 16, m.checksum);
    EncodeFixed32(e + 24, static_cast<uint32_t>(m.num_blocks));
    e[28] = static_cast<char>(m.num_probes);
    e += kModularEntryBytes;
  }
  EncodeFixed64(e, Checksum64(p, static_cast<size_t>(e - p)));
  return out;
}

absl::StatusOr<BlockedBloomReader> OpenModule(std::string_view bytes, const FilterModuleInfo& info,
                                              uint64_t num_keys) {
  if (bytes.size() != info.size) {
    return absl::DataLossError(absl::StrCat("filter module: ", bytes.size(), " bytes where ",
                                            info.size, " were expected"));
  }
  if (Checksum64(bytes.data(), bytes.size()) != info.checksum) {
    return absl::DataLossError("filter module: checksum mismatch");
  }
  absl::StatusOr<BlockedBloomReader> reader = BlockedBloomReader::Open(bytes);
  if (!reader.ok()) return reader.status();
  const BlockedBloomGeometry& g = reader->geometry();
  if (g.num_keys != num_keys || g.num_blocks != info.num_blocks ||
      g.num_probes != info.num_probes || !(g.hash == HashSpec())) {
    return absl::DataLossError("filter module: its geometry is not the one its header names");
  }
  return reader;
}

}  // namespace internal

FilterModuleInfo::FilterModuleInfo() = default;
ModularBloomHeader::ModularBloomHeader() = default;
ModularBloomHeader::ModularBloomHeader(const ModularBloomHeader&) = default;
ModularBloomHeader::ModularBloomHeader(ModularBloomHeader&&) noexcept = default;
ModularBloomHeader& ModularBloomHeader::operator=(const ModularBloomHeader&) = default;
ModularBloomHeader& ModularBloomHeader::operator=(ModularBloomHeader&&) noexcept = default;
ModularBloomHeader::~ModularBloomHeader() = default;

absl::StatusOr<ModularBloomHeader> ParseModularBloomHeader(std::string_view filter) {
  using internal::DecodeFixed32;
  using internal::DecodeFixed64;
  if (filter.size() < internal::kModularFixedBytes) {
    return absl::DataLossError(
        absl::StrCat("modular filter: ", filter.size(), " bytes, too short for a header"));
  }
  const char* p = filter.data();
  if (DecodeFixed32(p) != internal::kModularMagic) {
    return absl::DataLossError("modular filter: bad magic");
  }
  const int version = static_cast<uint8_t>(p[4]);
  if (version != internal::kModularFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("modular filter: format version ", version, " is not known to this build"));
  }
  const int num_modules = static_cast<uint8_t>(p[5]);
  if (num_modules < 1 || num_modules > kMaxFilterModules) {
    return absl::DataLossError(absl::StrCat("modular filter: ", num_modules, " modules"));
  }
  if (p[6] != 0 || p[7] != 0) return absl::DataLossError("modular filter: reserved bytes set");
  const uint64_t header_size = internal::ModularHeaderSize(num_modules);
  const uint64_t checked = internal::kModularFixedBytes + internal::kModularEntryBytes * num_modules;
  if (filter.size() < header_size) {
    return absl::DataLossError(absl::StrCat("modular filter: header of ", header_size,
                                            " bytes cut at ", filter.size()));
  }
  if (DecodeFixed64(p + checked) != internal::Checksum64(p, checked)) {
    return absl::DataLossError("modular filter: header checksum mismatch");
  }
  for (uint64_t i = checked + 8; i < header_size; ++i) {
    if (p[i] != 0) return absl::DataLossError("modular filter: header padding set");
  }
  ModularBloomHeader header;
  header.format_version = version;
  header.num_keys = DecodeFixed64(p + 8);
  header.header_size = header_size;
  uint64_t next = header_size;
  for (int m = 0; m < num_modules; ++m) {
    const char* e = p + internal::kModularFixedBytes + internal::kModularEntryBytes * m;
    FilterModuleInfo info;
    info.offset = DecodeFixed64(e);
    info.size = DecodeFixed64(e + 8);
    info.checksum = DecodeFixed64(e + 16);
    info.num_blocks = DecodeFixed32(e + 24);
    info.num_probes = static_cast<uint8_t>(e[28]);
    if (e[29] != 0 || e[30] != 0 || e[31] != 0) {
      return absl::DataLossError(absl::StrCat("modular filter: module ", m, ": reserved bytes set"));
    }
    // Modules follow one another in order, each on a line boundary.
    if (info.offset != next || info.offset % 64 != 0 || info.size == 0 ||
        info.size > (uint64_t{1} << 40) || info.num_probes < 1 || info.num_probes > 16) {
      return absl::DataLossError(absl::StrCat("modular filter: module ", m, ": bad entry (offset ",
                                              info.offset, ", size ", info.size, ", k ",
                                              info.num_probes, ")"));
    }
    next = (info.offset + info.size + 63) / 64 * 64;
    // The model is costly (a Poisson mixture, ~0.5 ms): modules of one
    // geometry, as most after module 0 are, share it.
    const FilterModuleInfo* same = nullptr;
    for (const FilterModuleInfo& before : header.modules) {
      if (before.num_blocks == info.num_blocks && before.num_probes == info.num_probes) {
        same = &before;
      }
    }
    if (same != nullptr) {
      info.predicted_fpr = same->predicted_fpr;
    } else {
      BlockedBloomGeometry g;
      g.num_keys = header.num_keys;
      g.num_blocks = info.num_blocks;
      g.num_probes = info.num_probes;
      info.predicted_fpr = g.predicted_fpr();
    }
    header.modules.push_back(info);
  }
  return header;
}

FilterModule::FilterModule(std::unique_ptr<internal::AlignedBuffer> bytes,
                           const BlockedBloomReader& reader, const FilterModuleInfo& info)
    : bytes_(std::move(bytes)), reader_(reader), info_(info) {}

FilterModule::~FilterModule() = default;

absl::StatusOr<std::shared_ptr<const FilterModule>> FilterModule::Open(
    std::string_view bytes, const FilterModuleInfo& info, uint64_t num_keys) {
  auto copy = std::make_unique<internal::AlignedBuffer>(bytes);
  absl::StatusOr<BlockedBloomReader> reader = internal::OpenModule(copy->view(), info, num_keys);
  if (!reader.ok()) return reader.status();
  return std::shared_ptr<const FilterModule>(new FilterModule(std::move(copy), *reader, info));
}

}  // namespace lsmbloom
