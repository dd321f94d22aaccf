// An in-memory file system for tests that knows what a power failure
// would keep, as LevelDB's and RocksDB's fault-injection test Envs do.
//
// Each file has the bytes reads see (the page cache) and the bytes that are
// durable: the file's contents at its last successful sync. Each directory
// has the names lookups see and the names that are durable: its entries at
// its last sync, plus the creations, renames and removals made since, in
// order, not yet durable. PowerFailure() throws away what is not durable:
//
//   - A directory whose own name was never synced into its parent goes,
//     with everything in it. Every other directory goes back to its
//     durable names, and with `keep_some_unsynced` also keeps a random
//     prefix of the operations since its last sync (a journaling file
//     system commits metadata in order, and may have committed some).
//   - Every file goes back to its durable bytes, and with
//     `keep_some_unsynced`, if it only grew since, also keeps a random
//     prefix of the bytes appended since (written back early).
//
// FailNextSync() makes a sync fail the way Linux's fsync does after a
// writeback error (EIO): the bytes not yet durable stay readable but are
// marked written, so a later sync succeeds without them, and they read as
// zeros after a power failure. A store that retried the sync and went on
// would lose acknowledged writes and show it.
//
// StopAfter(n) stops the machine at an operation: the n+1-th operation that
// changes something (an append, sync, create, rename, removal or
// truncation) and every one after it fail, as for a program whose machine
// lost power mid-operation. Destroy the program's objects, then call
// PowerFailure() to restart the file system.
//
// Thread-safe.

#ifndef KVSTORE_FAULT_INJECTION_ENV_H_
#define KVSTORE_FAULT_INJECTION_ENV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "env.h"

namespace kvstore {

class FaultInjectionEnv : public Env {
 public:
  FaultInjectionEnv();  // An empty file system with its root "/".
  ~FaultInjectionEnv() override;

  absl::Status EnsureDir(const std::string& dir, bool create) override;
  bool FileExists(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) override;
  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override;
  absl::Status RemoveFile(const std::string& path) override;
  absl::Status RenameFile(const std::string& from, const std::string& to) override;
  absl::Status TruncateFile(const std::string& path, uint64_t size) override;
  absl::Status SyncDir(const std::string& dir) override;
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewAppendableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> NewRandomAccessFile(
      const std::string& path, lsmbloom::FileAccess access) override;
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path,
                                                     bool shared) override;

  // Stops the machine after `ops` more changing operations (see above);
  // -1: never (the default).
  void StopAfter(int64_t ops);
  bool stopped() const;
  // The operation that found the machine stopped ("append /s/000007.log"),
  // or empty.
  std::string stopped_at() const;

  // Drops what is not durable (see above), using `rng` for what survives
  // when `keep_some_unsynced`, and restarts a stopped machine. REQUIRES: no
  // file or lock of this Env is still open.
  void PowerFailure(std::mt19937_64& rng, bool keep_some_unsynced);

  // The next sync of a file or directory whose path ends with `suffix`
  // fails with EIO, once (see above).
  void FailNextSync(const std::string& suffix);

  // Successful syncs so far of files whose path ends with `suffix`.
  uint64_t SyncsOf(const std::string& suffix) const;

  // The durable bytes of `path` (what a power failure now would leave, if
  // its name survives); NotFound if it has none.
  absl::StatusOr<std::string> DurableContents(const std::string& path) const;

 private:
  struct Inode;
  struct Dir;
  struct DirOp;
  class File;
  class Lock;

  // Counts a changing operation; an error once the machine is stopped.
  absl::Status Change(const char* op, const std::string& path);
  // Reads are refused too once the machine is stopped.
  absl::Status Running(const char* op, const std::string& path) const;
  // The directory holding `path` and the name in it, or an error.
  absl::StatusOr<Dir*> DirOf(const std::string& path, std::string* name);
  std::shared_ptr<Inode> Find(const std::string& path) const;
  // A sync of `path` (whose bytes are `inode`, if a file): fails if asked to.
  bool SyncFails(const std::string& path);
  void SyncInode(Inode& inode);
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> OpenFile(const std::string& path,
                                                                    bool truncate);

  mutable std::mutex mu_;
  std::map<std::string, Dir> dirs_;  // By path, without a trailing '/'.
  std::map<std::string, int> locks_;  // Path: -1 held exclusively, else sharers.
  int64_t ops_left_ = -1;
  bool stopped_ = false;
  std::string stopped_at_;
  std::vector<std::string> failing_syncs_;
  std::map<std::string, uint64_t> syncs_;  // By path.
};

}  // namespace kvstore

#endif  // KVSTORE_FAULT_INJECTION_ENV_H_
