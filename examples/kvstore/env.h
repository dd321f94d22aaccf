// The store's file system. Every file and directory operation the store
// makes (logs, tables, the MANIFEST, the LOCK file) goes through an Env, so
// that a test can put one in its place that keeps only what was synced and
// drops the rest at a simulated power failure, or fails a sync on demand
// (fault_injection_env.h). Env::Default() is the POSIX one.
//
// What "durable" means here is what POSIX promises and no more: a file's
// bytes survive a power failure once the file is synced; a name created,
// renamed or removed in a directory survives once the directory is synced.
//
// Thread safety: an Env's methods may be called from any thread. A file it
// returns is used by one thread at a time, except that Sync may run while
// Append does (the log's background sync).

#ifndef KVSTORE_ENV_H_
#define KVSTORE_ENV_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "file_util.h"
#include "lsmbloom/io/file.h"

namespace kvstore {

class Env {
 public:
  virtual ~Env() = default;

  // The POSIX file system. Never null; lives for the process.
  static Env* Default();

  // OK if `dir` is a directory. If it does not exist, creates it when
  // `create` (and syncs its parent, so that the new directory survives a
  // crash), else NotFound. InvalidArgument if it is something else.
  virtual absl::Status EnsureDir(const std::string& dir, bool create) = 0;
  virtual bool FileExists(const std::string& path) = 0;
  // The names in `dir`, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) = 0;
  virtual absl::StatusOr<uint64_t> GetFileSize(const std::string& path) = 0;
  virtual absl::Status RemoveFile(const std::string& path) = 0;
  // Replaces `to` (if any) with `from` in one step, as rename(2) does.
  virtual absl::Status RenameFile(const std::string& from, const std::string& to) = 0;
  // Cuts `path` to its first `size` bytes, durably.
  virtual absl::Status TruncateFile(const std::string& path, uint64_t size) = 0;
  // Makes the creations, renames and removals of entries in `dir` durable.
  virtual absl::Status SyncDir(const std::string& dir) = 0;

  // A new, empty file at `path` (an existing one is truncated). Close()
  // closes it; it is visible under `path` from the start.
  virtual absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewWritableFile(
      const std::string& path) = 0;
  // `path` opened to append at its end; created empty if missing.
  virtual absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewAppendableFile(
      const std::string& path) = 0;
  // `path` to read, the way `access` says where the Env can (an Env that
  // holds files in memory reads them from there whatever `access` says).
  virtual absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> NewRandomAccessFile(
      const std::string& path, lsmbloom::FileAccess access) = 0;

  // FileLock::Acquire (exclusive) or FileLock::AcquireShared (`shared`)
  // in this file system: the same contract.
  virtual absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path,
                                                             bool shared) = 0;
};

// Writes `path` atomically through `env`: data goes to "<path>.tmp", which
// Close() syncs and renames over `path`, then syncs the directory. A writer
// destroyed before Close() removes the temporary.
absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewAtomicFile(Env* env,
                                                                      const std::string& path);

absl::StatusOr<std::string> ReadFileToString(Env* env, const std::string& path);

}  // namespace kvstore

#endif  // KVSTORE_ENV_H_
