// A VersionEdit's rules: what it may remove and add, and the order and
// disjointness of each level afterwards. TableSet::Apply takes a copy of the
// current version through here, then indexes it (version.cc).

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/lookup/version.h"

namespace lsmbloom {
namespace internal {

absl::Status ApplyEdit(const VersionEdit& edit, Version* version) {
  for (const VersionEdit::Removed& r : edit.removed) {
    if (r.level < 0 || r.level >= kNumLevels) {
      return absl::InvalidArgumentError(absl::StrCat("level ", r.level, " out of range"));
    }
    auto& files = version->levels[r.level];
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const TableFile& f) { return f.file_number == r.file_number; });
    if (it == files.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("file ", r.file_number, " is not in level ", r.level));
    }
    files.erase(it);
  }
  for (const TableFile& f : edit.added) {
    if (f.level < 0 || f.level >= kNumLevels || f.table == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("file ", f.file_number, ": bad level ", f.level, " or no table"));
    }
    if (f.expected_unique_id != 0 && f.table->unique_id() != f.expected_unique_id) {
      return absl::DataLossError(absl::StrFormat(
          "level %d file %d: table unique id %016x, expected %016x: the file was replaced by "
          "another table",
          f.level, f.file_number, f.table->unique_id(), f.expected_unique_id));
    }
    if (f.expected_file_size != 0 && f.table->file_size() != f.expected_file_size) {
      return absl::DataLossError(absl::StrCat("level ", f.level, " file ", f.file_number, ": ",
                                              f.table->file_size(), " bytes, expected ",
                                              f.expected_file_size,
                                              ": the file was replaced or changed"));
    }
    for (const auto& level : version->levels) {
      for (const TableFile& existing : level) {
        if (existing.file_number == f.file_number) {
          return absl::InvalidArgumentError(
              absl::StrCat("file number ", f.file_number, " is already in the set"));
        }
      }
    }
    version->levels[f.level].push_back(f);
  }
  auto& l0 = version->levels[0];
  std::sort(l0.begin(), l0.end(),
            [](const TableFile& a, const TableFile& b) { return a.file_number > b.file_number; });
  version->last_nonempty_level = -1;
  for (int level = 0; level < kNumLevels; ++level) {
    auto& files = version->levels[level];
    if (!files.empty()) version->last_nonempty_level = level;
    if (level == 0) continue;
    std::sort(files.begin(), files.end(), [](const TableFile& a, const TableFile& b) {
      return a.table->smallest_user_key() < b.table->smallest_user_key();
    });
    for (size_t i = 1; i < files.size(); ++i) {
      if (files[i].table->smallest_user_key() <= files[i - 1].table->largest_user_key()) {
        return absl::InvalidArgumentError(absl::StrCat("files ", files[i - 1].file_number, " and ",
                                                       files[i].file_number, " overlap in level ",
                                                       level));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace lsmbloom
