#include "store.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/file.h"
#include "lsmbloom/table.h"
#include "manifest.h"
#include "merging_iterator.h"

namespace kvstore {

using lsmbloom::EntryType;
using lsmbloom::kNumLevels;
using lsmbloom::TableFile;

namespace {

absl::Status ClosedError() { return absl::FailedPreconditionError("store is closed"); }

absl::Status ValidateOptions(const StoreOptions& o) {
  if (o.memtable_max_bytes == 0) {
    return absl::InvalidArgumentError("memtable_max_bytes must be positive");
  }
  for (double bits : o.level_bits_per_key) {
    if (!(bits >= 0 && bits <= 100)) {
      return absl::InvalidArgumentError("level_bits_per_key entries must be in [0, 100]");
    }
  }
  if (o.l0_compaction_trigger < 1) {
    return absl::InvalidArgumentError("l0_compaction_trigger must be at least 1");
  }
  if (!(o.filter_budget_bits_per_key >= 0 && o.filter_budget_bits_per_key <= 1000)) {
    return absl::InvalidArgumentError("filter_budget_bits_per_key must be in [0, 1000]");
  }
  if (o.target_file_size == 0 || o.level1_max_bytes == 0 || o.level_size_multiplier < 1) {
    return absl::InvalidArgumentError(
        "target_file_size, level1_max_bytes and level_size_multiplier must be positive");
  }
  return absl::OkStatus();
}

// "000123.sst" -> 123. Only names the store itself writes.
bool ParseTableFileName(std::string_view name, uint64_t* number) {
  constexpr std::string_view kSuffix = ".sst";
  if (name.size() <= kSuffix.size() ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return false;
  }
  const std::string_view digits = name.substr(0, name.size() - kSuffix.size());
  const char* end = digits.data() + digits.size();
  auto [ptr, error] = std::from_chars(digits.data(), end, *number);
  return error == std::errc() && ptr == end;  // Digits only, all of them.
}

// Temporaries of the atomic writer: "MANIFEST.tmp", "000123.sst.tmp".
bool IsTempFileName(std::string_view name) {
  constexpr std::string_view kSuffix = ".tmp";
  if (name.size() <= kSuffix.size() ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return false;
  }
  const std::string_view base = name.substr(0, name.size() - kSuffix.size());
  uint64_t number;
  return base == "MANIFEST" || ParseTableFileName(base, &number);
}

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
    auto it = std::lower_bound(files.begin(), files.end(), key,
                               [](const TableFile& f, std::string_view k) {
                                 return f.table->largest_user_key() < k;
                               });
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

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& dir,
                                                   const StoreOptions& options) {
  absl::Status s = ValidateOptions(options);
  if (!s.ok()) return s;
  if (dir.empty()) return absl::InvalidArgumentError("no store directory given");
  s = EnsureDir(dir, options.create_if_missing);
  if (!s.ok()) return s;
  // Checked before taking the lock, so that looking for a store in a
  // directory that has none leaves nothing behind there.
  if (!options.create_if_missing && !FileExists(ManifestPath(dir))) {
    return absl::NotFoundError(absl::StrCat(dir, ": no store here (no MANIFEST)"));
  }
  absl::StatusOr<std::unique_ptr<FileLock>> lock = FileLock::Acquire(dir + "/LOCK");
  if (!lock.ok()) return lock.status();
  std::unique_ptr<Store> store(new Store(dir, options, std::move(*lock)));
  s = store->Recover();
  if (!s.ok()) return s;
  return store;
}

Store::Store(std::string dir, const StoreOptions& options, std::unique_ptr<FileLock> lock)
    : dir_(std::move(dir)),
      options_(options),
      lock_(std::move(lock)),
      tables_(options.lookup_options) {}

Store::~Store() = default;

absl::Status Store::Recover() {
  absl::StatusOr<std::vector<std::string>> names = ListDir(dir_);
  if (!names.ok()) return names.status();
  absl::StatusOr<Manifest> manifest = ReadManifest(dir_);
  if (absl::IsNotFound(manifest.status())) {
    // A new store, unless table files say there was one: never start over
    // on top of data whose MANIFEST went missing.
    for (const std::string& name : *names) {
      uint64_t number;
      if (ParseTableFileName(name, &number)) {
        return absl::DataLossError(absl::StrCat(
            dir_, " holds table files (", name,
            ") but no MANIFEST; not creating a store over them"));
      }
    }
    absl::Status s = SaveManifest();
    if (s.ok()) RemoveLeftovers(*names);  // Temporaries of an earlier attempt.
    return s;
  }
  if (!manifest.ok()) {
    return absl::Status(manifest.status().code(),
                        absl::StrCat(dir_, ": ", manifest.status().message()));
  }
  next_file_number_ = manifest->next_file_number;
  last_sequence_ = manifest->last_sequence;

  lsmbloom::VersionEdit edit;
  for (const ManifestFile& f : manifest->files) {
    absl::StatusOr<TableFile> file = OpenTable(f.level, f.number);
    if (!file.ok()) {
      return absl::DataLossError(absl::StrCat("MANIFEST lists ", TableFileName(f.number),
                                              ": ", file.status().message()));
    }
    edit.added.push_back(*std::move(file));
  }
  absl::Status s = tables_.Apply(edit);
  if (!s.ok()) return absl::DataLossError(absl::StrCat("MANIFEST: ", s.message()));
  RemoveLeftovers(*names);
  return absl::OkStatus();
}

void Store::RemoveLeftovers(const std::vector<std::string>& names) {
  std::vector<uint64_t> live;
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) live.push_back(f.file_number);
  }
  for (const std::string& name : names) {
    uint64_t number;
    const bool dead_table = ParseTableFileName(name, &number) &&
                            std::find(live.begin(), live.end(), number) == live.end();
    if (dead_table || IsTempFileName(name)) {
      // One that cannot go now is retried at the next Open; its number may
      // be reused meanwhile, which overwrites it.
      RemoveFile(absl::StrCat(dir_, "/", name)).IgnoreError();
    }
  }
}

