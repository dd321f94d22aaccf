// The ldb views: the lookup explanation agrees with Get for present,
// deleted and absent keys across the memtable and several levels; the
// MANIFEST dump lists every live file and flags a replaced one; the log
// dump shows each write of an unflushed store.

#include "ldb.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "filenames.h"
#include "gtest/gtest.h"
#include "store.h"
#include "test_util.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;
using testing::Key;

// Runs print into a string.
template <typename Print>
std::string Capture(Print print, absl::Status* status) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  *status = print(out);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

class LdbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir();
    options_.wal_sync.mode = WalSync::Mode::kNever;
    options_.memtable_max_bytes = 16 << 10;
    options_.target_file_size = 8 << 10;
    options_.level1_max_bytes = 24 << 10;
    options_.level_size_multiplier = 3;
    options_.table_options.block_size = 1024;
  }
  std::string dir_;
  StoreOptions options_;
};

TEST_F(LdbTest, LookupExplanationAgreesWithGetEverywhere) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options_);
  ASSERT_TRUE(store.ok()) << store.status();
  std::mt19937_64 rng(8);
  for (int i = 0; i < 8000; ++i) {
    const std::string key = Key(rng() % 2000);
    ASSERT_TRUE((rng() % 5 == 0 ? (*store)->Delete(key) : (*store)->Put(key, "v")).ok());
  }
  int levels_used = 0;
  for (const auto& level : (*store)->files()) levels_used += !level.empty();
  ASSERT_GE(levels_used, 2);
  int found = 0, absent = 0;
  for (int i = 0; i < 2100; i += 7) {
    for (const std::string& key : {Key(i), Key(i) + "x"}) {
      absl::Status s;
      const std::string text =
          Capture([&](std::FILE* out) { return ExplainLookup(**store, key, out); }, &s);
      ASSERT_TRUE(s.ok()) << s << "\n" << text;
      const bool has = text.find("\nanswer: found") != std::string::npos;
      found += has;
      absent += !has;
      if (text.find("memtable: has the key") == std::string::npos) {
        EXPECT_NE(text.find("level "), std::string::npos) << text;
      }
    }
  }
  EXPECT_GT(found, 100);
  EXPECT_GT(absent, 300);
}

TEST_F(LdbTest, ManifestDumpListsEveryFileAndFlagsAReplacedOne) {
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options_);
  ASSERT_TRUE(store.ok()) << store.status();
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE((*store)->Put(Key(i), "value").ok());
  ASSERT_TRUE((*store)->Close().ok());
  const auto levels = (*store)->files();
  absl::Status s;
  std::string text = Capture([&](std::FILE* out) { return DumpManifest(dir_, out); }, &s);
  ASSERT_TRUE(s.ok()) << s << "\n" << text;
  std::vector<uint64_t> numbers;
  for (const auto& level : levels) {
    for (const auto& f : level) {
      numbers.push_back(f.file_number);
      EXPECT_NE(text.find(absl::StrFormat("  %06d.sst  size %d  id %016x\n", f.file_number,
                                          f.table->file_size(), f.table->unique_id())),
                std::string::npos)
          << text;
    }
  }
  ASSERT_GE(numbers.size(), 2u);
  fs::copy_file(TableFileName(dir_, numbers[0]), TableFileName(dir_, numbers[1]),
                fs::copy_options::overwrite_existing);
  text = Capture([&](std::FILE* out) { return DumpManifest(dir_, out); }, &s);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(TableFileName(dir_, numbers[1])), std::string::npos) << s;
  EXPECT_NE(text.find("(replaced?)"), std::string::npos) << text;
}

TEST_F(LdbTest, WalDumpShowsEachUnflushedWrite) {
  options_.memtable_max_bytes = 1 << 20;
  {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir_, options_);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Put("k\t1", "v\n1").ok());
    WriteBatch batch;
    batch.Put("k2", "");
    batch.Delete("k\t1");
    ASSERT_TRUE((*store)->Write(batch).ok());
    // Not closed: the writes are only in the log.
  }
  absl::Status s;
  const std::string text = Capture([&](std::FILE* out) { return DumpWals(dir_, out); }, &s);
  ASSERT_TRUE(s.ok()) << s << "\n" << text;
  const std::vector<std::string> lines = absl::StrSplit(text, '\n');
  ASSERT_EQ(lines.size(), 8u) << text;
  EXPECT_EQ(lines[1], "  @0 sequence 1, 1 op");
  EXPECT_EQ(lines[2], "    put\tk\\x091\tv\\x0a1");
  EXPECT_EQ(lines[3].rfind("  @", 0), 0u);
  EXPECT_NE(lines[3].find(" sequence 2, 2 ops"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[4], "    put\tk2\t");
  EXPECT_EQ(lines[5], "    delete\tk\\x091");
  EXPECT_EQ(lines[6], "  2 records, 3 ops, sequences 1..3");
}

}  // namespace
}  // namespace kvstore
