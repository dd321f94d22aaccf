// Helpers shared by the store's tests.

#ifndef KVSTORE_TEST_UTIL_H_
#define KVSTORE_TEST_UTIL_H_

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "store.h"

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

// The store in `dir`, or null with a test failure saying why.
inline std::unique_ptr<Store> OpenStore(const std::string& dir, const StoreOptions& options) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

}  // namespace testing
}  // namespace kvstore

#endif  // KVSTORE_TEST_UTIL_H_
