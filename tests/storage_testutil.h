// Shared by the storage tests: files written to the test's temporary
// directory (on the disk, not tmpfs, where O_DIRECT works), whether direct
// reads and io_uring work here, and a file that fails chosen reads.

#ifndef LSMBLOOM_TESTS_STORAGE_TESTUTIL_H_
#define LSMBLOOM_TESTS_STORAGE_TESTUTIL_H_

#include <errno.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/io/file.h"

namespace lsmbloom {
namespace testutil {

inline std::string TestDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// Writes `bytes` to `name` in TestDir() and returns its path.
inline std::string WriteTestFile(const std::string& name, const std::string& bytes) {
  const std::string path = TestDir() + "/" + name;
  auto out = NewPosixWritableFile(path);
  if (!out.ok() || !(*out)->Append(bytes).ok() || !(*out)->Close().ok()) std::abort();
  return path;
}

// Why direct reads cannot be tested here, or empty if they can.
inline std::string DirectReadsUnavailable() {
  const std::string path = WriteTestFile("direct_probe", std::string(8192, 'x'));
  auto f = OpenPosixFile(path, FileAccess::kDirect);
  std::remove(path.c_str());
  return f.ok() ? std::string() : std::string(f.status().message());
}

// A file that answers reads from `base` except at chosen offsets: those
// fail with EIO, or come back `short_by` bytes short, as a failing device
// would. Counts its reads.
class FaultyFile : public RandomAccessFile {
 public:
  explicit FaultyFile(std::unique_ptr<RandomAccessFile> base) : base_(std::move(base)) {}

  void FailReadsAt(uint64_t offset) {
    std::lock_guard<std::mutex> lock(mu_);
    failing_.insert(offset);
  }
  void ShortenReadsAt(uint64_t offset) {
    std::lock_guard<std::mutex> lock(mu_);
    shortened_.insert(offset);
  }
  int reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reads_;
  }
  uint64_t last_offset() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_offset_;
  }

  uint64_t Size() const override { return base_->Size(); }
  absl::Status Read(uint64_t offset, size_t n, char* scratch,
                    std::string_view* result) const override {
    bool fail, shorten;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++reads_;
      last_offset_ = offset;
      fail = failing_.count(offset) != 0;
      shorten = shortened_.count(offset) != 0;
    }
    if (fail) {
      return absl::ErrnoToStatus(EIO, absl::StrCat("faulty file: read of ", n, " bytes at offset ",
                                                   offset));
    }
    absl::Status s = base_->Read(offset, n, scratch, result);
    if (s.ok() && shorten && result->size() > 7) *result = result->substr(0, result->size() - 7);
    return s;
  }

 private:
  std::unique_ptr<RandomAccessFile> base_;
  mutable std::mutex mu_;
  std::set<uint64_t> failing_, shortened_;
  mutable int reads_ = 0;
  mutable uint64_t last_offset_ = 0;
};

}  // namespace testutil
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_STORAGE_TESTUTIL_H_
