#include "store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "filenames.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "manifest.h"
#include "merging_iterator.h"
#include "wal.h"
#include "write_batch.h"

namespace kvstore {

using lsmbloom::EntryType;
using lsmbloom::kNumLevels;
using lsmbloom::TableFile;

namespace {

absl::Status ValidateBlockedBloomOptions(const StoreOptions& o) {
  if (o.memtable_max_bytes == 0) {
    return absl::InvalidArgumentError("memtable_max_bytes must be positive");
  }
  for (double bits : o.level_bits_per_key) {
    if (!(bits >= 0 && bits <= 100)) {
      return absl::InvalidArgumentError("level_bits_per_key entries must be in [0, 100]");
    }
  }
  if (o.ribbon_from_level.has_value() &&
      !(*o.ribbon_from_level >= -1 && *o.ribbon_from_level < lsmbloom::kNumLevels)) {
    return absl::InvalidArgumentError(absl::StrCat("ribbon_from_level must be in [-1, ",
                                                   lsmbloom::kNumLevels - 1, "], got ",
                                                   *o.ribbon_from_level));
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

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& dir,
                                                   const StoreOptions& options) {
  absl::Status s = ValidateBlockedBloomOptions(options);
  if (!s.ok()) return s;
  if (dir.empty()) return absl::InvalidArgumentError("no store directory given");
  Env* const env = options.env != nullptr ? options.env : Env::Default();
  s = env->EnsureDir(dir, options.create_if_missing && !options.read_only);
  if (!s.ok()) return s;
  // Checked before taking the lock, so that looking for a store in a
  // directory that has none leaves nothing behind there.
  if ((!options.create_if_missing || options.read_only) && !env->FileExists(ManifestPath(dir))) {
    return absl::NotFoundError(absl::StrCat(dir, ": no store here (no MANIFEST)"));
  }
  absl::StatusOr<std::unique_ptr<FileLock>> lock =
      env->LockFile(dir + "/LOCK", /*shared=*/options.read_only);
  if (!lock.ok()) return lock.status();
  std::unique_ptr<Store> store(new Store(dir, options, std::move(*lock)));
  s = store->Recover();
  if (!s.ok()) return s;
  return store;
}

Store::Store(std::string dir, const StoreOptions& options, std::unique_ptr<FileLock> lock)
    : dir_(std::move(dir)),
      options_(options),
      env_(options.env != nullptr ? options.env : Env::Default()),
      lock_(std::move(lock)),
      tables_(options.lookup_options) {}

Store::~Store() = default;

absl::Status Store::CheckOpen() const {
  if (lock_ == nullptr) return absl::FailedPreconditionError("store is closed");
  return absl::OkStatus();
}

absl::Status Store::CheckWritable() const {
  absl::Status s = CheckOpen();
  if (s.ok() && options_.read_only) {
    s = absl::FailedPreconditionError(absl::StrCat(dir_, ": the store is open read-only"));
  }
  return s;
}

absl::Status Store::Put(std::string_view key, std::string_view value) {
  WriteBatch batch;
  batch.Put(key, value);
  return Write(batch);
}

absl::Status Store::Delete(std::string_view key) {
  WriteBatch batch;
  batch.Delete(key);
  return Write(batch);
}

absl::Status Store::Write(WriteBatch& batch) {
  absl::Status s = CheckWritable();
  if (!s.ok()) return s;
  if (!write_error_.ok()) return write_error_;
  if (batch.empty()) return absl::OkStatus();
  // One rule for every way in (command line, shell, load): keys are never
  // empty; values may be.
  s = batch.ForEach([](uint64_t, EntryType, std::string_view key, std::string_view) {
    return key.empty() ? absl::InvalidArgumentError("empty key: a key must have at least one byte")
                       : absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (lsmbloom::kMaxSequenceNumber - last_sequence_ < batch.count()) {
    return absl::ResourceExhaustedError("sequence numbers exhausted");
  }
  batch.set_sequence(last_sequence_ + 1);
  {
    StageScope stage(this, StoreStage::kLogAppend);
    s = wal_->Append(batch.contents());
  }
  if (!s.ok()) {
    // Part of the record may be in the log, and a record appended after
    // it would make that damage in the middle: no more writes to this log.
    // After a failed sync, records before this one may be lost too.
    write_error_ = absl::Status(
        s.code(), absl::StrCat("write-ahead log failed; reopen the store: ", s.message()));
    return write_error_;
  }
  s = batch.ForEach(
      [&](uint64_t sequence, EntryType type, std::string_view key, std::string_view value) {
        mem_.Add(key, sequence, type, value);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;  // Cannot happen: the batch was built here.
  last_sequence_ += batch.count();
  if (mem_.ApproximateBytes() >= options_.memtable_max_bytes) return Flush();
  return absl::OkStatus();
}

absl::Status Store::write_error() const {
  if (!write_error_.ok() || wal_ == nullptr) return write_error_;
  absl::Status s = wal_->sync_error();
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat("write-ahead log failed; reopen the store: ", s.message()));
}

absl::StatusOr<std::optional<std::string>> Store::Get(std::string_view key) const {
  absl::Status s = CheckOpen();
  if (!s.ok()) return s;
  if (const MemTable::Entry* e = mem_.Find(key)) {
    if (e->type == EntryType::kDeletion) return std::optional<std::string>();
    return std::optional<std::string>(e->value);
  }
  absl::StatusOr<lsmbloom::LookupResult> result = tables_.Get(key);
  if (!result.ok()) return NameFile(result.status());
  if (result->kind != lsmbloom::LookupResult::Kind::kFound) {
    return std::optional<std::string>();  // Never written, or a tombstone.
  }
  return std::optional<std::string>(std::move(result->value));
}

absl::Status Store::NameFile(const absl::Status& s) const {
  // TableSet names a file as "level L file N: "; a user wants its path.
  const std::string_view message(s.message().data(), s.message().size());
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) {
      const std::string prefix = absl::StrCat("level ", f.level, " file ", f.file_number, ": ");
      if (message.substr(0, prefix.size()) == prefix) {
        return absl::Status(s.code(),
                            absl::StrCat(TableFileName(dir_, f.file_number), " (level ", f.level,
                                         "): ", std::string(message.substr(prefix.size()))));
      }
    }
  }
  return s;
}

absl::Status Store::Scan(
    const ScanRange& range,
    const std::function<bool(std::string_view, std::string_view)>& visit) const {
  absl::Status s = CheckOpen();
  if (!s.ok()) return s;
  if (!range.to.empty() && range.from > range.to) {
    // Almost always swapped arguments: an empty answer would hide that.
    return absl::InvalidArgumentError("scan: from is after to (from == to is the empty range)");
  }
  std::vector<std::unique_ptr<lsmbloom::TableIterator>> children;
  std::vector<std::string> names;
  children.push_back(mem_.NewIterator());
  names.push_back("memtable");
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) {
      // Files wholly outside the range add nothing but a seek.
      if (f.table->largest_user_key() < range.from) continue;
      if (!range.to.empty() && f.table->smallest_user_key() >= range.to) continue;
      children.push_back(f.table->NewIterator());
      names.push_back(TableFileName(dir_, f.file_number));
    }
  }
  MergingIterator merged(std::move(children), std::move(names));
  size_t skipped = 0;
  if (range.on_damaged_block != nullptr) {
    merged.SkipDamagedBlocks([&](const absl::Status& damage) {
      ++skipped;
      range.on_damaged_block(damage);
    });
  }
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
  if (!merged.status().ok()) return merged.status();
  if (skipped > 0) {
    return absl::DataLossError(absl::StrCat("skipped ", skipped,
                                            " damaged data block(s): the scan is incomplete"));
  }
  return absl::OkStatus();
}

absl::Status Store::Close() {
  if (lock_ == nullptr) return absl::OkStatus();
  absl::Status s = options_.read_only ? absl::OkStatus() : Flush();
  if (!s.ok()) return s;
  wal_.reset();  // Syncs (unless the policy is never) and closes.
  lock_.reset();
  return absl::OkStatus();
}

absl::StatusOr<Store::NewTable> Store::StartTable(const lsmbloom::TableOptions& options) {
  NewTable table;
  table.number = next_file_number_++;
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> file =
      NewAtomicFile(env_, TableFileName(dir_, table.number));
  if (!file.ok()) return file.status();
  table.builder = std::make_unique<lsmbloom::TableBuilder>(options, *std::move(file));
  return table;
}

absl::StatusOr<TableFile> Store::FinishTable(int level, NewTable table) {
  absl::Status s = table.builder->Finish();  // Syncs, then renames into place.
  table.builder.reset();
  if (!s.ok()) return s;
  absl::StatusOr<TableFile> file = OpenTable(level, table.number);
  if (!file.ok()) env_->RemoveFile(TableFileName(dir_, table.number)).IgnoreError();
  return file;
}

absl::StatusOr<TableFile> Store::OpenTable(int level, uint64_t number) const {
  absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> file =
      env_->NewRandomAccessFile(TableFileName(dir_, number), options_.direct_reads
                                                               ? lsmbloom::FileAccess::kDirect
                                                           : options_.use_mmap
                                                               ? lsmbloom::FileAccess::kMmap
                                                               : lsmbloom::FileAccess::kPread);
  if (!file.ok()) return file.status();
  // The built-in policies, plus ours in case it is a custom one; the last
  // of a name wins.
  lsmbloom::TableReadOptions read_options;
  read_options.block_cache = options_.block_cache;
  read_options.filter_policies = lsmbloom::BuiltinFilterPolicies();
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
  absl::Status s = env_->SyncDir(dir_);
  if (s.ok()) s = tables_.Apply(edit);
  if (!s.ok()) return s;
  s = SaveManifest();
  if (!s.ok()) {
    // Lookups keep seeing what the MANIFEST said before. Undoing an edit
    // that just applied cannot fail.
    tables_.Apply(undo).IgnoreError();
    // But the new MANIFEST may be the one on disk (its rename done, the
    // directory sync failed), naming a log that writes no longer go to: a
    // write acknowledged now could be lost at the next open. A MANIFEST
    // written from memory (the next flush) makes the two agree again.
    if (write_error_.ok()) {
      write_error_ = absl::Status(
          s.code(), absl::StrCat("MANIFEST update failed; reopen the store: ", s.message()));
    }
  }
  return s;
}

absl::Status Store::SaveManifest() const {
  Manifest manifest;
  manifest.next_file_number = next_file_number_;
  manifest.last_sequence = last_sequence_;
  manifest.log_number = log_number_;
  manifest.ribbon_from_level = ribbon_from_level_;
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) {
      manifest.files.push_back(
          {f.level, f.file_number, f.table->file_size(), f.table->unique_id()});
    }
  }
  return WriteManifest(dir_, manifest, env_);
}

void Store::RemoveTables(const std::vector<TableFile>& files) const {
  // Lookups still using one keep reading it: unlinking an open file is fine.
  for (const TableFile& f : files) {
    env_->RemoveFile(TableFileName(dir_, f.file_number)).IgnoreError();
  }
}

const char* StoreStageName(StoreStage stage) {
  switch (stage) {
    case StoreStage::kIdle:
      return "idle";
    case StoreStage::kLogAppend:
      return "log append";
    case StoreStage::kFlush:
      return "flush";
    case StoreStage::kCompaction:
      return "compaction";
  }
  return "?";
}

}  // namespace kvstore