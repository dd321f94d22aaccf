// A table's modular filter (lsmbloom/filter/modular_bloom.h): reading its
// header and module 0 when the table opens, and any other module on demand.

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/table/table.h"
#include "src/table/table_rep.h"
#include "src/util/aligned_buffer.h"
#include "src/util/checksum.h"

namespace lsmbloom {

namespace {

// Bytes [offset, offset + n) of `file`, copied to `*out` unless they are
// mapped (then a view of the mapping).
absl::StatusOr<std::string_view> ReadRange(const RandomAccessFile& file, uint64_t offset,
                                           uint64_t n, std::string* out) {
  // Before the buffer grows: n comes from the file (a module's size).
  if (offset > file.Size() || n > file.Size() - offset) {
    return absl::DataLossError(absl::StrCat("filter block: ", n, " bytes at offset ", offset,
                                            " extend past the end of the file (byte ", file.Size(),
                                            ")"));
  }
  out->resize(static_cast<size_t>(n));
  std::string_view got;
  absl::Status s = file.Read(offset, n, out->data(), &got);
  if (!s.ok()) return s;
  if (got.size() != n) {
    return absl::DataLossError(absl::StrCat("filter block: ", got.size(), " bytes at offset ",
                                            offset, " where ", n, " were expected"));
  }
  return got;
}

}  // namespace

absl::StatusOr<std::string_view> Table::Rep::ReadModularPrefix(const internal::BlockHandle& handle) {
  std::string buffer;
  const size_t head = static_cast<size_t>(std::min<uint64_t>(handle.size, kMaxModularHeaderSize));
  absl::StatusOr<std::string_view> bytes = ReadRange(*file, handle.offset, head, &buffer);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<ModularBloomHeader> header = ParseModularBloomHeader(*bytes);
  if (!header.ok()) return header.status();
  // The block's own checksum covers every module, and is not read here:
  // the properties' checksum of the header binds it (and through the
  // module checksums it holds, every module) to this table, so a filter
  // block from another table is refused, while a damaged module costs
  // only what it would have ruled out.
  if (properties.filter_head_checksum == 0 ||
      internal::Checksum64(bytes->data(), header->header_size) != properties.filter_head_checksum) {
    return absl::DataLossError(
        absl::StrCat("modular filter at offset ", handle.offset,
                     properties.filter_head_checksum == 0
                         ? ": the table records no checksum of its header"
                         : ": its header is not the one this table recorded"));
  }
  // Every module within the block (LoadFilter checked the block against the
  // file), so ReadFilterModule reads none from beyond it.
  const int last = static_cast<int>(header->modules.size()) - 1;
  if (header->PrefixSize(last) > handle.size) {
    return absl::DataLossError(absl::StrCat("modular filter: module ", last, " ends at ",
                                            header->PrefixSize(last), ", past its block of ",
                                            handle.size, " bytes"));
  }
  const uint64_t prefix = header->PrefixSize(0);
  if (prefix > bytes->size()) {
    bytes = ReadRange(*file, handle.offset, prefix, &buffer);
    if (!bytes.ok()) return bytes.status();
  }
  filter_copy = std::make_unique<internal::AlignedBuffer>(bytes->substr(0, prefix));
  modular = *std::move(header);
  filter_offset = handle.offset;
  return filter_copy->view();
}

const ModularBloomHeader* Table::filter_modules() const {
  return rep_->whole_key_filter && rep_->modular.has_value() ? &*rep_->modular : nullptr;
}

absl::StatusOr<std::shared_ptr<const FilterModule>> Table::ReadFilterModule(int m) const {
  const ModularBloomHeader* header = filter_modules();
  if (header == nullptr) {
    return absl::InvalidArgumentError("table: no trusted modular filter");
  }
  if (m < 1 || m >= static_cast<int>(header->modules.size())) {
    return absl::InvalidArgumentError(absl::StrCat("table: no filter module ", m, " (it has ",
                                                   header->modules.size(), ")"));
  }
  const FilterModuleInfo& info = header->modules[m];
  const uint64_t offset = rep_->filter_offset + info.offset;
  std::string buffer;
  absl::StatusOr<std::string_view> bytes =
      ReadRange(*rep_->file, offset, info.size, &buffer);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<std::shared_ptr<const FilterModule>> module =
      FilterModule::Open(*bytes, info, header->num_keys);
  if (!module.ok()) {
    return absl::DataLossError(absl::StrCat("filter module ", m, " at offset ", offset, ": ",
                                            module.status().message()));
  }
  return module;
}

}  // namespace lsmbloom
