#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace kvstore {
namespace {

// A file written through a descriptor: write(2), fdatasync(2), close(2).
class PosixWritableFile : public lsmbloom::WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  absl::Status Append(std::string_view data) override {
    if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, ": already closed"));
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return PosixError(absl::StrCat("write ", path_), errno);
      data.remove_prefix(static_cast<size_t>(n));
    }
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, ": already closed"));
    if (::fdatasync(fd_) != 0) return PosixError(absl::StrCat("fdatasync ", path_), errno);
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (fd_ < 0) return absl::FailedPreconditionError(absl::StrCat(path_, ": already closed"));
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return PosixError(absl::StrCat("close ", path_), errno);
    return absl::OkStatus();
  }

 private:
  const std::string path_;
  int fd_;  // -1 once closed.
};

absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> OpenWritable(const std::string& path,
                                                                     int flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) return PosixError(absl::StrCat("open ", path), errno);
  return std::unique_ptr<lsmbloom::WritableFile>(new PosixWritableFile(path, fd));
}

class PosixEnv : public Env {
 public:
  absl::Status EnsureDir(const std::string& dir, bool create) override {
    return kvstore::EnsureDir(dir, create);
  }
  bool FileExists(const std::string& path) override { return kvstore::FileExists(path); }
  absl::StatusOr<std::vector<std::string>> ListDir(const std::string& dir) override {
    return kvstore::ListDir(dir);
  }
  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError(absl::StrCat("stat ", path), errno);
    return static_cast<uint64_t>(st.st_size);
  }
  absl::Status RemoveFile(const std::string& path) override { return kvstore::RemoveFile(path); }
  absl::Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return PosixError(absl::StrCat("rename ", from, " to ", to), errno);
    }
    return absl::OkStatus();
  }
  absl::Status TruncateFile(const std::string& path, uint64_t size) override {
    return kvstore::TruncateFile(path, size);
  }
  absl::Status SyncDir(const std::string& dir) override { return kvstore::SyncDir(dir); }
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewWritableFile(
      const std::string& path) override {
    return OpenWritable(path, O_TRUNC);
  }
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewAppendableFile(
      const std::string& path) override {
    return OpenWritable(path, O_APPEND);
  }
  absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> NewRandomAccessFile(
      const std::string& path, lsmbloom::FileAccess access) override {
    return lsmbloom::OpenPosixFile(path, access);
  }
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path,
                                                     bool shared) override {
    return shared ? FileLock::AcquireShared(path) : FileLock::Acquire(path);
  }
};

// The temporary-sync-rename-sync sequence, each step through the Env, so
// that a test's Env sees (and may lose) every one of them.
class AtomicFile : public lsmbloom::WritableFile {
 public:
  AtomicFile(Env* env, std::string path, std::unique_ptr<lsmbloom::WritableFile> tmp)
      : env_(env), path_(std::move(path)), tmp_path_(path_ + ".tmp"), tmp_(std::move(tmp)) {}
  ~AtomicFile() override {
    if (tmp_ != nullptr) Abandon();
  }

  absl::Status Append(std::string_view data) override {
    if (tmp_ == nullptr) return absl::FailedPreconditionError("file already closed");
    return tmp_->Append(data);
  }
  absl::Status Sync() override {
    if (tmp_ == nullptr) return absl::FailedPreconditionError("file already closed");
    return tmp_->Sync();
  }
  absl::Status Close() override {
    if (tmp_ == nullptr) return absl::FailedPreconditionError("file already closed");
    absl::Status s = tmp_->Sync();
    if (s.ok()) s = tmp_->Close();
    if (s.ok()) s = env_->RenameFile(tmp_path_, path_);
    if (!s.ok()) {
      Abandon();
      return s;
    }
    tmp_.reset();
    // If this fails the file is complete, but its name may not survive a
    // crash; the rename has already replaced what was there.
    return env_->SyncDir(DirName(path_));
  }

 private:
  void Abandon() {
    tmp_.reset();
    env_->RemoveFile(tmp_path_).IgnoreError();  // Open() removes leftovers.
  }

  Env* const env_;
  const std::string path_, tmp_path_;
  std::unique_ptr<lsmbloom::WritableFile> tmp_;  // Null once closed.
};

}  // namespace

Env* Env::Default() {
  static Env* const env = new PosixEnv;
  return env;
}

absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> NewAtomicFile(Env* env,
                                                                      const std::string& path) {
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> tmp =
      env->NewWritableFile(path + ".tmp");
  if (!tmp.ok()) return tmp.status();
  return std::unique_ptr<lsmbloom::WritableFile>(new AtomicFile(env, path, *std::move(tmp)));
}

absl::StatusOr<std::string> ReadFileToString(Env* env, const std::string& path) {
  absl::StatusOr<std::unique_ptr<lsmbloom::RandomAccessFile>> file =
      env->NewRandomAccessFile(path, lsmbloom::FileAccess::kPread);
  if (!file.ok()) return file.status();
  const uint64_t size = (*file)->Size();
  std::string scratch(size, '\0');
  std::string_view read;  // Into scratch, or the file's own bytes.
  absl::Status s = (*file)->Read(0, size, scratch.data(), &read);
  if (!s.ok()) return s;
  if (read.size() != size) return absl::DataLossError(absl::StrCat(path, ": short read"));
  return read.data() == scratch.data() ? scratch : std::string(read);
}

}  // namespace kvstore
