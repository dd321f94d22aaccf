#include "file_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace kvstore {
namespace {

class PosixFileLock : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override {
    if (fd_ >= 0) ::close(fd_);
  }  // Closing releases the flock.

 private:
  int fd_;  // -1: no lock held.
};

}  // namespace

absl::Status PosixError(const std::string& context, int error) {
  return absl::ErrnoToStatus(error, context);
}

absl::Status EnsureDir(const std::string& dir, bool create) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(dir, ": not a directory"));
  }
  if (errno != ENOENT) return PosixError(dir, errno);
  if (!create) return absl::NotFoundError(absl::StrCat(dir, ": no such directory"));
  if (::mkdir(dir.c_str(), 0755) != 0) {
    return PosixError(absl::StrCat("cannot create ", dir), errno);
  }
  return SyncDir(DirName(dir));
}

std::string DirName(const std::string& path) {
  if (path.empty()) return ".";
  const size_t end = path.find_last_not_of('/');  // "a/b/" names a/b.
  if (end == std::string::npos) return "/";
  const size_t slash = path.rfind('/', end);
  if (slash == std::string::npos) return ".";
  const size_t last = path.find_last_not_of('/', slash);
  return last == std::string::npos ? "/" : path.substr(0, last + 1);
}

bool FileExists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return PosixError(dir, errno);
  std::vector<std::string> names;
  errno = 0;
  while (const struct dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  const int error = errno;  // readdir returns null at the end and on error.
  ::closedir(d);
  if (error != 0) return PosixError(dir, error);
  return names;
}

absl::Status RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return PosixError(path, errno);
  return absl::OkStatus();
}

absl::Status TruncateFile(const std::string& path, uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return PosixError(absl::StrCat("open ", path), errno);
  absl::Status s;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    s = PosixError(absl::StrCat("truncate ", path), errno);
  } else if (::fdatasync(fd) != 0) {
    s = PosixError(absl::StrCat("fdatasync ", path), errno);
  }
  ::close(fd);
  return s;
}

absl::Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError(dir, errno);
  absl::Status s;
  if (::fsync(fd) != 0) s = PosixError(absl::StrCat("fsync ", dir), errno);
  ::close(fd);
  return s;
}

absl::StatusOr<std::unique_ptr<FileLock>> FileLock::Acquire(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError(path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::UnavailableError(
          absl::StrCat(path, ": the store is already open (its lock is held)"));
    }
    return PosixError(absl::StrCat("flock ", path), error);
  }
  return std::unique_ptr<FileLock>(new PosixFileLock(fd));
}

absl::StatusOr<std::unique_ptr<FileLock>> FileLock::AcquireShared(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == EROFS) {
      return std::unique_ptr<FileLock>(new PosixFileLock(-1));
    }
    return PosixError(path, errno);
  }
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::UnavailableError(
          absl::StrCat(path, ": the store is open for writing (its lock is held)"));
    }
    return PosixError(absl::StrCat("flock ", path), error);
  }
  return std::unique_ptr<FileLock>(new PosixFileLock(fd));
}

}  // namespace kvstore
