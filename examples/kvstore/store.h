// A small LSM key-value store on lsmbloom's public API.
//
// Writes are appended to a write-ahead log (wal.h), synced as
// StoreOptions::wal_sync says, then applied to a memtable (the newest entry
// of each key) under increasing sequence numbers. Flush() writes the
// memtable out as a level-0 table file and starts a new log; the old one is
// deleted once the MANIFEST lists the table. When level 0 holds l0_compaction_trigger files, they
// are merged with the overlapping level-1 files into new level-1 files; a level >= 1 over its size
// budget pushes one file down a level the same way. Get() asks the memtable, then an
// lsmbloom::TableSet, whose filters spare reads of tables that do not have the key.
//
// The directory holds NNNNNN.sst table files, NNNNNN.log write-ahead
// logs, the MANIFEST (manifest.h) that lists the live tables and the first
// log to replay, and a LOCK file that keeps a second Store, in this process
// or another, from opening it at the same time (filenames.h). Open()
// replays the logs into the memtable; a torn record at the end of a log
// (a crash mid-write) ends the replay there and is reported in
// recovery_notes(), while damage followed by intact records fails Open().
// Every file operation goes through StoreOptions::env (env.h), so tests
// can simulate power failures and failing syncs.
//
// Not thread-safe.

#ifndef KVSTORE_STORE_H_
#define KVSTORE_STORE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "env.h"
#include "file_util.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/options.h"
#include "lsmbloom/table/table_builder.h"
#include "memtable.h"
#include "wal.h"
#include "write_batch.h"

namespace kvstore {

// What a store is doing, for StoreOptions::on_stage.
enum class StoreStage {
  kIdle,
  kLogAppend,   // Appending a write to the log, and syncing it.
  kFlush,       // Writing the memtable to a table and installing it.
  kCompaction,  // Merging tables into the next level and installing them.
};

// "idle", "log append", "flush" or "compaction".
const char* StoreStageName(StoreStage stage);

struct StoreOptions {
  // Create the directory (not its parents) and an empty store if missing.
  bool create_if_missing = true;
  // Flush once the memtable holds about this many bytes (keys, values and
  // a per-entry overhead; MemTable::ApproximateBytes).
  size_t memtable_max_bytes = 4 << 20;
  // Merge level 0 into level 1 once it has this many files.
  int l0_compaction_trigger = 4;
  // Compaction starts a new output file after about this many bytes.
  uint64_t target_file_size = 2 << 20;
  // The size budget of level 1; each deeper level gets
  // level_size_multiplier times the one above. The last level has none.
  uint64_t level1_max_bytes = 10 << 20;
  int level_size_multiplier = 10;
  // How table files are written (block size, filter policy, compression).
  lsmbloom::TableOptions table_options;
  // Filter memory across levels (lsmbloom/lookup/filter_budget.h). If > 0, every
  // new table gets a blocked Bloom filter with the bits/key that
  // AllocateFilterMemory gives its level for this many bits per entry of
  // the whole store, recomputed from the levels' sizes at each flush and
  // compaction (tables already written keep theirs until compaction
  // rewrites them); a level allotted 0 bits/key gets no filter, and
  // table_options.filter_policy is used only to read. 0 (the default): every
  // table gets table_options.filter_policy.
  double filter_budget_bits_per_key = 0;
  // Fixed filter bits/key per level: entry i for the tables of level i, the
  // last entry for all deeper levels; 0 writes no filter there. Empty (the
  // default): table_options.filter_policy everywhere. Ignored when
  // filter_budget_bits_per_key is set.
  std::vector<double> level_bits_per_key;
  // New tables of this level and deeper get Ribbon filters
  // (lsmbloom/filter/ribbon_policy.h) instead of blocked Bloom ones: of the
  // FPR the level's bits/key gives a blocked filter (10 bits/key when none
  // is set), in about 30% less memory. 0: every level; -1: none. Recorded
  // in the MANIFEST; nullopt (the default) keeps what it records (none for
  // a new store). Tables already written keep their filters until
  // compaction rewrites them; every kind stays readable.
  std::optional<int> ribbon_from_level;
  // When the write-ahead log is synced: before each write returns (the
  // default), every so often, or never (wal.h).
  WalSync wal_sync;
  // How lookups use the filters.
  lsmbloom::LookupOptions lookup_options;
  // Read table files through mmap rather than pread.
  bool use_mmap = false;
  // Read table files with direct reads (O_DIRECT: past the page cache, for
  // data larger than memory) instead, through `block_cache` if set; where
  // the file system refuses O_DIRECT, opening a table fails naming it.
  bool direct_reads = false;
  // Caches data blocks of tables read with pread or direct reads, shared by
  // all of them (lsmbloom/table/block_cache.h). Null: none.
  std::shared_ptr<lsmbloom::BlockCache> block_cache;
  // Open to read only: Get, Scan and the accessors work; writes, Flush and
  // compactions fail with FailedPrecondition. Nothing in the directory is
  // created, changed or removed, so a read-only directory will do: the
  // logs are replayed into memory only (a torn tail is reported but left
  // in place), and the store takes a shared lock (none if the LOCK file
  // cannot be opened), so readers share it while a writer excludes them.
  // create_if_missing is ignored.
  bool read_only = false;
  // The file system every file of the store goes through (env.h); null
  // is Env::Default(), POSIX. Must outlive the store.
  Env* env = nullptr;
  // Instrumentation for tests that stop the store at an arbitrary moment
  // (a kill, a power failure) and count where they stopped it: called with
  // each stage as it begins, and with the stage it returns to as it ends.
  // Null: not called.
  std::function<void(StoreStage)> on_stage;
};

class Store {
 public:
  // InvalidArgument for bad options; NotFound if there is no store and
  // !create_if_missing (or read_only); Unavailable if the store is open
  // elsewhere (for writing, when read_only); DataLoss if the MANIFEST or a
  // table it lists is unreadable, or a table is not the one it lists.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& dir,
                                                     const StoreOptions& options = StoreOptions());

