#include "ldb.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "escape.h"
#include "file_util.h"
#include "filenames.h"
#include "lsmbloom/inspect/inspect.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "manifest.h"
#include "wal.h"
#include "write_batch.h"

namespace kvstore {
namespace {

using lsmbloom::LookupResult;

std::string Quote(std::string_view bytes) {
  return absl::StrCat("\"", absl::StrReplaceAll(Escape(bytes), {{"\"", "\\x22"}}), "\"");
}

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

void Print(std::FILE* out, std::string_view text) { std::fwrite(text.data(), 1, text.size(), out); }

absl::StatusOr<std::unique_ptr<lsmbloom::Table>> OpenTableFile(const std::string& path) {
  absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> file = lsmbloom::OpenPosixFile(path);
  if (!file.ok()) return file.status();
  lsmbloom::TableReadOptions options;
  options.filter_policies = lsmbloom::BuiltinFilterPolicies();
  return lsmbloom::Table::Open(*std::move(file), options);
}

// "sequence 3..17", read from every entry; or the error that stopped it.
std::string SequenceRange(const lsmbloom::Table& table, absl::Status* status) {
  uint64_t low = UINT64_MAX, high = 0;
  auto it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    low = std::min(low, it->entry().sequence);
    high = std::max(high, it->entry().sequence);
  }
  if (!it->status().ok()) {
    *status = it->status();
    return absl::StrCat("sequence ?: ", it->status().message());
  }
  return low > high ? "no entries" : absl::StrCat("sequence ", low, "..", high);
}

}  // namespace

absl::Status DumpManifest(const std::string& dir, std::FILE* out) {
  absl::Status exists = EnsureDir(dir, /*create=*/false);
  if (!exists.ok()) return exists;
  absl::StatusOr<Manifest> manifest = ReadManifest(dir);
  if (!manifest.ok()) {
    return absl::Status(manifest.status().code(),
                        absl::StrCat(ManifestPath(dir), ": ", manifest.status().message()));
  }
  Print(out, absl::StrFormat("%s: version %d%s\nnext_file_number %d\nlast_sequence %d\n"
                             "log_number %d (logs below it are in tables)\n",
                             ManifestPath(dir), manifest->version,
                             manifest->version == 1 ? " (no table sizes or ids recorded)" : "",
                             manifest->next_file_number, manifest->last_sequence,
                             manifest->log_number));
  if (manifest->ribbon_from_level >= 0) {
    Print(out, absl::StrFormat("ribbon_from_level %d (new tables of levels %d and deeper get "
                               "Ribbon filters)\n",
                               manifest->ribbon_from_level, manifest->ribbon_from_level));
  }
  absl::Status first_error;
  for (int level = 0; level < lsmbloom::kNumLevels; ++level) {
    std::vector<ManifestFile> files;
    for (const ManifestFile& f : manifest->files) {
      if (f.level == level) files.push_back(f);
    }
    if (files.empty()) continue;
    Print(out, absl::StrFormat("level %d: %d file%s\n", level, files.size(),
                               files.size() == 1 ? "" : "s"));
    for (const ManifestFile& f : files) {
      const std::string path = TableFileName(dir, f.number);
      std::string line = absl::StrCat("  ", BaseName(path));
      if (f.recorded()) {
        absl::StrAppendFormat(&line, "  size %d  id %016x", f.file_size, f.unique_id);
      }
      absl::Status s;
      absl::StatusOr<std::unique_ptr<lsmbloom::Table>> table = OpenTableFile(path);
      if (!table.ok()) {
        s = table.status();
        absl::StrAppend(&line, "  ERROR: ", s.message());
      } else {
        const lsmbloom::Table& t = **table;
        if (!f.recorded()) {
          absl::StrAppendFormat(&line, "  size %d  id %016x (found; not recorded)", t.file_size(),
                                t.unique_id());
        } else if (t.file_size() != f.file_size || t.unique_id() != f.unique_id) {
          s = absl::DataLossError("not the table the MANIFEST lists");
          absl::StrAppendFormat(&line, "  ERROR: the file has size %d, id %016x (replaced?)",
                                t.file_size(), t.unique_id());
        }
        absl::StrAppendFormat(&line, "\n      keys %s .. %s  entries %d (%d deletions)  %s",
                              Quote(t.smallest_user_key()), Quote(t.largest_user_key()),
                              t.num_entries(), t.properties().num_deletions,
                              SequenceRange(t, &s));
      }
      if (!s.ok() && first_error.ok()) {
        first_error = absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
      }
      Print(out, line + "\n");
    }
  }
  return first_error;
}

absl::Status DumpWal(const std::string& path, std::FILE* out) {
  Print(out, path + "\n");
  uint64_t offset = 0, ops = 0, first_sequence = 0, last_sequence = 0;
  WriteBatch batch;
  absl::StatusOr<WalReplayReport> report = ReplayWal(path, [&](std::string_view payload) {
    const uint64_t at = offset;
    offset += kWalHeaderSize + payload.size();
    absl::Status s = batch.SetContents(payload);
    if (!s.ok()) return absl::DataLossError(absl::StrCat("record at offset ", at, ": ", s.message()));
    if (first_sequence == 0) first_sequence = batch.sequence();
    last_sequence = batch.sequence() + batch.count() - 1;
    ops += batch.count();
    Print(out, absl::StrFormat("  @%d sequence %d, %d op%s\n", at, batch.sequence(), batch.count(),
                               batch.count() == 1 ? "" : "s"));
    return batch.ForEach(
        [&](uint64_t, lsmbloom::EntryType type, std::string_view key, std::string_view value) {
          Print(out, type == lsmbloom::EntryType::kDeletion
                         ? absl::StrCat("    delete\t", Escape(key), "\n")
                         : absl::StrCat("    put\t", Escape(key), "\t", Escape(value), "\n"));
          return absl::OkStatus();
        });
  });
  if (!report.ok()) {
    Print(out, absl::StrCat("  ERROR: ", report.status().message(), "\n"));
    return absl::Status(report.status().code(),
                        absl::StrCat(path, ": ", report.status().message()));
  }
  std::string summary = absl::StrFormat("  %d records, %d ops", report->records, ops);
  if (report->records > 0) {
    absl::StrAppendFormat(&summary, ", sequences %d..%d", first_sequence, last_sequence);
  }
  if (report->dropped_bytes > 0) {
    absl::StrAppendFormat(&summary, "; torn tail: %d bytes after offset %d (%s)",
                          report->dropped_bytes, report->valid_bytes, report->tail_problem);
  }
  Print(out, summary + "\n");
  return absl::OkStatus();
}

