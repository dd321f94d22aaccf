// A table file replaced by another valid table (an older generation of the
// same store, or a copy of another level's file, as a botched restore
// leaves them) is refused on open, naming the file, whether the store
// reads its tables with pread or mmap: no lookup or scan may answer from
// it. And a MANIFEST written before it recorded ids and sizes still opens.

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_format.h"
#include "filenames.h"
#include "gtest/gtest.h"
#include "manifest.h"
#include "store.h"
#include "test_util.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;
using testing::Key;

// The two ways the store reads table files.
class ReplacedTableTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    base_ = testing::FreshTestDir();
    fs::create_directories(base_);
    options_.wal_sync.mode = WalSync::Mode::kNever;
    options_.l0_compaction_trigger = 100;
    options_.use_mmap = GetParam();
  }

  // A store with a level-1 file (keys 0..999) and a level-0 file that
  // overwrites some keys and deletes others; values carry `generation`, so
  // two stores built alike have the same file numbers and sizes but
  // different contents. Returns the right answers.
  std::map<std::string, std::string> Build(const std::string& dir, int generation) {
    std::map<std::string, std::string> model;
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options_);
    EXPECT_TRUE(store.ok()) << store.status();
    for (int i = 0; i < 1000; ++i) {
      model[Key(i)] = absl::StrFormat("gen%d-first%04d", generation, i);
      EXPECT_TRUE((*store)->Put(Key(i), model[Key(i)]).ok());
    }
    EXPECT_TRUE((*store)->CompactAll().ok());
    for (int i = 0; i < 1000; i += 3) {
      if (i % 2 == 0) {
        EXPECT_TRUE((*store)->Delete(Key(i)).ok());
        model.erase(Key(i));
      } else {
        model[Key(i)] = absl::StrFormat("gen%d-again%04d", generation, i);
        EXPECT_TRUE((*store)->Put(Key(i), model[Key(i)]).ok());
      }
    }
    EXPECT_TRUE((*store)->Flush().ok());
    EXPECT_EQ((*store)->files()[0].size(), 1u);
    EXPECT_EQ((*store)->files()[1].size(), 1u);
    EXPECT_TRUE((*store)->Close().ok());
    return model;
  }

  static uint64_t FileOfLevel(const std::string& dir, int level) {
    absl::StatusOr<Manifest> m = ReadManifest(dir);
    EXPECT_TRUE(m.ok()) << m.status();
    for (const ManifestFile& f : m->files) {
      if (f.level == level) return f.number;
    }
    ADD_FAILURE() << "no file in level " << level;
    return 0;
  }

  // Opens `dir` expecting DataLoss naming `path`. Should it open, no
  // answer may differ from `model`: every Get and a full scan either fail
  // or are right.
  void ExpectRefused(const std::string& dir, const std::string& path,
                     const std::map<std::string, std::string>& model) {
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options_);
    if (store.ok()) {
      int wrong = 0;
      for (int i = 0; i < 1000; ++i) {
        absl::StatusOr<std::optional<std::string>> v = (*store)->Get(Key(i));
        if (!v.ok()) continue;
        auto it = model.find(Key(i));
        const std::optional<std::string> want =
            it == model.end() ? std::nullopt : std::optional<std::string>(it->second);
        wrong += *v != want;
      }
      EXPECT_EQ(wrong, 0) << "Get answered from the replaced table";
      std::map<std::string, std::string> scanned;
      absl::Status s = (*store)->Scan({}, [&](std::string_view k, std::string_view v) {
        scanned.emplace(k, v);
        return true;
      });
      if (s.ok()) EXPECT_EQ(scanned, model) << "Scan answered from the replaced table";
    }
    ASSERT_TRUE(absl::IsDataLoss(store.status())) << store.status();
    EXPECT_NE(store.status().message().find(path), std::string::npos) << store.status();
  }

  std::string base_;
  StoreOptions options_;
};

TEST_P(ReplacedTableTest, OlderGenerationOfALiveTableIsRefused) {
  const std::string old_dir = base_ + "/old", dir = base_ + "/db";
  Build(old_dir, 1);
  const auto model = Build(dir, 2);
  for (int level : {1, 0}) {
    const uint64_t number = FileOfLevel(dir, level);
    ASSERT_EQ(number, FileOfLevel(old_dir, level));
    const std::string path = TableFileName(dir, number);
    const std::string saved = path + ".saved";
    fs::copy_file(path, saved);
    // Same number, same size, another generation's contents.
    ASSERT_EQ(fs::file_size(path), fs::file_size(TableFileName(old_dir, number)));
    fs::copy_file(TableFileName(old_dir, number), path, fs::copy_options::overwrite_existing);
    ExpectRefused(dir, path, model);
    fs::rename(saved, path);
  }
  // The real files back: it opens and answers.
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<std::string>> v = (*store)->Get(Key(1));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, model.at(Key(1)));
}

TEST_P(ReplacedTableTest, AnotherLevelsFileCopiedOverALiveTableIsRefused) {
  const std::string dir = base_ + "/db";
  const auto model = Build(dir, 1);
  const std::string l0 = TableFileName(dir, FileOfLevel(dir, 0));
  const std::string l1 = TableFileName(dir, FileOfLevel(dir, 1));
  const std::string saved = l1 + ".saved";
  fs::copy_file(l1, saved);
  fs::copy_file(l0, l1, fs::copy_options::overwrite_existing);
  ExpectRefused(dir, l1, model);
  fs::copy_file(saved, l1, fs::copy_options::overwrite_existing);
  fs::copy_file(l1, l0, fs::copy_options::overwrite_existing);
  ExpectRefused(dir, l0, model);
}

TEST_P(ReplacedTableTest, VersionOneManifestOpensThenRecordsItsTables) {
  const std::string dir = base_ + "/db";
  const auto model = Build(dir, 1);
  absl::StatusOr<Manifest> m = ReadManifest(dir);
  ASSERT_TRUE(m.ok()) << m.status();
  // The manifest as a store from before ids and sizes wrote it.
  std::string v1 = "kvstore-manifest v1\n";
  absl::StrAppendFormat(&v1, "next_file_number %d\nlast_sequence %d\nlog_number %d\n",
                        m->next_file_number, m->last_sequence, m->log_number);
  for (const ManifestFile& f : m->files) absl::StrAppendFormat(&v1, "file %d %d\n", f.level, f.number);
  v1 += "end\n";
  {
    std::ofstream out(ManifestPath(dir), std::ios::binary | std::ios::trunc);
    out << v1;
  }
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options_);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::optional<std::string>> v = (*store)->Get(Key(1));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, model.at(Key(1)));
  ASSERT_TRUE((*store)->Put(Key(5000), "new").ok());
  ASSERT_TRUE((*store)->Close().ok());  // Flushes: a new MANIFEST.
  m = ReadManifest(dir);
  ASSERT_TRUE(m.ok()) << m.status();
  for (const ManifestFile& f : m->files) {
    EXPECT_TRUE(f.recorded()) << f.number;
    EXPECT_EQ(f.file_size, fs::file_size(TableFileName(dir, f.number)));
  }
  // From now on a replaced file is caught.
  const std::string l1 = TableFileName(dir, FileOfLevel(dir, 1));
  fs::copy_file(TableFileName(dir, FileOfLevel(dir, 0)), l1, fs::copy_options::overwrite_existing);
  ExpectRefused(dir, l1, model);
}

INSTANTIATE_TEST_SUITE_P(PreadAndMmap, ReplacedTableTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Mmap" : "Pread"; });

}  // namespace
}  // namespace kvstore
