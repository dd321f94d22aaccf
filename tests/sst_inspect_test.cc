// The sst_inspect tool, run as a program: golden text for props, scan and
// get, JSON parsed back, one clear line on stderr for every kind of bad
// input, usage errors, help and --version.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/sst_inspect_testutil.h"

namespace lsmbloom {
namespace inspect_test {
namespace {

// ---------------------------------------------------------------- golden

TEST_F(SstInspectTest, PropsGolden) {
  const RunResult r = RunTool("props " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Masked(r.out, path_), R"(FILE
  size               2654 bytes (2.6 KiB)
  format             lsmbloom table v2 (footer of 64 bytes at 2590: magic and checksum ok)
  unique id          00c0ffee00c0ffee (every block's checksum is bound to it)
  created            <time> by lsmbloom
  entries            64: 56 values, 8 deletions
  distinct keys      63
  key range          "apple" .. "key059"
  raw sizes          keys 381 bytes, values 430 bytes
  data blocks        5, 1322 bytes (1.3 KiB); block size 256, restart interval 16, compression none
  index block        128 bytes at 2453
  meta-index block   76 bytes at 2368
  properties block   814 bytes at 1545
  filter block       192 bytes at 1344
  filter             lsmbloom.BlockedBloom.v1, 192 bytes, whole keys, 63 keys added
    status           trusted
    describe         blocked bloom v1: 6 probes, 2 blocks of 64 bytes, 63 keys, 16.254 bits/key, hash xxh3-64 seed 0
    bits/key         16.254
    k (probes)       6
    blocks           2 of 64 bytes
    keys             63 distinct hashes
    format version   1
    hash             xxh3-64, seed 0
    predicted fpr    0.115%
  properties         21, as recorded:
    lsmbloom.block_size                "256"
    lsmbloom.compression               "none"
    lsmbloom.creation_time             <time>
    lsmbloom.creator                   "lsmbloom"
    lsmbloom.data_size                 "1322"
    lsmbloom.filter.keys_added         "63"
    lsmbloom.filter.params             "blocked bloom v1: 6 probes, 2 blocks of 64 bytes, 63 keys, 16.254 bits/key, hash xxh3-64 seed 0"
    lsmbloom.filter.policy             "lsmbloom.BlockedBloom.v1"
    lsmbloom.filter.prefix_extractor   ""
    lsmbloom.filter.size               "192"
    lsmbloom.filter.whole_key          "1"
    lsmbloom.format_version            "2"
    lsmbloom.largest_user_key          "key059"
    lsmbloom.num_data_blocks           "5"
    lsmbloom.num_deletions             "8"
    lsmbloom.num_entries               "64"
    lsmbloom.raw_key_size              "381"
    lsmbloom.raw_value_size            "430"
    lsmbloom.restart_interval          "16"
    lsmbloom.smallest_user_key         "apple"
    lsmbloom.unique_id                 "00c0ffee00c0ffee"
)");
}

TEST_F(SstInspectTest, ScanLimit3Golden) {
  const RunResult r = RunTool("scan " + Shell(path_) + " --limit 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, R"("apple" @7 value "red"
"apple" @3 value "green"
"banana" @5 deletion
)");
}

TEST_F(SstInspectTest, ScanRangeTakesEscapesAndPrintsThem) {
  // [from, to): the binary key is printed escaped and accepted escaped.
  const RunResult r = RunTool("scan " + Shell(path_) + " --from 'bin\\x01' --to=key001");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "\"bin\\x01\\xff\" @4 value \"\\x00 \\x22q\\x22 \\x5c\"\n"
            "\"key000\" @100 value \"value-0\"\n");
}

TEST_F(SstInspectTest, GetShowsTheNewestEntryTheFileAndTheFilterAnswer) {
  RunResult r = RunTool("get " + Shell(path_) + " apple");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Masked(r.out, path_), "\"apple\" @7 value \"red\"\n  FILE: filter maybe, value @7\n");
  r = RunTool("get " + Shell(path_) + " 'bin\\x01\\xFF'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(Masked(r.out, path_),
            "\"bin\\x01\\xff\" @4 value \"\\x00 \\x22q\\x22 \\x5c\"\n"
            "  FILE: filter maybe, value @4\n");
}

TEST_F(SstInspectTest, GetOfAKeyWithNoValueExitsOneLikeKvstore) {
  // A tombstone: the key has no value.
  RunResult r = RunTool("get " + Shell(path_) + " banana");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Masked(r.out, path_), "\"banana\" @5 deletion\n  FILE: filter maybe, deletion @5\n");
  r = RunTool("get " + Shell(path_) + " key0005 --json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  const Json doc = ParseJson(r.out);
  EXPECT_EQ(doc["result"].get<std::string>(), "not_found");
  EXPECT_TRUE(doc["from"].is_null());
  EXPECT_FALSE(doc["ok"].get<bool>());
  const std::string filter = doc["files"][0]["filter"].get<std::string>();
  EXPECT_TRUE(filter == "maybe" || filter == "no") << filter;
}

TEST_F(SstInspectTest, VerifyPassesAGoodTable) {
  const RunResult r = RunTool("verify " + Shell(path_));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Masked(r.out, path_),
            "FILE: OK\n"
            "  entries            64 read, 63 keys, 8 deletions\n"
            "  checksums          footer, index, meta-index, properties and 5 data blocks ok\n"
            "  lookups            63 of 63 keys found at their newest entry\n"
            "  filter             63 keys checked, 0 false negatives\n");
}

// ---------------------------------------------------------------- JSON

TEST_F(SstInspectTest, PropsJson) {
  const RunResult r = RunTool("props --json " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = ParseJson(r.out);
  EXPECT_EQ(doc["schema_version"].get<double>(), 2);
  EXPECT_EQ(doc["command"].get<std::string>(), "props");
  EXPECT_TRUE(doc["ok"].get<bool>());
  const Json& file = doc["files"][0];
  EXPECT_EQ(file["file"].get<std::string>(), path_);
  EXPECT_EQ(file["entries"].get<double>(), 64);
  EXPECT_EQ(file["deletions"].get<double>(), 8);
  EXPECT_EQ(file["distinct_keys"].get<double>(), 63);
  EXPECT_EQ(file["smallest_key"].get<std::string>(), "apple");
  EXPECT_EQ(file["data_blocks"].get<double>(), 5);
  const Json& filter = file["filter"];
  EXPECT_EQ(filter["policy"].get<std::string>(), "lsmbloom.BlockedBloom.v1");
  EXPECT_TRUE(filter["trusted"].get<bool>());
  EXPECT_EQ(filter["blocked"]["num_keys"].get<double>(), 63);
  EXPECT_EQ(filter["blocked"]["num_blocks"].get<double>(), 2);
  EXPECT_GT(filter["predicted_fpr"].get<double>(), 0);
  EXPECT_EQ(file["properties"]["lsmbloom.num_entries"].get<std::string>(), "64");
  EXPECT_EQ(file["format_version"].get<double>(), 2);
  EXPECT_EQ(file["unique_id"].get<std::string>(), "00c0ffee00c0ffee");
  EXPECT_EQ(file["properties"]["lsmbloom.unique_id"].get<std::string>(), "00c0ffee00c0ffee");
}

TEST_F(SstInspectTest, ScanJsonKeepsEveryByteThroughTheEscapes) {
  const RunResult r = RunTool("scan --json " + Shell(path_) + " --limit=4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = ParseJson(r.out);
  const Json& entries = doc["entries"];
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_TRUE(doc["more"].get<bool>());
  EXPECT_EQ(doc["count"].get<double>(), 4);
  EXPECT_EQ(doc["files"][0]["entries"].get<double>(), 4);
  EXPECT_EQ(entries[0]["file"].get<std::string>(), path_);
  EXPECT_EQ(entries[1]["key"].get<std::string>(), "apple");
  EXPECT_EQ(entries[1]["sequence"].get<double>(), 3);
  EXPECT_EQ(entries[2]["type"].get<std::string>(), "deletion");
  EXPECT_EQ(entries[3]["key"].get<std::string>(), "bin\\x01\\xff");
  EXPECT_EQ(entries[3]["value"].get<std::string>(), "\\x00 \\x22q\\x22 \\x5c");
}

TEST_F(SstInspectTest, VerifyJson) {
  const RunResult r = RunTool("verify --json " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_TRUE(file["ok"].get<bool>());
  EXPECT_EQ(file["entries"].get<double>(), 64);
  EXPECT_EQ(file["lookups_ok"].get<double>(), 63);
  EXPECT_EQ(file["filter_keys_checked"].get<double>(), 63);
  EXPECT_EQ(file["problems"].size(), 0u);
}

TEST_F(SstInspectTest, FilterJson) {
  const RunResult r = RunTool("filter --json --probes=5000 " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  const Json& health = file["health"];
  EXPECT_EQ(health["distinct_hashes"].get<double>(), 63);
  EXPECT_EQ(health["false_negatives"].get<double>(), 0);
  EXPECT_EQ(health["bits_total"].get<double>(), 1024);
  EXPECT_EQ(health["block_load"]["min"].get<double>() + health["block_load"]["max"].get<double>(),
            63);
  EXPECT_EQ(file["fpr"]["measured"]["generated"].get<double>(), 5000);
  EXPECT_EQ(file["problem"].get<std::string>(), "");
}

// ---------------------------------------------------------------- bad input

// Expects the one-line error "sst_inspect: <what>..." and a usage or
// problem exit status, for every command that reads `path`.
void ExpectFileError(const std::string& path, const std::string& reason,
                     const std::string& tool = kTool) {
  for (const std::string command :
       {"props", "blocks", "sizes", "filter", "verify", "scan", "get"}) {
    const std::string args = command + " " + Shell(path) + (command == "get" ? " somekey" : "");
    const RunResult r = RunTool(args, tool);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(CountLines(r.err), 1u) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("sst_inspect: " + path + ": ", 0), 0u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << args << ": " << r.err;
    // With --json the document still parses and names the file's error.
    const RunResult j = RunTool(args + " --json", tool);
    EXPECT_EQ(j.exit_code, 1);
    const Json doc = ParseJson(j.out);
    EXPECT_FALSE(doc["ok"].get<bool>());
    EXPECT_NE(doc["files"][0]["error"].get<std::string>().find(reason), std::string::npos) << j.out;
  }
}

TEST_F(SstInspectTest, BadFilesGiveOneLineAndNonZeroExit) {
  ExpectFileError(TempPath("does_not_exist.sst"), "No such file");
  const std::string empty_dir = TempPath("no_tables");
  std::filesystem::create_directories(empty_dir);
  ExpectFileError(empty_dir, "no *.sst files");

  const std::string garbage = TempPath("garbage.sst");
  WriteFile(garbage, std::string(5000, 'g'));
  ExpectFileError(garbage, "not an lsmbloom table");

  const std::string good = ReadFile(path_);
  const std::string truncated = TempPath("truncated.sst");
  WriteFile(truncated, good.substr(0, good.size() / 2));
  ExpectFileError(truncated, "bad magic");
  // Cut short by a few bytes, or appended to: the footer is still there to
  // say so, rather than "bad magic".
  for (size_t cut : {1, 5, 8}) {
    WriteFile(truncated, good.substr(0, good.size() - cut));
    ExpectFileError(truncated, "file looks truncated: it ends " + std::to_string(cut) + " byte");
  }
  WriteFile(truncated, good + "xyz");
  ExpectFileError(truncated, "followed by 3 extra bytes");
  WriteFile(truncated, good.substr(0, 20));
  ExpectFileError(truncated, "too short");
  WriteFile(truncated, "");
  ExpectFileError(truncated, "too short");

  // Root reads files whatever their mode, so as root the tool runs as
  // "nobody" (setpriv), from a copy in a directory that user can reach.
  // Not TEST_TMPDIR: "nobody" cannot reach into Bazel's output base.
  std::string dir = "/tmp/sst_inspect_test.XXXXXX";
  ASSERT_NE(mkdtemp(&dir[0]), nullptr);
  struct RemoveAtEnd {
    std::string path;
    ~RemoveAtEnd() { std::filesystem::remove_all(path); }
  } remove_at_end{dir};
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  std::string tool = kTool;
  if (geteuid() == 0) {
    const std::string copy = dir + "/sst_inspect";
    WriteFile(copy, ReadFile(kTool));
    ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
    tool = "setpriv --reuid=65534 --regid=65534 --clear-groups " + Shell(copy);
  }
  const std::string unreadable = dir + "/unreadable.sst";
  WriteFile(unreadable, good);
  ASSERT_EQ(chmod(unreadable.c_str(), 0), 0);
  ExpectFileError(unreadable, "Permission denied", tool);
}

TEST_F(SstInspectTest, OneBadFileAmongGoodOnesFailsOnlyItself) {
  const std::string missing = TempPath("missing.sst");
  const RunResult r = RunTool("props " + Shell(path_) + " " + Shell(missing) + " " + Shell(path_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;
  size_t reports = 0;
  for (size_t at = 0; (at = r.out.find("  entries            64", at)) != std::string::npos; ++at) {
    ++reports;
  }
  EXPECT_EQ(reports, 2u) << r.out;
  const Json doc = ParseJson(RunTool("verify --json " + Shell(path_) + " " + Shell(missing)).out);
  ASSERT_EQ(doc["files"].size(), 2u);
  EXPECT_TRUE(doc["files"][0]["ok"].get<bool>());
  EXPECT_NE(doc["files"][1]["error"].get<std::string>(), "");
}

TEST_F(SstInspectTest, UsageErrorsGiveOneLineAndExitTwo) {
  const std::vector<std::string> cases = {
      "",                                              // No command.
      "frobnicate " + Shell(path_),                    // Unknown command.
      "props",                                         // Missing FILE.
      "get " + Shell(path_),                           // Missing KEY.
      "get " + Shell(path_) + " --hex 6",              // Odd hex.
      "scan " + Shell(path_) + " --from b --to a",     // An empty range, backwards.
      "scan " + Shell(path_) + " --count-only=maybe",  // Bad boolean.
      "props --bogus " + Shell(path_),                 // Unknown flag.
      "props --probes=5 " + Shell(path_),              // Flag of another command.
      "filter --probes=lots " + Shell(path_),          // Bad value.
      "scan " + Shell(path_) + " --limit",             // Missing value.
      "get " + Shell(path_) + " 'a\\x4'",              // Bad escape.
      "scan " + Shell(path_) + " --from 'a\\b'",
  };
  for (const std::string& args : cases) {
    const RunResult r = RunTool(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    if (args.empty()) continue;  // Prints the usage text to stderr.
    EXPECT_EQ(CountLines(r.err), 1u) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("sst_inspect: ", 0), 0u) << args << ": " << r.err;
  }
}

TEST(SstInspectHelpTest, EveryCommandHasHelp) {
  for (const std::string command :
       {"props", "blocks", "sizes", "filter", "verify", "scan", "get", "dump"}) {
    for (const std::string& args : {command + " --help", "help " + command, command + " -h"}) {
      const RunResult r = RunTool(args);
      EXPECT_EQ(r.exit_code, 0) << args;
      EXPECT_EQ(r.err, "") << args;
      EXPECT_EQ(r.out.rfind("usage: sst_inspect " + command + " ", 0), 0u) << args << r.out;
      EXPECT_NE(r.out.find("--json"), std::string::npos) << args;
      EXPECT_NE(r.out.find("--quiet"), std::string::npos) << args;
    }
  }
  const RunResult r = RunTool("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command :
       {"props", "blocks", "sizes", "filter", "verify", "scan", "get", "dump"}) {
    EXPECT_NE(r.out.find(std::string("  ") + command + " "), std::string::npos) << r.out;
  }
  EXPECT_NE(RunTool("filter --help").out.find("--probes"), std::string::npos);
  EXPECT_NE(RunTool("scan --help").out.find("--limit"), std::string::npos);
  EXPECT_NE(RunTool("scan --help").out.find("--skip-damaged"), std::string::npos);
}

// --quiet is one rule for every command: accepted everywhere.
TEST_F(SstInspectTest, EveryCommandAcceptsQuiet) {
  for (const std::string args : {"props", "blocks", "sizes", "verify", "scan"}) {
    const RunResult r = RunTool(args + " --quiet " + Shell(path_));
    EXPECT_EQ(r.exit_code, 0) << args << r.err;
  }
  EXPECT_EQ(RunTool("filter --quiet --probes=10 " + Shell(path_)).exit_code, 0);
  EXPECT_EQ(RunTool("get --quiet " + Shell(path_) + " apple").exit_code, 0);
  EXPECT_EQ(RunTool("dump --quiet " + Shell(path_) + " 0").exit_code, 0);
}

TEST(SstInspectHelpTest, VersionPrintsAndExitsZero) {
  const RunResult r = RunTool("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("sst_inspect (lsmbloom)", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("schema_version 2"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace inspect_test
}  // namespace lsmbloom
