// Helpers shared by the store's tests.

#ifndef KVSTORE_TEST_UTIL_H_
#define KVSTORE_TEST_UTIL_H_

#include <filesystem>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace kvstore {
namespace testing {

// The i-th key of a test: "k00042", so keys sort as their numbers.
inline std::string Key(int i) { return absl::StrFormat("k%05d", i); }

// An empty directory of the running test's own (removed if left over).
inline std::string FreshTestDir() {
  const std::string dir = (std::filesystem::path(::testing::TempDir()) /
                           ::testing::UnitTest::GetInstance()->current_test_info()->name())
                              .string();
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace testing
}  // namespace kvstore

#endif  // KVSTORE_TEST_UTIL_H_