  // Does not flush: call Close() to keep the memtable.
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // A write is in the log, and so survives the process, once these return
  // OK; durable against power loss as wal_sync says. An error from the
  // flush a write may trigger leaves the write in the memtable and the log.
  // After a failed log write or sync (the kInterval thread's too), or a
  // MANIFEST update that may have half happened, every later write fails
  // with that error (write_error()): reopen the store. Flush and Close
  // still work, and write the memtable to a table.
  absl::Status Put(std::string_view key, std::string_view value);
  absl::Status Delete(std::string_view key);
  // Applies all of `batch` or, after a crash, none of it. Sets its
  // sequence number.
  absl::Status Write(WriteBatch& batch);

  // The value of `key`, or nullopt if it has none (never written, or
  // deleted). An error only if a table could not be read.
  absl::StatusOr<std::optional<std::string>> Get(std::string_view key) const;

  // Writes the memtable to a level-0 file (if it has anything), then runs
  // the compactions that makes due.
  absl::Status Flush();

  // Calls visit(key, value) for the live keys in [from, to) in ascending
  // order, with each key's newest value; deleted keys are skipped. An empty
  // `to` means no upper bound; from > to (not empty) is InvalidArgument,
  // from == to an empty range. Stops after `limit` keys (0: no limit) or
  // when visit returns false. An error (DataLoss naming the file and
  // offset) if a table could not be read: the scan stops there, having
  // visited exactly the keys before the damage.
  struct ScanRange {
    std::string from;
    std::string to;
    size_t limit = 0;
    // Salvage: if set, a damaged data block does not end the scan; it is
    // reported here (DataLoss naming the file and offset), its keys are
    // missing from the scan (they may be older versions too: a key can come
    // back with a value its damaged block had replaced), and the rest is
    // visited. Scan then still returns DataLoss, counting the blocks
    // skipped. Damage past which nothing can be found (an index) ends the
    // scan as without this.
    std::function<void(const absl::Status&)> on_damaged_block;
  };
  absl::Status Scan(
      const ScanRange& range,
      const std::function<bool(std::string_view key, std::string_view value)>& visit) const;

  // Flushes, then merges every level down into the deepest non-empty one
  // (level 1 at least), which then holds each key once.
  absl::Status CompactAll();

  // Merges all of `level` and the overlapping files of level + 1 into
  // level + 1 now, whatever the triggers say. REQUIRES: 0 <= level <
  // lsmbloom::kNumLevels - 1.
  absl::Status CompactLevel(int level);

  // Flushes (unless read-only) and releases the directory. Later calls
  // fail, except Close().
  // On error the store stays open, so Close() may be retried.
  absl::Status Close();

  // The live files per level, in search order.
  std::vector<std::vector<lsmbloom::TableFile>> files() const { return tables_.files(); }
  lsmbloom::LookupStats lookup_stats() const { return tables_.stats(); }
  void ResetLookupStats() { tables_.ResetStats(); }
  uint64_t last_sequence() const { return last_sequence_; }
  size_t memtable_entries() const { return mem_.size(); }
  size_t memtable_bytes() const { return mem_.ApproximateBytes(); }
  const std::string& dir() const { return dir_; }
  // The memtable's entry for `key` (a value or a tombstone), or null; for
  // tools that show where an answer comes from.
  const MemTable::Entry* FindInMemtable(std::string_view key) const { return mem_.Find(key); }
  // Why writes are refused (see Put), or OK: a failed log write or sync,
  // including a background sync no write has yet run into, or a failed
  // MANIFEST update.
  absl::Status write_error() const;
  // What Open() replayed from each log, and any torn tail it dropped.
  const std::vector<std::string>& recovery_notes() const { return recovery_notes_; }
  // The first level whose new tables get Ribbon filters (-1: none), as
  // StoreOptions::ribbon_from_level or the MANIFEST set it.
  int ribbon_from_level() const { return ribbon_from_level_; }

