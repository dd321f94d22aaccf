#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "lsmbloom/io/file.h"

namespace lsmbloom {
namespace {

// "context: strerror(error)", its code as absl maps errno values (ENOENT
// NotFound, EACCES PermissionDenied, ENOSPC ResourceExhausted, ...).
absl::Status PosixError(const std::string& context, int error) {
  return absl::ErrnoToStatus(error, context);
}

absl::Status SyncDirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError(dir, errno);
  absl::Status status;
  if (::fsync(fd) != 0) status = PosixError(dir, errno);
  ::close(fd);
  return status;
}

class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(std::string path, std::string tmp_path, int fd)
      : path_(std::move(path)), tmp_path_(std::move(tmp_path)), fd_(fd) {}

  ~PosixWritableFile() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_path_.c_str());  // Never finished: leave nothing behind.
    }
  }

  absl::Status Append(std::string_view data) override {
    if (fd_ < 0) return absl::FailedPreconditionError("file already closed");
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return PosixError(tmp_path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (fd_ < 0) return absl::FailedPreconditionError("file already closed");
    if (::fdatasync(fd_) != 0) return PosixError(tmp_path_, errno);
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (fd_ < 0) return absl::FailedPreconditionError("file already closed");
    absl::Status status = Sync();
    if (::close(fd_) != 0 && status.ok()) status = PosixError(tmp_path_, errno);
    fd_ = -1;
    if (status.ok() && ::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
      status = PosixError(path_, errno);
    }
    if (!status.ok()) {
      ::unlink(tmp_path_.c_str());
      return status;
    }
    // Makes the rename itself durable. If that fails, the file is complete
    // but its name may not survive a crash. Taking the name back would not
    // help: the rename has already replaced whatever was there before.
    return SyncDirectoryOf(path_);
  }

 private:
  std::string path_, tmp_path_;
  int fd_;
};

class PosixRandomAccessFile : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd, uint64_t size, void* map)
      : path_(std::move(path)), fd_(fd), size_(size), map_(map) {}
  ~PosixRandomAccessFile() override {
    if (map_ != nullptr) ::munmap(map_, size_);
    ::close(fd_);
  }

  uint64_t Size() const override { return size_; }

  absl::Status Read(uint64_t offset, size_t n, char* scratch,
                    std::string_view* result) const override {
    if (offset >= size_) {
      *result = std::string_view();
      return absl::OkStatus();
    }
    if (n > size_ - offset) n = static_cast<size_t>(size_ - offset);
    if (map_ != nullptr) {
      // Copied all the same: a caller that reads `scratch` instead of
      // *result, wrong as that is, must not see zeros now that files are
      // mapped by default. The table reader takes mapped bytes in place
      // (MappedContents), so this copy is off its hot path.
      std::memcpy(scratch, static_cast<const char*>(map_) + offset, n);
      *result = std::string_view(scratch, n);
      return absl::OkStatus();
    }
    size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, scratch + done, n - done, offset + done);
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError(path_, errno);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    *result = std::string_view(scratch, done);
    return absl::OkStatus();
  }

  std::string_view MappedContents() const override {
    return map_ == nullptr ? std::string_view()
                           : std::string_view(static_cast<const char*>(map_), size_);
  }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  void* map_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<WritableFile>> NewPosixWritableFile(const std::string& path) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError(tmp, errno);
  return std::unique_ptr<WritableFile>(new PosixWritableFile(path, tmp, fd));
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenPosixFile(const std::string& path,
                                                                bool mmap) {
  return OpenPosixFile(path, mmap ? FileAccess::kMmap : FileAccess::kPread);
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenPosixFile(const std::string& path,
                                                                FileAccess access) {
  // A 32-bit address space fills with a few large tables.
  constexpr bool kRoomToMap = sizeof(void*) >= 8;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return PosixError(path, error);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory"));
  }
  void* map = nullptr;
  const bool want_map =
      access == FileAccess::kMmap || (access == FileAccess::kDefault && kRoomToMap);
  if (want_map && st.st_size > 0) {
    map = ::mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
      const int error = errno;
      map = nullptr;
      if (access == FileAccess::kMmap) {
        ::close(fd);
        return PosixError(path, error);
      }
    }
  }
  return std::unique_ptr<RandomAccessFile>(
      new PosixRandomAccessFile(path, fd, static_cast<uint64_t>(st.st_size), map));
}

}  // namespace lsmbloom
