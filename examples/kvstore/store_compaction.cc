// Flushes and compactions: how data moves from the memtable down the
// levels, and which filter each new table gets.

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "file_util.h"
#include "filenames.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/table/table.h"
#include "merging_iterator.h"
#include "store.h"

namespace kvstore {

using lsmbloom::EntryType;
using lsmbloom::kNumLevels;
using lsmbloom::TableFile;

namespace {

uint64_t LevelBytes(const std::vector<TableFile>& files) {
  uint64_t bytes = 0;
  for (const TableFile& f : files) bytes += f.table->file_size();
  return bytes;
}

// True if no level below `level` can hold an entry for `key`: a tombstone
// written to `level` then shadows nothing and can be dropped. Levels above
// hold only newer entries, so they do not matter.
bool IsBaseLevelForKey(const std::vector<std::vector<TableFile>>& levels, int level,
                       std::string_view key) {
  for (int deeper = level + 1; deeper < kNumLevels; ++deeper) {
    const std::vector<TableFile>& files = levels[deeper];  // Sorted, disjoint.
    auto it = std::lower_bound(
        files.begin(), files.end(), key,
        [](const TableFile& f, std::string_view k) { return f.table->largest_user_key() < k; });
    if (it != files.end() && it->table->smallest_user_key() <= key) return false;
  }
  return true;
}

// Entries and files an absent-key lookup checks, per level, for the
// filter budget: every level-0 file, one file of any other level.
std::vector<lsmbloom::LevelFilterShape> ShapesOf(
    const std::vector<std::vector<TableFile>>& levels) {
  std::vector<lsmbloom::LevelFilterShape> shapes(kNumLevels, {0, 0});
  for (int level = 0; level < kNumLevels; ++level) {
    for (const TableFile& f : levels[level]) {
      shapes[level].num_keys += f.table->num_entries();
      shapes[level].checks = level == 0 ? shapes[level].checks + 1 : 1;
    }
  }
  return shapes;
}

}  // namespace

absl::Status Store::Flush() {
  absl::Status s = CheckWritable();
  if (!s.ok() || mem_.empty()) return s;
  std::optional<StageScope> stage(std::in_place, this, StoreStage::kFlush);
  std::vector<lsmbloom::LevelFilterShape> shapes = ShapesOf(tables_.files());
  shapes[0].num_keys += mem_.size();
  shapes[0].checks += 1;
  // The writes after this flush go to a new log, which the MANIFEST names
  // as the first to replay once the table holding this memtable is in it.
  const uint64_t new_log_number = next_file_number_++;
  absl::StatusOr<std::unique_ptr<WalWriter>> new_log =
      WalWriter::Open(LogFileName(dir_, new_log_number), options_.wal_sync, env_);
  if (!new_log.ok()) return new_log.status();
  auto abandon_log = [&] {
    new_log->reset();
    env_->RemoveFile(LogFileName(dir_, new_log_number)).IgnoreError();
  };
  absl::StatusOr<lsmbloom::TableOptions> options = OptionsForLevel(0, shapes);
  absl::StatusOr<NewTable> table =
      options.ok() ? StartTable(*options) : absl::StatusOr<NewTable>(options.status());
  if (!table.ok()) {
    abandon_log();
    return table.status();
  }
  for (const auto& [key, e] : mem_.entries()) {
    // Tombstones too: they must shadow older values in deeper tables.
    s = table->builder->Add(key, e.sequence, e.type, e.value);
    if (!s.ok()) {
      abandon_log();
      return s;  // The unfinished file removes itself.
    }
  }
  absl::StatusOr<TableFile> file = FinishTable(0, *std::move(table));
  if (!file.ok()) {
    abandon_log();
    return file.status();
  }
  const uint64_t old_log_number = log_number_;
  log_number_ = new_log_number;
  s = Install({}, {*file});
  if (!s.ok()) {
    // The memtable and its log stay; the table file is a leftover.
    log_number_ = old_log_number;
    abandon_log();
    return s;
  }
  write_error_ = write_error();  // The old log's failed sync outlives it.
  wal_ = *std::move(new_log);
  wal_number_ = new_log_number;
  mem_.Clear();
  RemoveObsoleteLogs();
  stage.reset();
  return MaybeCompact();
}

absl::Status Store::CompactAll() {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  s = Flush();
  if (!s.ok()) return s;
  // Each pass moves everything above `deepest` one level down; compactions
  // that make due in between may change which levels hold what, so look
  // again each time.
  for (;;) {
    const Levels levels = tables_.files();
    int deepest = -1, shallowest = -1;
    for (int level = 0; level < kNumLevels; ++level) {
      if (levels[level].empty()) continue;
      if (shallowest < 0) shallowest = level;
      deepest = level;
    }
    if (shallowest < 0) return absl::OkStatus();
    // One level left is done, unless it is level 0, whose files overlap.
    if (shallowest == deepest && deepest != 0) return absl::OkStatus();
    s = Compact(shallowest, levels[shallowest], /*allow_move=*/false);
    if (!s.ok()) return s;
  }
}

absl::Status Store::CompactLevel(int level) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  if (level < 0 || level >= kNumLevels - 1) {
    return absl::InvalidArgumentError(absl::StrCat("cannot compact level ", level));
  }
  const Levels levels = tables_.files();
  if (levels[level].empty()) return absl::OkStatus();
  s = Compact(level, levels[level], /*allow_move=*/false);
  if (!s.ok()) return s;
  return MaybeCompact();
}

