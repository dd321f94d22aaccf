// Opening a store: the MANIFEST's tables, then the write-ahead logs that
// hold what the tables do not, then the removal of what nothing refers to.

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "file_util.h"
#include "filenames.h"
#include "manifest.h"
#include "store.h"
#include "wal.h"
#include "write_batch.h"

namespace kvstore {

using lsmbloom::TableFile;

absl::Status Store::Recover() {
  absl::StatusOr<std::vector<std::string>> names = env_->ListDir(dir_);
  if (!names.ok()) return names.status();
  absl::StatusOr<Manifest> manifest = ReadManifest(dir_, env_);
  if (absl::IsNotFound(manifest.status()) && options_.read_only) {
    return absl::NotFoundError(absl::StrCat(dir_, ": no store here (no MANIFEST)"));
  }
  if (absl::IsNotFound(manifest.status())) {
    // A new store, unless table or log files say there was one: never
    // start over on top of data whose MANIFEST went missing.
    for (const std::string& name : *names) {
      const FileKind kind = ParseFileName(name).kind;
      if (kind == FileKind::kTable || kind == FileKind::kLog) {
        return absl::DataLossError(
            absl::StrCat(dir_, " holds table or log files (", name,
                         ") but no MANIFEST; not creating a store over them"));
      }
    }
    ribbon_from_level_ = options_.ribbon_from_level.value_or(-1);
    absl::Status s = SaveManifest();
    if (!s.ok()) return s;
    RemoveLeftovers(*names);  // Temporaries of an earlier attempt.
    return StartLog();
  }
  if (!manifest.ok()) {
    return absl::Status(manifest.status().code(),
                        absl::StrCat(dir_, ": ", manifest.status().message()));
  }
  next_file_number_ = manifest->next_file_number;
  last_sequence_ = manifest->last_sequence;
  log_number_ = manifest->log_number;
  ribbon_from_level_ = options_.ribbon_from_level.value_or(manifest->ribbon_from_level);

  lsmbloom::VersionEdit edit;
  for (const ManifestFile& f : manifest->files) {
    absl::StatusOr<TableFile> file = OpenTable(f.level, f.number);
    if (!file.ok()) {
      return absl::DataLossError(absl::StrCat("MANIFEST lists ", TableFileName(dir_, f.number),
                                              ": ", file.status().message()));
    }
    // A valid table, but is it this one? A restore gone wrong can leave an
    // older generation or another file under the name, which would answer
    // with stale values and bring deleted keys back.
    const lsmbloom::Table& table = *file->table;
    if (f.recorded() && (table.file_size() != f.file_size || table.unique_id() != f.unique_id)) {
      return absl::DataLossError(absl::StrFormat(
          "%s is not the table the MANIFEST lists at level %d (size %d, id %016x): it has size "
          "%d, id %016x (replaced by another table?)",
          TableFileName(dir_, f.number), f.level, f.file_size, f.unique_id, table.file_size(),
          table.unique_id()));
    }
    // The library checks the same again as the set takes the file.
    file->expected_unique_id = f.unique_id;
    file->expected_file_size = f.file_size;
    edit.added.push_back(*std::move(file));
  }
  absl::Status s = tables_.Apply(edit);
  if (!s.ok()) return absl::DataLossError(absl::StrCat("MANIFEST: ", s.message()));
  // A new choice of filter is recorded now, so that the next open keeps it
  // even if nothing is written before.
  if (!options_.read_only && ribbon_from_level_ != manifest->ribbon_from_level) {
    s = SaveManifest();
    if (!s.ok()) return s;
  }

  // Logs the MANIFEST does not rule out, oldest first. A log is created
  // before the MANIFEST that counts past its number is written, so make
  // sure new files do not reuse it.
  std::vector<uint64_t> logs;
  for (const std::string& name : *names) {
    const ParsedFileName parsed = ParseFileName(name);
    if (parsed.kind != FileKind::kLog) continue;
    next_file_number_ = std::max(next_file_number_, parsed.number + 1);
    if (parsed.number >= log_number_) logs.push_back(parsed.number);
  }
  std::sort(logs.begin(), logs.end());
  for (uint64_t number : logs) {
    s = ReplayLog(number);
    if (!s.ok()) return s;
  }
  // A reader changes nothing: the logs stay for the next writer to fold.
  if (options_.read_only) return absl::OkStatus();
  RemoveLeftovers(*names);
  if (logs.empty()) return StartLog();
  // Go on appending to the newest log; older ones (left by a flush that
  // did not finish) go with the next flush.
  absl::StatusOr<std::unique_ptr<WalWriter>> log =
      WalWriter::Open(LogFileName(dir_, logs.back()), options_.wal_sync, env_);
  if (!log.ok()) return log.status();
  wal_ = *std::move(log);
  wal_number_ = logs.back();
  if (logs.size() > 1 || mem_.ApproximateBytes() >= options_.memtable_max_bytes) {
    return Flush();
  }
  return absl::OkStatus();
}

absl::Status Store::ReplayLog(uint64_t number) {
  const std::string path = LogFileName(dir_, number);
  WriteBatch batch;
  absl::StatusOr<WalReplayReport> report = ReplayWal(path, [&](std::string_view payload) {
    absl::Status s = batch.SetContents(payload);
    if (!s.ok()) return s;
    if (batch.sequence() + batch.count() - 1 > lsmbloom::kMaxSequenceNumber) {
      return absl::DataLossError("sequence numbers out of range");
    }
    s = batch.ForEach([&](uint64_t sequence, lsmbloom::EntryType type, std::string_view key,
                          std::string_view value) {
      mem_.Add(key, sequence, type, value);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    last_sequence_ = std::max(last_sequence_, batch.sequence() + batch.count() - 1);
    return absl::OkStatus();
  }, env_);
  if (!report.ok()) return report.status();
  std::string note =
      absl::StrFormat("%06d.log: replayed %d write batches", number, report->records);
  if (report->dropped_bytes > 0) {
    absl::StrAppendFormat(&note, "; dropped a torn tail of %d bytes (%s)", report->dropped_bytes,
                          report->tail_problem);
    if (options_.read_only) {
      note += ", left in the log (read-only)";
      recovery_notes_.push_back(note);
      return absl::OkStatus();
    }
    // Appends must follow the last intact record, or the next replay
    // would find the torn one in the middle of the log.
    absl::Status s = env_->TruncateFile(path, report->valid_bytes);
    if (!s.ok()) return s;
  }
  if (report->records > 0 || report->dropped_bytes > 0) recovery_notes_.push_back(note);
  return absl::OkStatus();
}

absl::Status Store::StartLog() {
  const uint64_t number = next_file_number_++;
  absl::StatusOr<std::unique_ptr<WalWriter>> log =
      WalWriter::Open(LogFileName(dir_, number), options_.wal_sync, env_);
  if (!log.ok()) return log.status();
  wal_ = *std::move(log);
  wal_number_ = number;
  // The log must be found after a crash: its directory entry must be durable.
  return env_->SyncDir(dir_);
}

void Store::RemoveLeftovers(const std::vector<std::string>& names) {
  std::vector<uint64_t> live;
  for (const auto& level : tables_.files()) {
    for (const TableFile& f : level) live.push_back(f.file_number);
  }
  for (const std::string& name : names) {
    const ParsedFileName parsed = ParseFileName(name);
    const bool dead_table = parsed.kind == FileKind::kTable &&
                            std::find(live.begin(), live.end(), parsed.number) == live.end();
    const bool dead_log = parsed.kind == FileKind::kLog && parsed.number < log_number_;
    if (dead_table || dead_log || parsed.kind == FileKind::kTemp) {
      // One that cannot go now is retried at the next Open; its number may
      // be reused meanwhile, which overwrites it.
      env_->RemoveFile(absl::StrCat(dir_, "/", name)).IgnoreError();
    }
  }
}

void Store::RemoveObsoleteLogs() {
  absl::StatusOr<std::vector<std::string>> names = env_->ListDir(dir_);
  if (!names.ok()) return;  // Open() retries.
  for (const std::string& name : *names) {
    const ParsedFileName parsed = ParseFileName(name);
    if (parsed.kind == FileKind::kLog && parsed.number < log_number_) {
      env_->RemoveFile(absl::StrCat(dir_, "/", name)).IgnoreError();
    }
  }
}

}  // namespace kvstore
