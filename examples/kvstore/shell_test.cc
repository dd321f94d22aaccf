// The shell's one-line answers, and loading TSV files: what goes in, what
// a bad line says and that it writes nothing.

#include "shell.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include "fault_injection_env.h"
#include "gtest/gtest.h"
#include "load.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;

class ShellTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    base_ = (fs::path(::testing::TempDir()) / name).string();
    fs::remove_all(base_);
    fs::create_directories(base_);
    StoreOptions options;
    options.wal_sync.mode = WalSync::Mode::kNever;
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(base_ + "/db", options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // Runs `input` through the shell; returns what it answered.
  std::string Run(const std::string& input) {
    std::FILE* in = fmemopen(const_cast<char*>(input.data()), input.size(), "r");
    char* out_buffer = nullptr;
    size_t out_size = 0;
    std::FILE* out = open_memstream(&out_buffer, &out_size);
    RunShell(*store_, in, out);
    std::fclose(in);
    std::fclose(out);
    std::string answer(out_buffer, out_size);
    std::free(out_buffer);
    return answer;
  }

  std::string WriteTsv(const std::string& name, const std::string& text) {
    const std::string path = base_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::string base_;
  std::unique_ptr<Store> store_;
};

// A failed log sync fails the put, and stats says why writes are refused.
TEST(ShellSyncErrorTest, StatsReportsWhyWritesAreRefused) {
  FaultInjectionEnv env;
  StoreOptions options;
  options.env = &env;
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open("/db", options);
  ASSERT_TRUE(store.ok()) << store.status();
  env.FailNextSync(".log");
  const std::string input = "put k v\nstats\n";
  std::FILE* in = fmemopen(const_cast<char*>(input.data()), input.size(), "r");
  char* out_buffer = nullptr;
  size_t out_size = 0;
  std::FILE* out = open_memstream(&out_buffer, &out_size);
  RunShell(**store, in, out);
  std::fclose(in);
  std::fclose(out);
  const std::string answer(out_buffer, out_size);
  std::free(out_buffer);
  EXPECT_EQ(answer.rfind("ERROR ", 0), 0u) << answer;
  EXPECT_NE(answer.find("\nOK last_sequence=0 memtable_entries=0 memtable_bytes=0 files: none "
                        "write_error=write-ahead log failed; reopen the store: syncing the "
                        "write-ahead log failed"),
            std::string::npos)
      << answer;
  EXPECT_NE(answer.find("fdatasync /db/"), std::string::npos) << answer;
}

TEST_F(ShellTest, AnswersEachCommandOnOneLine) {
  EXPECT_EQ(Run("put a 1\n"
                "put b two words\n"
                "get a\n"
                "get b\n"
                "get zz\n"
                "\n"
                "# a comment\n"
                "delete a\n"
                "get a\n"
                "flush\n"
                "put c 3\n"
                "scan\n"
                "scan c - 5\n"
                "compact\n"
                "get b\n"),
            "OK\nOK\nVALUE 1\nVALUE two words\nNOT_FOUND\nOK\nNOT_FOUND\nOK\nOK\n"
            "b\ttwo words\nc\t3\nOK 2\n"
            "c\t3\nOK 1\n"
            "OK\nVALUE two words\n");
}

TEST_F(ShellTest, QuitStopsReadingAndErrorsDoNotStopTheShell) {
  EXPECT_EQ(Run("frob\nput\nget\ncompact x\nput k v\nquit\nput never seen\n"),
            "ERROR unknown command 'frob' (try help)\nERROR usage: put KEY VALUE\n"
            "ERROR usage: get KEY\nERROR usage: compact [LEVEL]\nOK\nBYE\n");
  EXPECT_EQ(Run("get never\n"), "NOT_FOUND\n");
}

TEST_F(ShellTest, StatsAndHelpAnswerOneLine) {
  const std::string stats = Run("put k v\nstats\n");
  EXPECT_EQ(stats.rfind("OK\nOK last_sequence=1 memtable_entries=1 ", 0), 0u) << stats;
  EXPECT_EQ(std::count(stats.begin(), stats.end(), '\n'), 2);
  const std::string help = Run("help\n");
  EXPECT_NE(help.find("batch FILE"), std::string::npos);
  EXPECT_EQ(std::count(help.begin(), help.end(), '\n'), 1);
}

TEST_F(ShellTest, BatchLoadsATsvFile) {
  const std::string path = WriteTsv("in.tsv", "k1\tv1\nk2\tv\twith tab\nk3\t\n");
  EXPECT_EQ(Run("batch " + path + "\nget k2\nget k3\nscan\n"),
            "OK 3\nVALUE v\\x09with tab\nVALUE \nk1\tv1\nk2\tv\\x09with tab\nk3\t\nOK 3\n");
}

TEST_F(ShellTest, AnswersStayOneLineWhateverTheBytes) {
  const std::string key("a\nb\0", 4), value("x\ny\tz\\\r\xff", 8);
  ASSERT_TRUE(store_->Put(key, value).ok());
  EXPECT_EQ(Run("get a\\x0ab\\x00\nscan\n"),
            "VALUE x\\x0ay\\x09z\\x5c\\x0d\\xff\n"
            "a\\x0ab\\x00\tx\\x0ay\\x09z\\x5c\\x0d\\xff\nOK 1\n");
  // And what the shell is given is read the same way.
  EXPECT_EQ(Run("put k\\x20\\x5C two\\x0alines\nscan k k~\nget k\\x20\\x5c\n"),
            "OK\nk \\x5c\ttwo\\x0alines\nOK 1\nVALUE two\\x0alines\n");
  EXPECT_EQ(Run("get a\\b\n").rfind("ERROR bad escape at byte 1", 0), 0u);
}

TEST_F(ShellTest, AValueMayBeEmptyButMustBeGivenAndAKeyNeverEmpty) {
  EXPECT_EQ(Run("put onlykey\nput k \nget k\nget onlykey\nscan \\x2d - 1\n"),
            "ERROR usage: put KEY VALUE\nOK\nVALUE \nNOT_FOUND\nk\t\nOK 1\n");
  EXPECT_EQ(Run("scan z a\n").rfind("ERROR scan: from is after to", 0), 0u);
}

TEST_F(ShellTest, LoadReadsWhatScanWritesForEveryByte) {
  // Random binary keys and values (every byte value, tabs, line breaks,
  // backslashes, empty values), written as scan writes them.
  std::mt19937_64 rng(33);
  std::map<std::string, std::string> model;
  for (int i = 0; i < 2000; ++i) {
    std::string key(1 + rng() % 12, '\0'), value(rng() % 40, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 256);
    for (char& c : value) c = static_cast<char>(rng() % 256);
    if (i < 256) key = std::string(1, static_cast<char>(i)) + "\\\t\n";
    model[key] = value;
  }
  std::string text;
  for (const auto& [k, v] : model) text += TsvLine(k, v);
  const std::string path = WriteTsv("binary.tsv", text);
  absl::StatusOr<uint64_t> n = LoadTsv(*store_, path, nullptr);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, model.size());
  std::map<std::string, std::string> back;
  std::string rescanned;
  ASSERT_TRUE(store_->Scan({}, [&](std::string_view k, std::string_view v) {
                back.emplace(k, v);
                rescanned += TsvLine(k, v);
                return true;
              }).ok());
  EXPECT_TRUE(back == model);
  EXPECT_EQ(rescanned, text);
}