 private:
  // A table file being written; it appears under its name only once
  // finished.
  struct NewTable {
    uint64_t number = 0;
    std::unique_ptr<lsmbloom::TableBuilder> builder;
  };
  using Levels = std::vector<std::vector<lsmbloom::TableFile>>;
  // Tells on_stage about a stage for as long as it lives.
  class StageScope {
   public:
    StageScope(Store* store, StoreStage stage) : store_(store), outer_(store->stage_) {
      store_->SetStage(stage);
    }
    ~StageScope() { store_->SetStage(outer_); }
    StageScope(const StageScope&) = delete;
    StageScope& operator=(const StageScope&) = delete;

   private:
    Store* const store_;
    const StoreStage outer_;
  };
  void SetStage(StoreStage stage) {
    stage_ = stage;
    if (options_.on_stage != nullptr) options_.on_stage(stage);
  }

  Store(std::string dir, const StoreOptions& options, std::unique_ptr<FileLock> lock);

  absl::Status CheckOpen() const;
  // A TableSet error with the file's path in place of its number.
  absl::Status NameFile(const absl::Status& s) const;
  // CheckOpen, and not read-only.
  absl::Status CheckWritable() const;
  absl::Status Recover();
  // Replays one log into the memtable, truncating a torn tail.
  absl::Status ReplayLog(uint64_t number);
  // Opens a new, empty log for the writes to come.
  absl::Status StartLog();
  // Deletes table files the MANIFEST does not list, logs it rules out, and
  // temporaries.
  void RemoveLeftovers(const std::vector<std::string>& names);
  void RemoveObsoleteLogs();

  absl::Status MaybeCompact();
  // Merges `inputs` (files of `level`) and the overlapping files of level
  // + 1 into new files of level + 1. With `allow_move`, a single input that
  // overlaps nothing below is just relabelled.
  absl::Status Compact(int level, std::vector<lsmbloom::TableFile> inputs, bool allow_move);
  // The file of `level` whose turn it is to be pushed down.
  lsmbloom::TableFile PickFile(int level, const std::vector<lsmbloom::TableFile>& files);
  uint64_t MaxBytesForLevel(int level) const;

  // Table options for a new table of `level`, given the levels' entries
  // and files once the flush or compaction writing it is done.
  absl::StatusOr<lsmbloom::TableOptions> OptionsForLevel(
      int level, const std::vector<lsmbloom::LevelFilterShape>& shapes) const;
  absl::StatusOr<NewTable> StartTable(const lsmbloom::TableOptions& options);
  absl::StatusOr<lsmbloom::TableFile> FinishTable(int level, NewTable table);
  absl::StatusOr<lsmbloom::TableFile> OpenTable(int level, uint64_t number) const;
  // Replaces `removed` with `added`, in the TableSet and in the MANIFEST.
  // On error neither changes.
  absl::Status Install(const std::vector<lsmbloom::TableFile>& removed,
                       const std::vector<lsmbloom::TableFile>& added);
  absl::Status SaveManifest() const;
  // Removes files no longer in use. Failures are not errors: Open() removes
  // leftovers.
  void RemoveTables(const std::vector<lsmbloom::TableFile>& files) const;

  const std::string dir_;
  const StoreOptions options_;
  Env* const env_;
  std::unique_ptr<FileLock> lock_;  // Null once closed.
  lsmbloom::TableSet tables_;
  MemTable mem_;
  std::unique_ptr<WalWriter> wal_;  // Null once closed.
  uint64_t wal_number_ = 0;
  // Logs numbered below this are in tables; recorded in the MANIFEST.
  uint64_t log_number_ = 0;
  // StoreOptions::ribbon_from_level, resolved; recorded in the MANIFEST.
  int ribbon_from_level_ = -1;
  // Set by a failed log append or sync, or MANIFEST update; ends writing.
  absl::Status write_error_;
  StoreStage stage_ = StoreStage::kIdle;
  std::vector<std::string> recovery_notes_;
  uint64_t last_sequence_ = 0;
  uint64_t next_file_number_ = 1;
  // Per level, the largest key of the file last pushed down from it, so
  // that files take turns (not persisted: a reopened store starts over).
  std::array<std::optional<std::string>, lsmbloom::kNumLevels> compact_pointer_;
};

}  // namespace kvstore

#endif  // KVSTORE_STORE_H_
