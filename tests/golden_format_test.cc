// Every on-disk format pinned by golden files (tests/testdata/golden): the
// bytes written today equal the checked-in bytes of their version, and
// today's readers find every listed key in every golden file of every
// version. A format whose bytes change must change its version, add its new
// golden file (bazel run //tests:write_golden_files) and keep reading the old.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "src/util/random.h"
#include "tests/golden_files.h"

namespace lsmbloom {
namespace golden {
namespace {

const char kDir[] = "tests/testdata/golden";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::vector<std::string> CheckedInKeys() {
  std::vector<std::string> keys;
  std::ifstream in(std::string(kDir) + "/keys.txt");
  for (std::string line; std::getline(in, line);) keys.push_back(line);
  return keys;
}

// Every checked-in golden file of format `name`, of any version.
std::vector<std::string> GoldenFilesOf(const std::string& name) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    const std::string file = entry.path().filename().string();
    if (absl::StartsWith(file, name + ".v")) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

const char kChangedBytes[] =
    "today's bytes differ from the golden file of the version they record: a format "
    "change must change its version (docs/FORMAT.md) and add a golden file for it "
    "(bazel run //tests:write_golden_files -- $PWD/tests/testdata/golden)";

TEST(GoldenFormatTest, KeysFileListsTheGeneratedKeys) {
  const std::vector<std::string> keys = CheckedInKeys();
  ASSERT_EQ(keys.size(), 400u);
  EXPECT_EQ(keys, MakeGoldenKeys());
}

TEST(GoldenFormatTest, TodaysFiltersAreTheGoldenBytesOfTheirVersion) {
  const std::vector<std::string> keys = CheckedInKeys();
  for (const GoldenFilter& format : GoldenFilters()) {
    SCOPED_TRACE(format.name);
    absl::StatusOr<std::string> today = WriteGoldenFilter(format, keys);
    ASSERT_TRUE(today.ok()) << today.status();
    const std::string path = std::string(kDir) + "/" +
                             GoldenFileName(format.name, FilterFormatVersion(*today));
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: " << kChangedBytes;
    EXPECT_TRUE(*today == ReadFile(path)) << path << ": " << kChangedBytes;
  }
}

TEST(GoldenFormatTest, TodaysTablesAreTheGoldenBytesOfTheirVersion) {
  const std::vector<std::string> keys = CheckedInKeys();
  for (const GoldenTable& format : GoldenTables()) {
    SCOPED_TRACE(format.name);
    absl::StatusOr<std::string> today = WriteGoldenTable(format, keys);
    ASSERT_TRUE(today.ok()) << today.status();
    const std::string path =
        std::string(kDir) + "/" + GoldenFileName(format.name, TableFormatVersion(*today));
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: " << kChangedBytes;
    EXPECT_TRUE(*today == ReadFile(path)) << path << ": " << kChangedBytes;
  }
}

TEST(GoldenFormatTest, EveryGoldenFilterOfEveryVersionFindsEveryKey) {
  const std::vector<std::string> keys = CheckedInKeys();
  for (const GoldenFilter& format : GoldenFilters()) {
    const std::vector<std::string> files = GoldenFilesOf(format.name);
    EXPECT_FALSE(files.empty()) << format.name;
    for (const std::string& path : files) {
      SCOPED_TRACE(path);
      const std::string bytes = ReadFile(path);
      absl::StatusOr<std::unique_ptr<FilterReader>> reader = format.policy->NewReader(bytes);
      ASSERT_TRUE(reader.ok()) << reader.status();
      size_t missed = 0;
      for (const std::string& key : keys) missed += !(*reader)->KeyMayMatch(key);
      EXPECT_EQ(missed, 0u) << "keys rejected by a filter that holds them";
      if (const HashSpec* spec = (*reader)->hash_spec(); spec != nullptr) {
        std::vector<uint64_t> hashes;
        for (const std::string& key : keys) hashes.push_back(KeyHash(key, *spec));
        std::unique_ptr<bool[]> out(new bool[hashes.size()]);
        (*reader)->HashesMayMatch(hashes, absl::MakeSpan(out.get(), hashes.size()));
        EXPECT_EQ(std::count(out.get(), out.get() + hashes.size(), false), 0)
            << "keys rejected by a batched probe";
      }
    }
  }
}

TEST(GoldenFormatTest, EveryGoldenTableOfEveryVersionAnswersEveryKey) {
  const std::vector<std::string> keys = CheckedInKeys();
  for (const GoldenTable& format : GoldenTables()) {
    const std::vector<std::string> files = GoldenFilesOf(format.name);
    EXPECT_FALSE(files.empty()) << format.name;
    for (const std::string& path : files) {
      SCOPED_TRACE(path);
      absl::StatusOr<std::unique_ptr<Table>> table =
          Table::Open(NewMemRandomAccessFile(ReadFile(path)));
      ASSERT_TRUE(table.ok()) << table.status();
      // The answers below must come through the filter, not around it.
      ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
      ASSERT_NE((*table)->whole_key_filter(), nullptr);
      for (size_t i = 0; i < keys.size(); ++i) {
        const GoldenEntry e = GoldenEntryFor(keys, i);
        ASSERT_TRUE((*table)->KeyMayMatch(e.key)) << e.key;
        absl::StatusOr<LookupResult> r = (*table)->Get(e.key);
        ASSERT_TRUE(r.ok()) << r.status();
        if (e.type == EntryType::kDeletion) {
          EXPECT_EQ(r->kind, LookupResult::Kind::kDeleted) << e.key;
        } else {
          EXPECT_EQ(r->kind, LookupResult::Kind::kFound) << e.key;
          EXPECT_EQ(r->value, e.value) << e.key;
        }
      }
    }
  }
}

// docs/FORMAT.md's ModuleHash, transcribed from the text alone.
uint64_t DocumentedModuleHash(uint64_t h, int m) {
  if (m == 0) return h;
  uint64_t x = h ^ (uint64_t(m) * 0x9e3779b97f4a7c15ull);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (h >> 32 << 32) | (x & 0xffffffffull);
}

TEST(GoldenFormatTest, ModuleHashIsTheDocumentedFormula) {
  for (uint64_t i = 0; i < 100000; ++i) {
    const uint64_t h = internal::SplitMix64(i);
    for (int m = 0; m < kMaxFilterModules; ++m) {
      ASSERT_EQ(ModuleHash(h, m), DocumentedModuleHash(h, m)) << "h=" << h << " m=" << m;
    }
  }
}

TEST(GoldenFormatTest, EachGoldenModuleFindsEveryKeyUnderTheDocumentedHash) {
  // A module is a blocked filter of the keys' module hashes: each must hold
  // every key on its own, or a reader holding it rejects keys.
  const std::vector<std::string> keys = CheckedInKeys();
  size_t modular_files = 0;
  for (const GoldenFilter& format : GoldenFilters()) {
    if (format.policy->Name() != kModularBloomPolicyName) continue;
    for (const std::string& path : GoldenFilesOf(format.name)) {
      SCOPED_TRACE(path);
      ++modular_files;
      const std::string bytes = ReadFile(path);
      absl::StatusOr<ModularBloomHeader> header = ParseModularBloomHeader(bytes);
      ASSERT_TRUE(header.ok()) << header.status();
      ASSERT_GE(header->modules.size(), 2u);
      for (size_t m = 0; m < header->modules.size(); ++m) {
        const FilterModuleInfo& info = header->modules[m];
        ASSERT_LE(info.offset + info.size, bytes.size());
        absl::StatusOr<std::shared_ptr<const FilterModule>> module = FilterModule::Open(
            std::string_view(bytes).substr(info.offset, info.size), info, header->num_keys);
        ASSERT_TRUE(module.ok()) << module.status();
        size_t missed = 0;
        for (const std::string& key : keys) {
          missed += !(*module)->reader().MayMatchHash(
              DocumentedModuleHash(KeyHash(key), static_cast<int>(m)));
        }
        EXPECT_EQ(missed, 0u) << "module " << m;
      }
    }
  }
  EXPECT_GT(modular_files, 0u);
}

}  // namespace
}  // namespace golden
}  // namespace lsmbloom
