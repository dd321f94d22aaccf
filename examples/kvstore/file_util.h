// The few POSIX operations the store needs beyond lsmbloom's file
// interface: directories, whole-file reads, durability of renames, and an
// exclusive lock on the store directory.

#ifndef KVSTORE_FILE_UTIL_H_
#define KVSTORE_FILE_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kvstore {

// A Status for `error` (an errno value) saying what failed.
absl::Status PosixError(const std::string& context, int error);

// OK if `dir` is a directory. If it does not exist, creates it when
// `create` (and syncs its parent, so that the new directory survives a
// crash), else NotFound. InvalidArgument if it is something else.
absl::Status EnsureDir(const std::string& dir, bool create);

// The directory that holds `path`: "." if it names none, "/" for the root.
std::string DirName(const std::string& path);

bool FileExists(const std::string& path);

// The names in `dir`, without "." and "..".
absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir);

absl::Status RemoveFile(const std::string& path);

// Cuts `path` to its first `size` bytes, durably.
absl::Status TruncateFile(const std::string& path, uint64_t size);

// Makes the creations, renames and removals of entries in `dir` durable: a
// file renamed into place is not safe from a crash until its directory is
// synced too.
absl::Status SyncDir(const std::string& dir);

// An advisory lock (flock) on a file, held until destroyed. An exclusive
// lock excludes every other lock on the file, shared or exclusive, whether
// taken by another process or by this one through another FileLock.
class FileLock {
 public:
  virtual ~FileLock() = default;
  // Creates `path` if needed. Unavailable if someone else holds the lock.
  static absl::StatusOr<std::unique_ptr<FileLock>> Acquire(const std::string& path);
  // A shared lock, for readers: Unavailable if someone holds the exclusive
  // one. Creates nothing: when `path` is missing or cannot be opened (a
  // read-only directory, where no writer can be at work), it holds no lock.
  static absl::StatusOr<std::unique_ptr<FileLock>> AcquireShared(const std::string& path);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 protected:
  FileLock() = default;  // For other file systems' locks (env.h).
};

}  // namespace kvstore

#endif  // KVSTORE_FILE_UTIL_H_
