#include "tools/lsm_fixture.h"

#include <cstdio>
#include <random>

#include "absl/strings/str_cat.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"

namespace lsmbloom {
namespace fixture {
std::vector<LevelSpec> StandardShape() {
  return {{3, 24, 1.0}, {2, 12, 0.3}, {1, 6, 0.1}, {0, 6, 0.06}};
}

std::vector<LevelSpec> DeepShape() {
  return {{4, 40, 1.0}, {3, 8, 0.1}, {2, 2, 0.01}, {1, 1, 0.001}, {0, 4, 0.004}};
}

std::string KeyOf(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "user%012llu", static_cast<unsigned long long>(id));
  return buf;
}

std::string ValueOf(uint64_t id, uint64_t seq) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "value-%012llu-%013llu", static_cast<unsigned long long>(id),
                static_cast<unsigned long long>(seq));
  return std::string(buf, 32);
}

std::vector<FileSpec> MakeLayout(uint64_t num_keys, uint64_t seed,
                                 const std::vector<LevelSpec>& levels) {
  std::mt19937_64 rng(seed);
  std::vector<FileSpec> files;
  uint64_t seq = 1;
  const int bottom = levels.empty() ? 0 : levels.front().level;
  for (const LevelSpec& shape : levels) {
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < num_keys; ++i) {
      if (shape.share >= 1.0 || (rng() % 1000) < shape.share * 1000) ids.push_back(2 * i);
    }
    std::vector<FileSpec> level(shape.files);
    for (size_t i = 0; i < ids.size(); ++i) {
      // Level 0 files overlap (random subsets); deeper levels are cut into
      // consecutive key ranges.
      const size_t f = shape.level == 0 ? rng() % shape.files : i * shape.files / ids.size();
      const bool tombstone = shape.level != bottom && (ids[i] / 2) % 16 == 5;
      level[f].entries.push_back({ids[i], 0, tombstone});
    }
    for (FileSpec& file : level) {
      if (file.entries.empty()) continue;
      file.level = shape.level;
      for (Entry& e : file.entries) e.seq = seq;  // One sequence per file: newer files win.
      ++seq;
      files.push_back(std::move(file));
    }
  }
  return files;
}

std::vector<LevelFilterShape> FilterShapes(const std::vector<FileSpec>& layout) {
  std::vector<LevelFilterShape> shapes(kNumLevels, LevelFilterShape{0, 0});
  for (const FileSpec& f : layout) {
    LevelFilterShape& l = shapes[f.level];
    l.num_keys += f.entries.size();
    l.checks = f.level == 0 ? l.checks + 1 : 1;
  }
  return shapes;
}

absl::StatusOr<std::array<TableOptions, kNumLevels>> BudgetedTableOptions(
    const std::vector<FileSpec>& layout, double avg_bits_per_key, FilterAllocation* allocation,
    const FilterBudgetOptions& budget) {
  absl::StatusOr<FilterAllocation> a =
      AllocateFilterBitsPerKey(FilterShapes(layout), avg_bits_per_key, budget);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::array<TableOptions, kNumLevels>> options = TableOptionsFor(*a);
  if (options.ok() && allocation != nullptr) *allocation = *std::move(a);
  return options;
}

absl::StatusOr<std::array<TableOptions, kNumLevels>> TableOptionsFor(
    const FilterAllocation& allocation) {
  if (allocation.levels.size() != kNumLevels) {
    return absl::InvalidArgumentError(
        absl::StrCat("an allocation of ", allocation.levels.size(), " levels, not ", kNumLevels));
  }
  std::array<TableOptions, kNumLevels> options;
  for (int level = 0; level < kNumLevels; ++level) {
    // Null where the budget gives the level no filter.
    absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy =
        FilterPolicyFor(allocation.levels[level]);
    if (!policy.ok()) return policy.status();
    options[level].filter_policy = *std::move(policy);
  }
  return options;
}

absl::Status WriteTables(const std::vector<FileSpec>& layout, const std::string& dir,
                         const TableOptions& options, VersionEdit* edit,
                         const std::function<void(uint64_t, uint64_t)>& progress,
                         FileAccess access) {
  std::array<TableOptions, kNumLevels> same;
  same.fill(options);
  return WriteTables(layout, dir, same, edit, progress, access);
}

absl::Status WriteTables(const std::vector<FileSpec>& layout, const std::string& dir,
                         const std::array<TableOptions, kNumLevels>& options, VersionEdit* edit,
                         const std::function<void(uint64_t, uint64_t)>& progress,
                         FileAccess access) {
  uint64_t total = 0, done = 0;
  for (const FileSpec& f : layout) total += f.entries.size();
  TableReadOptions read;  // The built-in filter policies, Ribbon's among them.
  uint64_t file_number = 1;
  for (const FileSpec& f : layout) {
    const std::string path = absl::StrCat(dir, "/", file_number, ".sst");
    absl::StatusOr<std::unique_ptr<WritableFile>> file = NewPosixWritableFile(path);
    if (!file.ok()) return file.status();
    TableBuilder builder(options[f.level], std::move(*file));
    for (const Entry& e : f.entries) {
      absl::Status s =
          builder.Add(KeyOf(e.id), e.seq, e.tombstone ? EntryType::kDeletion : EntryType::kValue,
                      e.tombstone ? "" : ValueOf(e.id, e.seq));
      if (!s.ok()) return s;
    }
    absl::Status s = builder.Finish();
    if (!s.ok()) return s;
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> readable = OpenPosixFile(path, access);
    if (!readable.ok()) return readable.status();
    absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*readable), read);
    if (!table.ok()) return table.status();
    edit->added.push_back({f.level, file_number++, std::move(*table)});
    done += f.entries.size();
    if (progress) progress(done, total);
  }
  return absl::OkStatus();
}

}  // namespace fixture
}  // namespace lsmbloom
