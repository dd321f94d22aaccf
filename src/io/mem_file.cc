#include "lsmbloom/io/file.h"

namespace lsmbloom {
namespace {

class MemWritableFile : public WritableFile {
 public:
  explicit MemWritableFile(std::string* contents) : contents_(contents) {}

  absl::Status Append(std::string_view data) override {
    if (closed_) return absl::FailedPreconditionError("file already closed");
    pending_.append(data.data(), data.size());
    return absl::OkStatus();
  }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Close() override {
    if (closed_) return absl::FailedPreconditionError("file already closed");
    closed_ = true;
    *contents_ = std::move(pending_);
    return absl::OkStatus();
  }

 private:
  std::string* contents_;
  std::string pending_;
  bool closed_ = false;
};

class MemRandomAccessFile : public RandomAccessFile {
 public:
  explicit MemRandomAccessFile(std::string contents) : contents_(std::move(contents)) {}

  uint64_t Size() const override { return contents_.size(); }
  absl::Status Read(uint64_t offset, size_t n, char* /*scratch*/,
                    std::string_view* result) const override {
    if (offset >= contents_.size()) {
      *result = std::string_view();
    } else {
      *result = std::string_view(contents_).substr(offset, n);
    }
    return absl::OkStatus();
  }
  std::string_view MappedContents() const override { return contents_; }

 private:
  std::string contents_;
};

}  // namespace

std::unique_ptr<WritableFile> NewMemWritableFile(std::string* contents) {
  return std::make_unique<MemWritableFile>(contents);
}

std::unique_ptr<RandomAccessFile> NewMemRandomAccessFile(std::string contents) {
  return std::make_unique<MemRandomAccessFile>(std::move(contents));
}

}  // namespace lsmbloom