absl::Status Store::Put(std::string_view key, std::string_view value) {
  return Write(key, EntryType::kValue, value);
}

absl::Status Store::Delete(std::string_view key) {
  return Write(key, EntryType::kDeletion, std::string_view());
}

absl::Status Store::Write(std::string_view key, EntryType type, std::string_view value) {
  if (lock_ == nullptr) return ClosedError();
  if (last_sequence_ >= lsmbloom::kMaxSequenceNumber) {
    return absl::ResourceExhaustedError("sequence numbers exhausted");
  }
  mem_.Add(key, ++last_sequence_, type, value);
  if (mem_.ApproximateBytes() >= options_.memtable_max_bytes) return Flush();
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> Store::Get(std::string_view key) const {
  if (lock_ == nullptr) return ClosedError();
  if (const MemTable::Entry* e = mem_.Find(key)) {
    if (e->type == EntryType::kDeletion) return std::optional<std::string>();
    return std::optional<std::string>(e->value);
  }
  absl::StatusOr<lsmbloom::LookupResult> result = tables_.Get(key);
  if (!result.ok()) return result.status();
  if (result->kind != lsmbloom::LookupResult::Kind::kFound) {
    return std::optional<std::string>();  // Never written, or a tombstone.
  }
  return std::optional<std::string>(std::move(result->value));
}

absl::Status Store::Flush() {
  if (lock_ == nullptr) return ClosedError();
  if (mem_.empty()) return absl::OkStatus();
  std::vector<lsmbloom::LevelFilterShape> shapes = ShapesOf(tables_.files());
  shapes[0].num_keys += mem_.size();
  shapes[0].checks += 1;
  absl::StatusOr<NewTable> table = StartTable(OptionsForLevel(0, shapes));
  if (!table.ok()) return table.status();
  for (const auto& [key, e] : mem_.entries()) {
    // Tombstones too: they must shadow older values in deeper tables.
    absl::Status s = table->builder->Add(key, e.sequence, e.type, e.value);
    if (!s.ok()) return s;  // The unfinished file removes itself.
  }
  absl::StatusOr<TableFile> file = FinishTable(0, *std::move(table));
  if (!file.ok()) return file.status();
  absl::Status s = Install({}, {*file});
  if (!s.ok()) return s;  // The memtable stays; the file is a leftover.
  mem_.Clear();
  return MaybeCompact();
}

absl::Status Store::Scan(
    const ScanRange& range,
    const std::function<bool(std::string_view, std::string_view)>& visit) const {
  if (lock_ == nullptr) return ClosedError();
  std::vector<std::unique_ptr<lsmbloom::TableIterator>> children;
  children.push_back(mem_.NewIterator());
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) {
      // Files wholly outside the range add nothing but a seek.
      if (f.table->largest_user_key() < range.from) continue;
      if (!range.to.empty() && f.table->smallest_user_key() >= range.to) continue;
      children.push_back(f.table->NewIterator());
    }
  }
  MergingIterator merged(std::move(children));
  size_t visited = 0;
  std::string last_key;
  bool have_last_key = false;
  for (merged.Seek(range.from); merged.Valid(); merged.Next()) {
    const lsmbloom::TableEntry e = merged.entry();
    if (!range.to.empty() && e.user_key >= range.to) break;
    // A key's entries come newest first: the first one decides.
    if (have_last_key && e.user_key == last_key) continue;
    last_key.assign(e.user_key.data(), e.user_key.size());
    have_last_key = true;
    if (e.type == EntryType::kDeletion) continue;
    if (!visit(e.user_key, e.value)) break;
    if (range.limit != 0 && ++visited >= range.limit) break;
  }
  return merged.status();
}