TEST_F(ShellTest, LoadNamesTheBadLineAndWritesNothing) {
  const std::string no_tab = WriteTsv("no_tab.tsv", "a\t1\nb\t2\nno tab here\nd\t4\n");
  absl::StatusOr<uint64_t> n = LoadTsv(*store_, no_tab, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(n.status()));
  EXPECT_NE(n.status().message().find("no_tab.tsv:3: no tab"), std::string::npos) << n.status();
  EXPECT_NE(n.status().message().find("nothing was written"), std::string::npos) << n.status();
  const std::string empty_key = WriteTsv("empty_key.tsv", "a\t1\n\t2\n");
  n = LoadTsv(*store_, empty_key, nullptr);
  EXPECT_NE(n.status().message().find("empty_key.tsv:2: empty key"), std::string::npos)
      << n.status();
  const std::string bad_escape = WriteTsv("bad_escape.tsv", "a\t1\nb\tc:\\dir\n");
  n = LoadTsv(*store_, bad_escape, nullptr);
  EXPECT_NE(n.status().message().find("bad_escape.tsv:2: value: bad escape"), std::string::npos)
      << n.status();
  EXPECT_TRUE(absl::IsNotFound(LoadTsv(*store_, base_ + "/missing.tsv", nullptr).status()));
  EXPECT_EQ(store_->last_sequence(), 0u);
}

TEST_F(ShellTest, LoadWritesManyKeysInBatchesWithProgress) {
  std::string text;
  for (int i = 0; i < 30000; ++i)
    text += "key" + std::to_string(i) + "\t" + std::string(50, 'v') + "\n";
  const std::string path = WriteTsv("big.tsv", text);
  char* progress_buffer = nullptr;
  size_t progress_size = 0;
  std::FILE* progress = open_memstream(&progress_buffer, &progress_size);
  absl::StatusOr<uint64_t> n = LoadTsv(*store_, path, progress);
  std::fclose(progress);
  const std::string report(progress_buffer, progress_size);
  std::free(progress_buffer);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 30000u);
  EXPECT_NE(report.find("load: 30000/30000 keys"), std::string::npos) << report;
  // Batches of about 1 MiB: a few, not one per key.
  EXPECT_EQ(store_->last_sequence(), 30000u);
  absl::StatusOr<std::optional<std::string>> v = store_->Get("key29999");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, std::string(50, 'v'));
}

}  // namespace
}  // namespace kvstore