absl::Status DumpWals(const std::string& dir, std::FILE* out) {
  absl::Status exists = EnsureDir(dir, /*create=*/false);
  if (!exists.ok()) return exists;
  absl::StatusOr<Manifest> manifest = ReadManifest(dir);
  if (!manifest.ok()) return manifest.status();
  absl::StatusOr<std::vector<std::string>> names = ListDir(dir);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> logs;
  for (const std::string& name : *names) {
    const ParsedFileName parsed = ParseFileName(name);
    if (parsed.kind == FileKind::kLog && parsed.number >= manifest->log_number) {
      logs.push_back(parsed.number);
    }
  }
  std::sort(logs.begin(), logs.end());
  if (logs.empty()) Print(out, "no logs to replay\n");
  absl::Status first_error;
  for (uint64_t number : logs) {
    absl::Status s = DumpWal(LogFileName(dir, number), out);
    if (first_error.ok()) first_error = s;
  }
  return first_error;
}

absl::Status ExplainLookup(const Store& store, std::string_view key, std::FILE* out) {
  Print(out, absl::StrCat("lookup ", Quote(key), " in ", store.dir(), "\n"));
  std::string answer;  // Empty until a place answers.
  if (const MemTable::Entry* e = store.FindInMemtable(key)) {
    answer = e->type == lsmbloom::EntryType::kDeletion
                 ? absl::StrCat("deleted (sequence ", e->sequence, ") in the memtable")
                 : absl::StrCat("found ", Quote(e->value), " (sequence ", e->sequence,
                                ") in the memtable");
    Print(out, "memtable: has the key\n");
  } else {
    Print(out, "memtable: no entry\n");
  }
  const auto levels = store.files();
  for (int level = 0; level < lsmbloom::kNumLevels && answer.empty(); ++level) {
    const std::vector<lsmbloom::TableFile>& files = levels[level];
    if (files.empty()) continue;
    Print(out, absl::StrFormat("level %d: %d file%s%s\n", level, files.size(),
                               files.size() == 1 ? "" : "s",
                               level == 0 ? ", newest first" : ", one at most holds the key"));
    bool any_in_range = false;
    for (const lsmbloom::TableFile& f : files) {
      const lsmbloom::Table& t = *f.table;
      const bool in_range = t.smallest_user_key() <= key && key <= t.largest_user_key();
      // Deeper levels' files do not overlap: the others are never looked at.
      if (!in_range && level > 0) continue;
      any_in_range |= in_range;
      std::string line = absl::StrFormat("  %06d.sst  keys %s .. %s: ", f.file_number,
                                         Quote(t.smallest_user_key()), Quote(t.largest_user_key()));
      if (!in_range) {
        Print(out, line + "range rules it out\n");
        continue;
      }
      absl::StatusOr<LookupResult> found = lsmbloom::GetUnfiltered(t, key);
      if (!found.ok()) {
        return absl::Status(found.status().code(),
                            absl::StrCat(TableFileName(store.dir(), f.file_number), ": ",
                                         found.status().message()));
      }
      const bool has = found->kind != LookupResult::Kind::kNotFound;
      const bool filtered = t.whole_key_filter() != nullptr;
      if (!filtered) {
        absl::StrAppend(&line, "in range; no filter (", t.filter_status().message(), ")");
      } else if (!t.KeyMayMatch(key)) {
        // Get skips the file: a false negative would lose the key.
        absl::StrAppend(&line, "in range; filter rules it out",
                        has ? " (WRONG: the file has the key)" : "");
        Print(out, line + "\n");
        continue;
      } else {
        absl::StrAppend(&line, "in range; filter: may match");
      }
      absl::StrAppend(&line, "; read: ",
                      has ? "has the key" : filtered ? "not here (a false positive)" : "not here");
      Print(out, line + "\n");
      if (found->kind == LookupResult::Kind::kFound) {
        answer = absl::StrFormat("found %s (sequence %d) in %06d.sst", Quote(found->value),
                                 found->sequence, f.file_number);
        break;
      }
      if (found->kind == LookupResult::Kind::kDeleted) {
        answer = absl::StrFormat("deleted (sequence %d) in %06d.sst", found->sequence,
                                 f.file_number);
        break;
      }
    }
    if (level > 0 && !any_in_range) Print(out, "  no file's range holds the key\n");
  }
  if (answer.empty()) answer = "not found";
  Print(out, absl::StrCat("answer: ", answer, "\n"));
  // The explanation must be what Get does.
  absl::StatusOr<std::optional<std::string>> got = store.Get(key);
  if (!got.ok()) return got.status();
  const bool found = answer.rfind("found", 0) == 0;
  if (got->has_value() != found) {
    return absl::InternalError("the explanation disagrees with Get");
  }
  return absl::OkStatus();
}

}  // namespace kvstore