absl::Status Store::MaybeCompact() {
  for (;;) {
    const Levels levels = tables_.files();
    if (levels[0].size() >= static_cast<size_t>(options_.l0_compaction_trigger)) {
      absl::Status s = Compact(0, levels[0], /*allow_move=*/true);
      if (!s.ok()) return s;
      continue;
    }
    int over = -1;  // The last level has no budget: nothing is below it.
    for (int level = 1; level < kNumLevels - 1 && over < 0; ++level) {
      if (LevelBytes(levels[level]) > MaxBytesForLevel(level)) over = level;
    }
    if (over < 0) return absl::OkStatus();
    absl::Status s = Compact(over, {PickFile(over, levels[over])}, /*allow_move=*/true);
    if (!s.ok()) return s;
  }
}

TableFile Store::PickFile(int level, const std::vector<TableFile>& files) {
  // Files are in key order: take the first past the pointer, wrapping round.
  const std::optional<std::string>& after = compact_pointer_[level];
  TableFile picked = files.front();
  for (const TableFile& f : files) {
    if (!after.has_value() || f.table->smallest_user_key() > *after) {
      picked = f;
      break;
    }
  }
  compact_pointer_[level] = std::string(picked.table->largest_user_key());
  return picked;
}

uint64_t Store::MaxBytesForLevel(int level) const {
  double bytes = static_cast<double>(options_.level1_max_bytes);
  for (int l = 1; l < level; ++l) bytes *= options_.level_size_multiplier;
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

absl::Status Store::Compact(int level, std::vector<TableFile> inputs, bool allow_move) {
  StageScope stage(this, StoreStage::kCompaction);
  const int out_level = level + 1;
  const Levels levels = tables_.files();

  // Take every file of out_level that meets the inputs' whole key range,
  // not just each input's: the outputs cover that range without gaps, so
  // any file left inside it would overlap them.
  std::string_view smallest = inputs.front().table->smallest_user_key();
  std::string_view largest = inputs.front().table->largest_user_key();
  for (const TableFile& f : inputs) {
    smallest = std::min(smallest, f.table->smallest_user_key());
    largest = std::max(largest, f.table->largest_user_key());
  }
  std::vector<TableFile> below;
  for (const TableFile& f : levels[out_level]) {
    if (f.table->largest_user_key() >= smallest && f.table->smallest_user_key() <= largest) {
      below.push_back(f);
    }
  }
  if (allow_move && inputs.size() == 1 && below.empty()) {
    // Nothing to merge with: relabel the file instead of rewriting it.
    TableFile moved = inputs.front();
    moved.level = out_level;
    return Install(inputs, {moved});
  }
  inputs.insert(inputs.end(), below.begin(), below.end());
  // The levels once this is done: the inputs' entries (at most) move down.
  std::vector<lsmbloom::LevelFilterShape> shapes = ShapesOf(levels);
  for (const TableFile& f : inputs) {
    shapes[f.level].num_keys -= f.table->num_entries();
    if (f.level == 0) shapes[0].checks -= 1;
    shapes[out_level].num_keys += f.table->num_entries();
  }
  shapes[out_level].checks = 1;
  absl::StatusOr<lsmbloom::TableOptions> level_options = OptionsForLevel(out_level, shapes);
  if (!level_options.ok()) return level_options.status();
  const lsmbloom::TableOptions& out_options = *level_options;

  std::vector<std::unique_ptr<lsmbloom::TableIterator>> children;
  std::vector<std::string> names;
  for (const TableFile& f : inputs) {
    children.push_back(f.table->NewIterator());
    names.push_back(TableFileName(dir_, f.file_number));
  }
  MergingIterator merged(std::move(children), std::move(names));

  std::vector<TableFile> outputs;
  std::optional<NewTable> current;
  auto finish_output = [&]() -> absl::Status {
    absl::StatusOr<TableFile> file = FinishTable(out_level, *std::move(current));
    current.reset();
    if (!file.ok()) return file.status();
    outputs.push_back(*std::move(file));
    return absl::OkStatus();
  };

  absl::Status s;
  std::string last_key;
  bool have_last_key = false;
  for (merged.SeekToFirst(); s.ok() && merged.Valid(); merged.Next()) {
    const lsmbloom::TableEntry e = merged.entry();
    // A key's entries come newest first; the older ones are shadowed (no
    // snapshots can still want them).
    if (have_last_key && e.user_key == last_key) continue;
    last_key.assign(e.user_key.data(), e.user_key.size());
    have_last_key = true;
    if (e.type == EntryType::kDeletion && IsBaseLevelForKey(levels, out_level, e.user_key)) {
      continue;
    }
    if (!current.has_value()) {
      absl::StatusOr<NewTable> table = StartTable(out_options);
      if (!table.ok()) {
        s = table.status();
        break;
      }
      current = *std::move(table);
    }
    s = current->builder->Add(e.user_key, e.sequence, e.type, e.value);
    // One entry per key, so any entry boundary is a key boundary.
    if (s.ok() && current->builder->file_size() >= options_.target_file_size) {
      s = finish_output();
    }
  }
  if (s.ok()) s = merged.status();
  if (s.ok() && current.has_value()) s = finish_output();
  if (!s.ok()) {
    current.reset();  // Abandons an unfinished output.
    RemoveTables(outputs);
    return s;
  }
  s = Install(inputs, outputs);
  if (!s.ok()) return s;  // Inputs and outputs stay; Open sorts them out.
  RemoveTables(inputs);
  return absl::OkStatus();
}

namespace {

// What DefaultFilterPolicy() spends, for Ribbon levels given no bits/key.
constexpr double kDefaultBitsPerKey = 10;

// A blocked filter at `bits_per_key`, or with `ribbon` a Ribbon filter of
// the FPR those bits give a blocked one; none at 0 (the budget gives the
// level nothing). An error for bits/key the filter cannot take.
absl::Status SetFilter(double bits_per_key, bool ribbon, lsmbloom::TableOptions* options) {
  if (bits_per_key <= 0) {
    options->filter_policy = nullptr;
    return absl::OkStatus();
  }
  absl::StatusOr<std::shared_ptr<const lsmbloom::FilterPolicy>> policy;
  if (ribbon) {
    lsmbloom::RibbonOptions filter;
    const double fpr = lsmbloom::BlockedBloomFpr(
        bits_per_key, lsmbloom::OptimalBlockedProbes(bits_per_key));
    filter.target_fpr = std::clamp(fpr, 1e-9, 0.5);  // The range Ribbon takes.
    policy = lsmbloom::NewRibbonPolicy(filter);
  } else {
    lsmbloom::BlockedBloomOptions filter;
    filter.bits_per_key = bits_per_key;
    policy = lsmbloom::NewBlockedBloomPolicy(filter);
  }
  if (!policy.ok()) return policy.status();
  options->filter_policy = *std::move(policy);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<lsmbloom::TableOptions> Store::OptionsForLevel(
    int level, const std::vector<lsmbloom::LevelFilterShape>& shapes) const {
  lsmbloom::TableOptions options = options_.table_options;
  const bool ribbon = ribbon_from_level_ >= 0 && level >= ribbon_from_level_;
  if (options_.filter_budget_bits_per_key <= 0) {
    const std::vector<double>& bits = options_.level_bits_per_key;
    if (bits.empty() && (!ribbon || options.filter_policy == nullptr)) return options;
    absl::Status s = SetFilter(
        bits.empty() ? kDefaultBitsPerKey : bits[std::min<size_t>(level, bits.size() - 1)],
        ribbon, &options);
    if (!s.ok()) return s;
    return options;
  }
  absl::StatusOr<lsmbloom::FilterAllocation> split =
      lsmbloom::AllocateFilterBitsPerKey(shapes, options_.filter_budget_bits_per_key);
  // No error is possible for a level that is about to hold entries; should
  // one come, the budget's own average is a safe answer.
  absl::Status s = SetFilter(split.ok() ? split->levels[level].bits_per_key
                                        : std::min(30.0, options_.filter_budget_bits_per_key),
                             ribbon, &options);
  if (!s.ok()) return s;
  return options;
}

}  // namespace kvstore
