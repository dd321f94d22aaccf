#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lsmbloom/io/file.h"
#include "src/io/native_file.h"
#include "src/io/read_faults.h"

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

class PosixRandomAccessFile : public RandomAccessFile, public internal::NativeFile {
 public:
  PosixRandomAccessFile(std::string path, int fd, uint64_t size, void* map, bool direct)
      : path_(std::move(path)), fd_(fd), size_(size), map_(map), direct_(direct) {}
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
    if (direct_) return ReadDirect(offset, n, scratch, result);
    const ssize_t r = internal::PreadFully(fd_, scratch, n, offset);
    if (r < 0) return internal::ReadError(path_, offset, n, static_cast<int>(-r));
    *result = std::string_view(scratch, static_cast<size_t>(r));
    return absl::OkStatus();
  }

  std::string_view MappedContents() const override {
    return map_ == nullptr ? std::string_view()
                           : std::string_view(static_cast<const char*>(map_), size_);
  }

  int fd() const override { return fd_; }
  bool direct() const override { return direct_; }
  const std::string& path() const override { return path_; }

 private:
  // O_DIRECT wants the offset, length and buffer aligned: read the aligned
  // range around the request into this thread's buffer, then copy out.
  absl::Status ReadDirect(uint64_t offset, size_t n, char* scratch,
                          std::string_view* result) const {
    const internal::AlignedRange range = internal::AlignForDirectRead(offset, n);
    char* buf = internal::ThreadAlignedBuffer(internal::AlignedUse::kRead, range.length);
    if (buf == nullptr) return internal::ReadError(path_, offset, n, ENOMEM);
    const ssize_t r = internal::PreadFully(fd_, buf, range.length, range.begin);
    if (r < 0) return internal::ReadError(path_, offset, n, static_cast<int>(-r));
    *result = internal::CopyFromAligned(buf, static_cast<size_t>(r), range, offset, n, scratch);
    return absl::OkStatus();
  }

  std::string path_;
  int fd_;
  uint64_t size_;
  void* map_;
  bool direct_;
};

absl::Status RefusesDirectReads(const std::string& path) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": the file system refuses direct reads (O_DIRECT); open it with "
                         "FileAccess::kPread or kMmap instead"));
}

}  // namespace

namespace internal {

const NativeFile* NativeFileOf(const RandomAccessFile& file) {
  return dynamic_cast<const NativeFile*>(&file);
}

AlignedRange AlignForDirectRead(uint64_t offset, size_t n) {
  constexpr uint64_t kMask = kDirectReadAlignment - 1;
  AlignedRange range;
  range.begin = offset & ~kMask;
  range.length = static_cast<size_t>(((offset + n + kMask) & ~kMask) - range.begin);
  return range;
}

namespace {

struct AlignedBuffer {
  char* data = nullptr;
  size_t size = 0;
  ~AlignedBuffer() { std::free(data); }
};

AlignedBuffer& ThisThreadsBuffer(AlignedUse use) {
  thread_local AlignedBuffer buffers[2];
  return buffers[use == AlignedUse::kRead ? 0 : 1];
}

}  // namespace

char* ThreadAlignedBuffer(AlignedUse use, size_t n) {
  AlignedBuffer& buffer = ThisThreadsBuffer(use);
  if (n > buffer.size) {
    void* p = nullptr;
    if (::posix_memalign(&p, kDirectReadAlignment, n) != 0) return nullptr;
    std::free(buffer.data);
    buffer.data = static_cast<char*>(p);
    buffer.size = n;
  }
  return buffer.data;
}

void AbandonThreadAlignedBuffer(AlignedUse use) {
  // Never freed, and kept reachable (a leak by design, not one a leak
  // checker should report): the kernel may still write into it.
  static std::mutex mu;
  static auto* abandoned = new std::vector<char*>();
  AlignedBuffer& buffer = ThisThreadsBuffer(use);
  if (buffer.data != nullptr) {
    std::lock_guard<std::mutex> lock(mu);
    abandoned->push_back(buffer.data);
  }
  buffer.data = nullptr;
  buffer.size = 0;
}

std::string_view CopyFromAligned(const char* aligned, size_t got, const AlignedRange& range,
                                 uint64_t offset, size_t n, char* scratch) {
  const size_t skip = static_cast<size_t>(offset - range.begin);
  const size_t copied = got > skip ? std::min(n, got - skip) : 0;
  // A buffered read may have landed in `scratch` itself: nothing to move.
  if (scratch != aligned + skip) std::memcpy(scratch, aligned + skip, copied);
  return std::string_view(scratch, copied);
}

ssize_t PreadFully(int fd, char* buf, size_t n, uint64_t offset) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, buf + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    r = static_cast<ssize_t>(
        FaultedAnswer({fd, offset + done, n - done, KernelReadPath::kPread}, r < 0 ? -errno : r));
    if (r < 0) return r;
    if (r == 0) break;
    done += std::min(static_cast<size_t>(r), n - done);
  }
  return static_cast<ssize_t>(done);
}

absl::Status ReadError(const std::string& path, uint64_t offset, size_t n, int error) {
  return absl::ErrnoToStatus(error,
                             absl::StrCat(path, ": read of ", n, " bytes at offset ", offset));
}

}  // namespace internal

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
  const bool direct = access == FileAccess::kDirect;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
  if (fd < 0) {
    if (direct && errno == EINVAL) return RefusesDirectReads(path);
    return PosixError(path, errno);
  }
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
  if (direct && st.st_size > 0) {
    // Some file systems take O_DIRECT at open and refuse it at the first
    // read: find out now, with one aligned block, not in a lookup.
    char* buf = internal::ThreadAlignedBuffer(internal::AlignedUse::kRead, kDirectReadAlignment);
    const ssize_t r = buf == nullptr ? -ENOMEM : internal::PreadFully(fd, buf, kDirectReadAlignment, 0);
    if (r < 0) {
      ::close(fd);
      if (r == -EINVAL) return RefusesDirectReads(path);
      return internal::ReadError(path, 0, kDirectReadAlignment, static_cast<int>(-r));
    }
  }
  return std::unique_ptr<RandomAccessFile>(
      new PosixRandomAccessFile(path, fd, static_cast<uint64_t>(st.st_size), map, direct));
}

}  // namespace lsmbloom
