// ReadBatch: every read answers as RandomAccessFile::Read would, through
// io_uring and through the fallback alike, across files of every kind and
// on two threads at once; a device's error, cancellation or short answer,
// on an io_uring completion or a pread, ends its read alone; a failed wait
// for completions leaves no read in flight behind.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/io/file.h"
#include "src/io/batch_read.h"
#include "src/io/native_file.h"
#include "src/io/read_faults.h"
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

// Reads of 150 (more than one ring's worth) at random offsets, some past
// the end, of files opened with `accesses` and one in memory: each answers
// as Read would.
void ExpectEveryReadAnswersAsRead(const std::vector<FileAccess>& accesses, BatchReadEngine engine,
                                  const std::string& name) {
  std::vector<std::string> contents;
  std::vector<std::unique_ptr<RandomAccessFile>> files;
  for (size_t f = 0; f < accesses.size(); ++f) {
    contents.push_back(Pattern(20000 + 3000 * f, f));
    const std::string path =
        testutil::WriteTestFile(name + "_" + std::to_string(f), contents.back());
    auto opened = OpenPosixFile(path, accesses[f]);
    ASSERT_TRUE(opened.ok()) << opened.status();
    files.push_back(std::move(*opened));
  }
  contents.push_back(Pattern(7000, 9));
  files.push_back(NewMemRandomAccessFile(contents.back()));

  std::vector<BatchRead> reads;
  std::vector<std::string> buffers(150);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t f = internal::SplitMix64(i) % files.size();
    BatchRead r;
    r.file = files[f].get();
    r.offset = internal::SplitMix64(i + 7) % (contents[f].size() + 100);
    r.n = 1 + internal::SplitMix64(i + 11) % 6000;
    buffers[i].assign(r.n, '?');
    r.scratch = &buffers[i][0];
    reads.push_back(r);
  }
  internal::ReadBatch(absl::MakeSpan(reads), engine);
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

TEST_P(BatchReadTest, EveryReadAnswersAsReadAcrossPreadMappedAndMemoryFiles) {
  ExpectEveryReadAnswersAsRead({FileAccess::kPread, FileAccess::kMmap, FileAccess::kPread},
                               GetParam(), "batch_pread");
}

TEST_P(BatchReadTest, EveryReadAnswersAsReadAcrossDirectFilesAmongOthers) {
  const std::string why = testutil::DirectReadsUnavailable();
  if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
  ExpectEveryReadAnswersAsRead({FileAccess::kPread, FileAccess::kDirect, FileAccess::kDirect},
                               GetParam(), "batch_direct");
}

