// The modules of a table's modular filter, each read from the file and
// verified on its own.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/inspect/inspect.h"
#include "src/table/table_inspection.h"

namespace lsmbloom {

FilterModuleCheck::FilterModuleCheck() = default;
FilterModuleCheck::FilterModuleCheck(const FilterModuleCheck&) = default;
FilterModuleCheck& FilterModuleCheck::operator=(const FilterModuleCheck&) = default;
FilterModuleCheck::~FilterModuleCheck() = default;

namespace {

// Module `info`'s bytes as the file holds them, verified: OK, or why a
// reader would leave the module out.
absl::Status CheckModule(const Table& table, uint64_t offset, const FilterModuleInfo& info,
                         uint64_t num_keys) {
  std::string scratch(static_cast<size_t>(info.size), '\0');
  std::string_view bytes;
  absl::Status s = internal::TableInspection::File(table).Read(
      offset, static_cast<size_t>(info.size), scratch.data(), &bytes);
  if (!s.ok()) return s;
  if (bytes.size() != info.size) {
    return absl::DataLossError(
        absl::StrCat("cut short: ", bytes.size(), " of ", info.size, " bytes in the file"));
  }
  return FilterModule::Open(bytes, info, num_keys).status();
}

}  // namespace

std::vector<FilterModuleCheck> CheckFilterModules(const InspectedTable& t) {
  std::vector<FilterModuleCheck> checks;
  if (t.filter().policy() != kModularBloomPolicyName || !t.filter().status().ok()) return checks;
  // The table holds the header and module 0; their bytes start the block.
  absl::StatusOr<ModularBloomHeader> header =
      ParseModularBloomHeader(internal::TableInspection::FilterBytes(t.table()));
  if (!header.ok()) return checks;
  const uint64_t filter_offset = internal::TableInspection::Layout(t.table()).filter.offset;
  const uint64_t filter_size = internal::TableInspection::Layout(t.table()).filter.size;
  double cumulative = 1;
  for (size_t m = 0; m < header->modules.size(); ++m) {
    FilterModuleCheck c;
    c.index = static_cast<int>(m);
    c.info = header->modules[m];
    c.file_offset = filter_offset + c.info.offset;
    if (header->num_keys > 0) {
      c.bits_per_key = c.info.num_blocks * 512.0 / static_cast<double>(header->num_keys);
    }
    if (header->PrefixSize(c.index) > filter_size) {
      c.status =
          absl::DataLossError(absl::StrCat("ends at ", header->PrefixSize(c.index),
                                           ", past the filter block of ", filter_size, " bytes"));
    } else {
      c.status = CheckModule(t.table(), c.file_offset, c.info, header->num_keys);
    }
    if (c.status.ok()) cumulative *= c.info.predicted_fpr;
    c.cumulative_fpr = cumulative;
    checks.push_back(c);
  }
  return checks;
}

}  // namespace lsmbloom
