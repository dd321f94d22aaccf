// What the sst_inspect tests share: running the tool and capturing its
// output and exit status, reading its JSON back (nlohmann::json), and a
// small golden table with versions, tombstones and bytes that need escaping.

#ifndef LSMBLOOM_TESTS_SST_INSPECT_TESTUTIL_H_
#define LSMBLOOM_TESTS_SST_INSPECT_TESTUTIL_H_

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"
#include "nlohmann/json.hpp"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace inspect_test {

using testutil::Entry;
// The tool's JSON documents, read back.
using Json = nlohmann::json;

// ---------------------------------------------------------------- running

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// `s` in single quotes for /bin/sh.
inline std::string Shell(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// The binary is in the test's runfiles, relative to its working directory.
inline constexpr char kTool[] = "tools/sst_inspect";

// Runs `tool` (a command line that starts the tool) with `args` (already
// shell-quoted where needed).
inline RunResult RunTool(const std::string& args, const std::string& tool = kTool) {
  const std::string err_path = TempPath("stderr.txt");
  const std::string command = tool + " " + args + " 2>" + Shell(err_path);
  RunResult r;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) r.out.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = ReadFile(err_path);
  return r;
}

inline Json ParseJson(const std::string& text) {
  Json v = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(v.is_discarded()) << "bad JSON:\n" << text;
  return v.is_discarded() ? Json::object() : v;
}

// The first entry of the document's "files" array (a copy: it outlives the
// document).
inline Json FirstFile(const std::string& text) { return ParseJson(text)["files"][0]; }

inline size_t CountLines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// ---------------------------------------------------------------- tables

inline void WriteTable(const std::string& path, const std::vector<Entry>& entries,
                       const TableOptions& options) {
  auto file = NewPosixWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  TableBuilder builder(options, std::move(*file));
  for (const Entry& e : entries) ASSERT_TRUE(builder.Add(e.key, e.seq, e.type, e.value).ok());
  ASSERT_TRUE(builder.Finish().ok());
}

// A small table with versions, tombstones and bytes that need escaping.
inline std::vector<Entry> GoldenEntries() {
  std::vector<Entry> entries = {
      {"apple", 7, EntryType::kValue, "red"},
      {"apple", 3, EntryType::kValue, "green"},
      {"banana", 5, EntryType::kDeletion, ""},
      {std::string("bin\x01\xff", 5), 4, EntryType::kValue, std::string("\0 \"q\" \\", 7)},
  };
  for (int i = 0; i < 60; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%03d", i);
    entries.push_back({key, static_cast<uint64_t>(100 + i),
                       i % 9 == 4 ? EntryType::kDeletion : EntryType::kValue,
                       i % 9 == 4 ? "" : "value-" + std::to_string(i)});
  }
  return entries;
}

// The golden table's unique id, fixed so that the output is too.
inline constexpr uint64_t kGoldenId = 0x00c0ffee00c0ffeeull;

inline TableOptions SmallBlocks() {
  TableOptions options;
  options.block_size = 256;
  options.unique_id = kGoldenId;
  return options;
}

// Replaces the temp path and the creation time, which change per run.
inline std::string Masked(std::string text, const std::string& path) {
  for (size_t at; (at = text.find(path)) != std::string::npos;) {
    text.replace(at, path.size(), "FILE");
  }
  text = std::regex_replace(text, std::regex("created( +)[0-9]+ \\([^)]*\\)"), "created$1<time>");
  return std::regex_replace(text, std::regex("(creation_time +)\"[0-9]+\""), "$1<time>");
}

class SstInspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempPath("golden.sst");
    WriteTable(path_, GoldenEntries(), SmallBlocks());
  }
  std::string path_;
};

}  // namespace inspect_test
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_SST_INSPECT_TESTUTIL_H_
