// ReadBatch: every read answers as RandomAccessFile::Read would, through
// io_uring and through the fallback alike, across files of every kind; an
// io_uring completion with an error ends its read with an error naming the
// file and offset, and only that read.

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/io/file.h"
#include "src/io/batch_read.h"
#include "src/util/random.h"
#include "tests/storage_testutil.h"

namespace lsmbloom {
namespace {

using internal::BatchRead;
using internal::BatchReadEngine;

std::string Pattern(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(internal::SplitMix64(i ^ seed) & 0xff);
  return s;
}

class BatchReadTest : public ::testing::TestWithParam<BatchReadEngine> {
 protected:
  void SetUp() override {
    std::string why;
    if (GetParam() != BatchReadEngine::kSerial && !internal::IoUringAvailable(&why)) {
      GTEST_SKIP() << "io_uring unavailable here (" << why << "): the fallback is tested";
    }
  }
};

TEST_P(BatchReadTest, EveryReadAnswersAsReadAcrossFilesOfEveryKind) {
  std::vector<std::string> contents;
  std::vector<std::unique_ptr<RandomAccessFile>> files;
  const std::string direct_unavailable = testutil::DirectReadsUnavailable();
  for (int f = 0; f < 4; ++f) {
    contents.push_back(Pattern(20000 + 3000 * f, f));
    const std::string path =
        testutil::WriteTestFile("batch_" + std::to_string(f), contents.back());
    FileAccess access = f == 0 ? FileAccess::kPread : f == 1 ? FileAccess::kMmap : FileAccess::kDirect;
    if (access == FileAccess::kDirect && !direct_unavailable.empty()) access = FileAccess::kPread;
    auto opened = OpenPosixFile(path, access);
    ASSERT_TRUE(opened.ok()) << opened.status();
    files.push_back(std::move(*opened));
  }
  contents.push_back(Pattern(7000, 9));
  files.push_back(NewMemRandomAccessFile(contents.back()));

  std::vector<BatchRead> reads;
  std::vector<std::string> buffers(150);
  for (size_t i = 0; i < buffers.size(); ++i) {  // More than one ring's worth.
    const size_t f = internal::SplitMix64(i) % files.size();
    BatchRead r;
    r.file = files[f].get();
    r.offset = internal::SplitMix64(i + 7) % (contents[f].size() + 100);  // Some past the end.
    r.n = 1 + internal::SplitMix64(i + 11) % 6000;
    buffers[i].assign(r.n, '?');
    r.scratch = &buffers[i][0];
    reads.push_back(r);
  }
  internal::ReadBatch(absl::MakeSpan(reads), GetParam());
  for (size_t i = 0; i < reads.size(); ++i) {
    const BatchRead& r = reads[i];
    ASSERT_TRUE(r.status.ok()) << r.status;
    size_t f = 0;
    while (files[f].get() != r.file) ++f;
    const std::string_view want =
        r.offset >= contents[f].size() ? std::string_view()
                                       : std::string_view(contents[f]).substr(r.offset, r.n);
    EXPECT_EQ(r.result, want) << "read " << i << " of file " << f << " at " << r.offset;
  }
}

TEST_P(BatchReadTest, AFailingReadEndsOnlyItselfNamingItsOffset) {
  const std::string contents = Pattern(10000, 3);
  auto base = OpenPosixFile(testutil::WriteTestFile("batch_faulty", contents), FileAccess::kPread);
  ASSERT_TRUE(base.ok());
  testutil::FaultyFile faulty(std::move(*base));
  faulty.FailReadsAt(4096);
  std::vector<BatchRead> reads(3);
  std::string buffers[3] = {std::string(100, '?'), std::string(100, '?'), std::string(100, '?')};
  const uint64_t offsets[3] = {0, 4096, 8000};
  for (int i = 0; i < 3; ++i) {
    reads[i].file = &faulty;
    reads[i].offset = offsets[i];
    reads[i].n = 100;
    reads[i].scratch = &buffers[i][0];
  }
  internal::ReadBatch(absl::MakeSpan(reads), GetParam());
  EXPECT_TRUE(reads[0].status.ok());
  EXPECT_EQ(reads[0].result, contents.substr(0, 100));
  EXPECT_FALSE(reads[1].status.ok());
  EXPECT_NE(reads[1].status.message().find("offset 4096"), std::string_view::npos);
  EXPECT_TRUE(reads[2].status.ok());
  EXPECT_EQ(reads[2].result, contents.substr(8000, 100));
}

INSTANTIATE_TEST_SUITE_P(Engines, BatchReadTest,
                         ::testing::Values(BatchReadEngine::kAuto, BatchReadEngine::kSerial),
                         [](const auto& info) {
                           return info.param == BatchReadEngine::kSerial ? "Serial" : "IoUring";
                         });

// A completion the kernel ends with an error (a descriptor not open for
// reading: EBADF) fails that read alone, naming its path and offset.
TEST(IoUringTest, ACompletionWithAnErrorFailsOnlyItsRead) {
  std::string why;
  if (!internal::IoUringAvailable(&why)) GTEST_SKIP() << "io_uring unavailable here: " << why;
  const std::string contents = Pattern(9000, 5);
  const std::string path = testutil::WriteTestFile("uring_error", contents);
  const int good = ::open(path.c_str(), O_RDONLY);
  const int write_only = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(good, 0);
  ASSERT_GE(write_only, 0);
  std::string a(500, '?'), b(500, '?');
  std::vector<internal::RawRead> reads(2);
  reads[0].fd = good;
  reads[0].path = path;
  reads[0].offset = 1000;
  reads[0].n = 500;
  reads[0].scratch = &a[0];
  reads[1].fd = write_only;
  reads[1].path = path + " (write-only)";
  reads[1].offset = 2000;
  reads[1].n = 500;
  reads[1].scratch = &b[0];
  internal::ReadRawWithIoUring(absl::MakeSpan(reads));
  EXPECT_TRUE(reads[0].status.ok()) << reads[0].status;
  EXPECT_EQ(reads[0].result, contents.substr(1000, 500));
  EXPECT_FALSE(reads[1].status.ok());
  EXPECT_NE(reads[1].status.message().find("write-only"), std::string_view::npos)
      << reads[1].status;
  EXPECT_NE(reads[1].status.message().find("offset 2000"), std::string_view::npos)
      << reads[1].status;
  ::close(good);
  ::close(write_only);
}

// An O_DIRECT descriptor read at an unaligned offset into an unaligned
// buffer: the kernel refuses the alignment (EINVAL) in the completion, and
// the read ends with an error naming the file and offset.
TEST(IoUringTest, AnAlignmentRefusalIsAnErrorNamingFileAndOffset) {
  std::string why;
  if (!internal::IoUringAvailable(&why)) GTEST_SKIP() << "io_uring unavailable here: " << why;
  const std::string why_direct = testutil::DirectReadsUnavailable();
  if (!why_direct.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why_direct;
  const std::string path = testutil::WriteTestFile("uring_unaligned", Pattern(9000, 6));
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(fd, 0);
  std::string buffer(600, '?');
  std::vector<internal::RawRead> reads(1);
  reads[0].fd = fd;
  reads[0].direct = false;  // As if the caller forgot: no aligned bounce buffer.
  reads[0].path = path;
  reads[0].offset = 1001;
  reads[0].n = 500;
  reads[0].scratch = &buffer[1];
  internal::ReadRawWithIoUring(absl::MakeSpan(reads));
  EXPECT_FALSE(reads[0].status.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(reads[0].status)) << reads[0].status;
  EXPECT_NE(reads[0].status.message().find("offset 1001"), std::string_view::npos)
      << reads[0].status;
  ::close(fd);
}

}  // namespace
}  // namespace lsmbloom