// Two threads at once, each reading batches through its own ring (or
// both through the fallback). Run under TSan in CI.
TEST_P(BatchReadTest, TwoThreadsReadBatchesAtOnce) {
  const std::string contents = Pattern(300000, 21);
  auto file = OpenPosixFile(testutil::WriteTestFile("batch_threads", contents), FileAccess::kPread);
  ASSERT_TRUE(file.ok()) << file.status();
  const BatchReadEngine engine = GetParam();
  std::atomic<uint64_t> uring_answers{0};
  internal::ReadFaults counting;
  counting.answer = [&](const internal::KernelRead& read, int64_t answer) {
    if (read.path == internal::KernelReadPath::kIoUring) ++uring_answers;
    return answer;
  };
  internal::ScopedReadFaults faults(counting);
  std::atomic<uint64_t> wrong{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> buffers(100);
      std::vector<BatchRead> reads(buffers.size());
      for (int batch = 0; batch < 40; ++batch) {
        for (size_t i = 0; i < reads.size(); ++i) {
          const uint64_t seed = (t * 1000 + batch) * 1000 + i;
          reads[i] = BatchRead();
          reads[i].file = file->get();
          reads[i].offset = internal::SplitMix64(seed) % contents.size();
          reads[i].n = 1 + internal::SplitMix64(seed + 1) % 5000;
          buffers[i].assign(reads[i].n, '?');
          reads[i].scratch = &buffers[i][0];
        }
        internal::ReadBatch(absl::MakeSpan(reads), engine);
        for (const BatchRead& r : reads) {
          if (!r.status.ok()) {
            ++errors;
          } else if (r.result != std::string_view(contents).substr(r.offset, r.n)) {
            ++wrong;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(errors.load(), 0u);
  if (engine == BatchReadEngine::kSerial) {
    EXPECT_EQ(uring_answers.load(), 0u);
  } else {
    EXPECT_EQ(uring_answers.load(), 2u * 40 * 100) << "every read through a ring";
  }
}

// What a failing device answers to a read reaching into [4096, 4196):
// an error, a cancellation, or the bytes before 4096 and then nothing (a
// cut at a sector, as a direct read could meet it).
enum class DeviceFault { kEio, kCancelled, kShort };

internal::ReadFaults FailingDevice(DeviceFault fault, int fd,
                                   std::atomic<uint64_t> (&answers)[2]) {
  internal::ReadFaults faults;
  faults.answer = [=, &answers](const internal::KernelRead& read, int64_t answer) -> int64_t {
    if (read.fd != fd) return answer;
    ++answers[read.path == internal::KernelReadPath::kIoUring ? 1 : 0];
    if (answer < 0 || read.offset >= 4196 || read.offset + read.length <= 4096) return answer;
    switch (fault) {
      case DeviceFault::kEio:
        return -EIO;
      case DeviceFault::kCancelled:
        return -ECANCELED;
      case DeviceFault::kShort:
        return std::min<int64_t>(answer, std::max<int64_t>(0, 4096 - int64_t(read.offset)));
    }
    return answer;
  };
  return faults;
}

// A batch of reads of a real file, one of which the device fails: that
// read alone ends in an error naming its offset (or, cut short, with the
// bytes the device gave), the others with their bytes; through io_uring
// completions or through pread, as the engine says.
void ExpectADeviceFaultEndsOnlyItsRead(FileAccess access, BatchReadEngine engine) {
  const std::string contents = Pattern(20000, 3);
  const std::string path = testutil::WriteTestFile("batch_device", contents);
  auto file = OpenPosixFile(path, access);
  ASSERT_TRUE(file.ok()) << file.status();
  const internal::NativeFile* native = internal::NativeFileOf(**file);
  ASSERT_NE(native, nullptr);
  const bool uring = engine != BatchReadEngine::kSerial;
  for (DeviceFault fault : {DeviceFault::kEio, DeviceFault::kCancelled, DeviceFault::kShort}) {
    SCOPED_TRACE(static_cast<int>(fault));
    std::atomic<uint64_t> answers[2] = {{0}, {0}};
    internal::ScopedReadFaults faults(FailingDevice(fault, native->fd(), answers));
    const uint64_t offsets[3] = {0, 4000, 12288};  // Only the second reaches 4096.
    std::vector<BatchRead> reads(3);
    std::string buffers[3];
    for (int i = 0; i < 3; ++i) {
      buffers[i].assign(100, '?');
      reads[i].file = file->get();
      reads[i].offset = offsets[i];
      reads[i].n = 100;
      reads[i].scratch = &buffers[i][0];
    }
    internal::ReadBatch(absl::MakeSpan(reads), engine);
    EXPECT_TRUE(reads[0].status.ok()) << reads[0].status;
    EXPECT_EQ(reads[0].result, contents.substr(0, 100));
    EXPECT_TRUE(reads[2].status.ok()) << reads[2].status;
    EXPECT_EQ(reads[2].result, contents.substr(12288, 100));
    if (fault == DeviceFault::kShort) {
      EXPECT_TRUE(reads[1].status.ok()) << reads[1].status;
      EXPECT_EQ(reads[1].result, contents.substr(4000, 96)) << "the bytes the device gave";
    } else {
      ASSERT_FALSE(reads[1].status.ok());
      // EIO as absl maps it (Unknown), with its strerror; ECANCELED Cancelled.
      EXPECT_EQ(reads[1].status.code(), fault == DeviceFault::kEio ? absl::StatusCode::kUnknown
                                                                   : absl::StatusCode::kCancelled)
          << reads[1].status;
      EXPECT_NE(reads[1].status.message().find(std::strerror(
                    fault == DeviceFault::kEio ? EIO : ECANCELED)),
                std::string_view::npos)
          << reads[1].status;
      EXPECT_NE(reads[1].status.message().find(path), std::string_view::npos) << reads[1].status;
      EXPECT_NE(reads[1].status.message().find("offset 4000"), std::string_view::npos)
          << reads[1].status;
    }
    // The faults met the path the engine names.
    EXPECT_EQ(answers[1].load() > 0, uring);
    EXPECT_EQ(answers[0].load() >= 3, !uring);
  }
}

TEST_P(BatchReadTest, ADeviceFaultEndsOnlyItsReadOfAPreadFile) {
  ExpectADeviceFaultEndsOnlyItsRead(FileAccess::kPread, GetParam());
}

TEST_P(BatchReadTest, ADeviceFaultEndsOnlyItsReadOfADirectFile) {
  const std::string why = testutil::DirectReadsUnavailable();
  if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
  ExpectADeviceFaultEndsOnlyItsRead(FileAccess::kDirect, GetParam());
}

// A file without a descriptor (a wrapper: FaultyFile) is read through
// Read by either engine; its failing read ends only itself.
TEST_P(BatchReadTest, AFailingReadOfAFileWithoutADescriptorEndsOnlyItself) {
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

// Reads of `n` bytes at 40 offsets of `fd`, into `buffers`.
std::vector<internal::RawRead> RawReads(int fd, const std::string& path, size_t n,
                                        std::vector<std::string>* buffers) {
  buffers->assign(40, std::string(n, '?'));
  std::vector<internal::RawRead> reads(buffers->size());
  for (size_t i = 0; i < reads.size(); ++i) {
    reads[i].fd = fd;
    reads[i].path = path;
    reads[i].offset = 997 * i;
    reads[i].n = n;
    reads[i].scratch = &(*buffers)[i][0];
  }
  return reads;
}

// A wait for completions that fails once (as io_uring_wait_cqe may, with
// EBADR when completions were lost): the reads still in flight are
// cancelled and reaped before they are read again, so none completes
// later into memory a caller or the next round looks at, and the next
// round reaps its own completions, not stale ones.
TEST(IoUringTest, AFailedWaitLeavesNoReadInFlightAndEveryReadEndsWithItsBytes) {
  std::string why;
  if (!internal::IoUringAvailable(&why)) GTEST_SKIP() << "io_uring unavailable here: " << why;
  const std::string contents = Pattern(60000, 8);
  const std::string path = testutil::WriteTestFile("uring_wait", contents);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const uint64_t abandoned = internal::IoUringRoundsAbandoned();
  std::vector<std::string> buffers;
  std::vector<internal::RawRead> reads = RawReads(fd, path, 300, &buffers);
  {
    std::atomic<int> waits{0};
    internal::ReadFaults faults;
    faults.wait = [&] { return waits++ == 0 ? -EBADR : 0; };
    internal::ScopedReadFaults installed(faults);
    internal::ReadRawWithIoUring(absl::MakeSpan(reads));
    EXPECT_GT(waits.load(), 1) << "the reads in flight were waited for after the failure";
  }
  for (const internal::RawRead& r : reads) {
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.result, contents.substr(r.offset, 300));
  }
  // Whatever the kernel still had would have completed by now.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(internal::IoUringCompletionsWaiting(), 0u) << "a read was left in flight";
  EXPECT_EQ(internal::IoUringRoundsAbandoned(), abandoned);
  // The next round, of other lengths, reaps its own completions.
  std::vector<internal::RawRead> next = RawReads(fd, path, 700, &buffers);
  internal::ReadRawWithIoUring(absl::MakeSpan(next));
  for (const internal::RawRead& r : next) {
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.result, contents.substr(r.offset, 700));
  }
  ::close(fd);
}

// Waits that keep failing: the reads in flight cannot be reaped, so their
// buffer is left to the kernel and the ring made anew; every read ends
// with its bytes, read again elsewhere, and the next batch reads through
// the new ring.
TEST(IoUringTest, WaitsThatKeepFailingAbandonTheRoundAndEveryReadEndsWithItsBytes) {
  std::string why;
  if (!internal::IoUringAvailable(&why)) GTEST_SKIP() << "io_uring unavailable here: " << why;
  const std::string contents = Pattern(60000, 9);
  const std::string path = testutil::WriteTestFile("uring_wait_fails", contents);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const uint64_t abandoned = internal::IoUringRoundsAbandoned();
  std::vector<std::string> buffers;
  std::vector<internal::RawRead> reads = RawReads(fd, path, 300, &buffers);
  {
    internal::ReadFaults faults;
    faults.wait = [] { return -EBADR; };
    internal::ScopedReadFaults installed(faults);
    internal::ReadRawWithIoUring(absl::MakeSpan(reads));
  }
  EXPECT_EQ(internal::IoUringRoundsAbandoned(), abandoned + 1);
  for (const internal::RawRead& r : reads) {
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.result, contents.substr(r.offset, 300));
  }
  ASSERT_TRUE(internal::IoUringAvailable(&why)) << "a new ring: " << why;
  std::atomic<uint64_t> uring_answers{0};
  internal::ReadFaults counting;
  counting.answer = [&](const internal::KernelRead& read, int64_t answer) {
    uring_answers += read.path == internal::KernelReadPath::kIoUring;
    return answer;
  };
  internal::ScopedReadFaults installed(counting);
  std::vector<internal::RawRead> next = RawReads(fd, path, 700, &buffers);
  internal::ReadRawWithIoUring(absl::MakeSpan(next));
  for (const internal::RawRead& r : next) {
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.result, contents.substr(r.offset, 700));
  }
  EXPECT_EQ(uring_answers.load(), next.size());
  ::close(fd);
}

}  // namespace
}  // namespace lsmbloom
