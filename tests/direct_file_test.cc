// FileAccess::kDirect: reads of any offset and length answer what pread
// answers, Size() is the file's, and a refusal is a clear error.

#include <string>

#include "gtest/gtest.h"
#include "lsmbloom/io/file.h"
#include "src/util/random.h"
#include "tests/storage_testutil.h"

namespace lsmbloom {
namespace {

using testutil::DirectReadsUnavailable;
using testutil::WriteTestFile;

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(internal::SplitMix64(i) & 0xff);
  return s;
}

TEST(DirectFileTest, ReadsOfAnyOffsetAndLengthAnswerAsPread) {
  const std::string why = DirectReadsUnavailable();
  if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
  const std::string contents = Pattern(3 * 4096 + 1234);  // Ends mid-block.
  const std::string path = WriteTestFile("direct_reads", contents);
  auto direct = OpenPosixFile(path, FileAccess::kDirect);
  auto pread = OpenPosixFile(path, FileAccess::kPread);
  ASSERT_TRUE(direct.ok()) << direct.status();
  ASSERT_TRUE(pread.ok()) << pread.status();
  EXPECT_EQ((*direct)->Size(), contents.size());
  EXPECT_TRUE((*direct)->MappedContents().empty());
  const uint64_t cases[][2] = {{0, 1},    {0, 4096},     {1, 4096},   {4095, 2},
                               {4096, 0}, {5000, 9000},  {12000, 5000}, {13000, 300},
                               {13521, 10}, {13522, 10}, {20000, 10}};
  for (const auto& c : cases) {
    std::string a(c[1], '?'), b(c[1], '?');
    std::string_view ra, rb;
    ASSERT_TRUE((*direct)->Read(c[0], c[1], a.data(), &ra).ok());
    ASSERT_TRUE((*pread)->Read(c[0], c[1], b.data(), &rb).ok());
    EXPECT_EQ(ra, rb) << "offset " << c[0] << " length " << c[1];
  }
  for (uint64_t i = 0; i < 200; ++i) {
    const uint64_t offset = internal::SplitMix64(i) % contents.size();
    const size_t n = 1 + internal::SplitMix64(i + 99) % 9000;
    std::string buf(n, '?');
    std::string_view r;
    ASSERT_TRUE((*direct)->Read(offset, n, &buf[0], &r).ok());
    EXPECT_EQ(r, std::string_view(contents).substr(offset, n)) << offset << " " << n;
  }
}

TEST(DirectFileTest, AnEmptyFileOpensWithSizeZero) {
  const std::string why = DirectReadsUnavailable();
  if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
  auto f = OpenPosixFile(WriteTestFile("direct_empty", ""), FileAccess::kDirect);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->Size(), 0u);
  char c;
  std::string_view r = "x";
  EXPECT_TRUE((*f)->Read(0, 1, &c, &r).ok());
  EXPECT_TRUE(r.empty());
}

// tmpfs refused O_DIRECT before Linux 6.6; newer kernels accept it. Either
// way the answer is honest: an error naming the path, or correct reads.
TEST(DirectFileTest, TmpfsEitherRefusesByNameOrReadsCorrectly) {
  const std::string path = "/dev/shm/lsmbloom_direct_file_test";
  {
    auto out = NewPosixWritableFile(path);
    if (!out.ok()) GTEST_SKIP() << "no /dev/shm here: " << out.status();
    ASSERT_TRUE((*out)->Append(Pattern(5000)).ok());
    ASSERT_TRUE((*out)->Close().ok());
  }
  auto f = OpenPosixFile(path, FileAccess::kDirect);
  if (!f.ok()) {
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument) << f.status();
    EXPECT_NE(f.status().message().find(path), std::string_view::npos) << f.status();
    EXPECT_NE(f.status().message().find("O_DIRECT"), std::string_view::npos) << f.status();
    std::printf("tmpfs refused direct reads: %s\n", std::string(f.status().message()).c_str());
  } else {
    std::string buf(100, '?');
    std::string_view r;
    ASSERT_TRUE((*f)->Read(4090, 100, &buf[0], &r).ok());
    EXPECT_EQ(r, Pattern(5000).substr(4090, 100));
    std::printf("tmpfs accepted direct reads on this kernel\n");
  }
  std::remove(path.c_str());
}

TEST(DirectFileTest, AMissingFileIsNotFoundNamingThePath) {
  auto f = OpenPosixFile(testutil::TestDir() + "/no_such_file", FileAccess::kDirect);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(f.status().message().find("no_such_file"), std::string_view::npos);
}

}  // namespace
}  // namespace lsmbloom