absl::Status Store::CompactAll() {
  absl::Status s = Flush();
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
  if (lock_ == nullptr) return ClosedError();
  if (level < 0 || level >= kNumLevels - 1) {
    return absl::InvalidArgumentError(absl::StrCat("cannot compact level ", level));
  }
  const Levels levels = tables_.files();
  if (levels[level].empty()) return absl::OkStatus();
  absl::Status s = Compact(level, levels[level], /*allow_move=*/false);
  if (!s.ok()) return s;
  return MaybeCompact();
}

absl::Status Store::Close() {
  if (lock_ == nullptr) return absl::OkStatus();
  absl::Status s = Flush();
  if (!s.ok()) return s;
  lock_.reset();
  return absl::OkStatus();
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
  const lsmbloom::TableOptions out_options = OptionsForLevel(out_level, shapes);

  std::vector<std::unique_ptr<lsmbloom::TableIterator>> children;
  for (const TableFile& f : inputs) children.push_back(f.table->NewIterator());
  MergingIterator merged(std::move(children));

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

lsmbloom::TableOptions Store::OptionsForLevel(
    int level, const std::vector<lsmbloom::LevelFilterShape>& shapes) const {
  lsmbloom::TableOptions options = options_.table_options;
  if (options_.filter_budget_bits_per_key <= 0) {
    const std::vector<double>& bits = options_.level_bits_per_key;
    if (bits.empty()) return options;
    lsmbloom::BlockedBloomOptions filter;
    filter.bits_per_key = bits[std::min<size_t>(level, bits.size() - 1)];
    options.filter_policy =
        filter.bits_per_key > 0 ? lsmbloom::NewBlockedBloomPolicy(filter) : nullptr;
    return options;
  }
  absl::StatusOr<lsmbloom::FilterAllocation> split =
      lsmbloom::AllocateFilterBitsPerKey(shapes, options_.filter_budget_bits_per_key);
  // No error is possible for a level that is about to hold entries; should
  // one come, the budget's own average is a safe answer.
  lsmbloom::BlockedBloomOptions filter;
  filter.bits_per_key = split.ok() ? split->levels[level].bits_per_key
                                   : std::min(30.0, options_.filter_budget_bits_per_key);
  options.filter_policy =
      filter.bits_per_key > 0 ? lsmbloom::NewBlockedBloomPolicy(filter) : nullptr;
  return options;
}

absl::StatusOr<Store::NewTable> Store::StartTable(const lsmbloom::TableOptions& options) {
  NewTable table;
  table.number = next_file_number_++;
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> file =
      lsmbloom::NewPosixWritableFile(TableFileName(table.number));
  if (!file.ok()) return file.status();
  table.builder = std::make_unique<lsmbloom::TableBuilder>(options, *std::move(file));
  return table;
}

absl::StatusOr<TableFile> Store::FinishTable(int level, NewTable table) {
  absl::Status s = table.builder->Finish();  // Syncs, then renames into place.
  table.builder.reset();
  if (!s.ok()) return s;
  absl::StatusOr<TableFile> file = OpenTable(level, table.number);
  if (!file.ok()) RemoveFile(TableFileName(table.number)).IgnoreError();
  return file;
}

absl::StatusOr<TableFile> Store::OpenTable(int level, uint64_t number) const {
  absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> file =
      lsmbloom::OpenPosixFile(TableFileName(number), options_.use_mmap);
  if (!file.ok()) return file.status();
  // The built-in policies, plus ours in case it is a custom one; the last
  // of a name wins.
  lsmbloom::TableReadOptions read_options;
  read_options.filter_policies = {lsmbloom::NewBlockedBloomPolicy(),
                                  lsmbloom::NewClassicBloomPolicy()};
  if (options_.table_options.filter_policy != nullptr) {
    read_options.filter_policies.push_back(options_.table_options.filter_policy);
  }
  if (options_.table_options.prefix_extractor != nullptr) {
    read_options.prefix_extractors.push_back(options_.table_options.prefix_extractor);
  }
  absl::StatusOr<std::unique_ptr<lsmbloom::Table>> table =
      lsmbloom::Table::Open(*std::move(file), read_options);
  if (!table.ok()) return table.status();
  return TableFile{level, number, std::shared_ptr<const lsmbloom::Table>(*std::move(table))};
}

absl::Status Store::Install(const std::vector<TableFile>& removed,
                            const std::vector<TableFile>& added) {
  lsmbloom::VersionEdit edit, undo;
  for (const TableFile& f : removed) {
    edit.removed.push_back({f.level, f.file_number});
    undo.added.push_back(f);
  }
  for (const TableFile& f : added) {
    edit.added.push_back(f);
    undo.removed.push_back({f.level, f.file_number});
  }
  // New files must be durable under their names before a MANIFEST names
  // them.
  absl::Status s = SyncDir(dir_);
  if (s.ok()) s = tables_.Apply(edit);
  if (!s.ok()) return s;
  s = SaveManifest();
  if (!s.ok()) {
    // Lookups keep seeing what the MANIFEST said before. Undoing an edit
    // that just applied cannot fail.
    tables_.Apply(undo).IgnoreError();
  }
  return s;
}

absl::Status Store::SaveManifest() const {
  Manifest manifest;
  manifest.next_file_number = next_file_number_;
  manifest.last_sequence = last_sequence_;
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) manifest.files.push_back({f.level, f.file_number});
  }
  return WriteManifest(dir_, manifest);
}

std::string Store::TableFileName(uint64_t number) const {
  return absl::StrFormat("%s/%06d.sst", dir_, number);
}

void Store::RemoveTables(const std::vector<TableFile>& files) const {
  // Lookups still using one keep reading it: unlinking an open file is fine.
  for (const TableFile& f : files) RemoveFile(TableFileName(f.file_number)).IgnoreError();
}

}  // namespace kvstore
