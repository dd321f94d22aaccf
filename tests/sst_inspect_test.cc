// The sst_inspect tool, run as a program: golden text for props and scan,
// JSON parsed back, verify catching corrupt and mismatched filters, and one
// clear line on stderr for every kind of bad input.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "lsmbloom/blocked_bloom.h"
#include "lsmbloom/filter_policy.h"
#include "lsmbloom/key_hash.h"
#include "lsmbloom/table.h"
#include "lsmbloom/table_builder.h"
#include "tests/table_surgery.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testing::Entry;

// The tool's JSON documents, read back with nlohmann::json.
using Json = nlohmann::json;

// ---------------------------------------------------------------- running

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// `s` in single quotes for /bin/sh.
std::string Shell(const std::string& s) {
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
constexpr char kTool[] = "tools/sst_inspect";

// Runs `tool` (a command line that starts the tool) with `args` (already
// shell-quoted where needed).
RunResult RunTool(const std::string& args, const std::string& tool = kTool) {
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

Json ParseJson(const std::string& text) {
  Json v = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(v.is_discarded()) << "bad JSON:\n" << text;
  return v.is_discarded() ? Json::object() : v;
}

// The first entry of the document's "files" array (a copy: it outlives the
// document).
Json FirstFile(const std::string& text) { return ParseJson(text)["files"][0]; }

size_t CountLines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// ---------------------------------------------------------------- tables

void WriteTable(const std::string& path, const std::vector<Entry>& entries,
                const TableOptions& options) {
  auto file = NewPosixWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  TableBuilder builder(options, std::move(*file));
  for (const Entry& e : entries) ASSERT_TRUE(builder.Add(e.key, e.seq, e.type, e.value).ok());
  ASSERT_TRUE(builder.Finish().ok());
}

// A small table with versions, tombstones and bytes that need escaping.
std::vector<Entry> GoldenEntries() {
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
constexpr uint64_t kGoldenId = 0x00c0ffee00c0ffeeull;

TableOptions SmallBlocks() {
  TableOptions options;
  options.block_size = 256;
  options.unique_id = kGoldenId;
  return options;
}

// Replaces the temp path and the creation time, which change per run.
std::string Masked(std::string text, const std::string& path) {
  for (size_t at; (at = text.find(path)) != std::string::npos;) {
    text.replace(at, path.size(), "FILE");
  }
  text = std::regex_replace(text, std::regex("created( +)[0-9]+ \\([^)]*\\)"),
                            "created$1<time>");
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
  EXPECT_EQ(health["block_load"]["min"].get<double>() + health["block_load"]["max"].get<double>(), 63);
  EXPECT_EQ(file["fpr"]["measured"]["generated"].get<double>(), 5000);
  EXPECT_EQ(file["problem"].get<std::string>(), "");
}

// ---------------------------------------------------------------- filter

// Keys the probe generator will produce: a table holding some of them
// must not count them as absent.
std::string ProbeKey(uint64_t i) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "sst_inspect.probe.%016llx",
                static_cast<unsigned long long>(testing::SplitMix64(i)));
  return buf;
}

TEST(SstInspectFilterTest, ProbesPresentInTheTableAreExcluded) {
  std::vector<std::string> keys;
  for (int i = 0; i < 5; ++i) keys.push_back(ProbeKey(i * 100));
  for (int i = 0; i < 500; ++i) keys.push_back("other" + std::to_string(i));
  std::sort(keys.begin(), keys.end());
  std::vector<Entry> entries;
  for (const std::string& k : keys) entries.push_back({k, 1, EntryType::kValue, "v"});
  const std::string path = TempPath("with_probes.sst");
  WriteTable(path, entries, TableOptions());
  const RunResult r = RunTool("filter --json --probes=1000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json measured = FirstFile(r.out)["fpr"]["measured"];
  EXPECT_EQ(measured["excluded"].get<double>(), 5);
  EXPECT_EQ(measured["absent"].get<double>(), 995);
}

TEST(SstInspectFilterTest, HealthOfALargerTableMatchesTheModel) {
  const std::string path = TempPath("large.sst");
  const std::vector<Entry> entries = testing::MakeEntries(60000, 3);
  WriteTable(path, entries, TableOptions());
  RunResult r = RunTool("filter --json --probes=50000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  const Json& health = file["health"];
  EXPECT_EQ(health["false_negatives"].get<double>(), 0);
  EXPECT_EQ(health["distinct_hashes"].get<double>(), file["filter"]["blocked"]["num_keys"].get<double>());
  EXPECT_TRUE(health["keys_complete"].get<bool>());
  EXPECT_GT(health["fill"].get<double>(), 0.3);
  EXPECT_LT(health["fill"].get<double>(), 0.6);
  const double model = file["fpr"]["model"].get<double>();
  EXPECT_NEAR(file["fpr"]["from_fill"].get<double>(), model, model * 0.25);
  const Json& measured = file["fpr"]["measured"];
  EXPECT_GT(measured["fpr"].get<double>(), model / 2);
  EXPECT_LT(measured["fpr"].get<double>(), model * 2);
  EXPECT_LE(measured["low"].get<double>(), measured["fpr"].get<double>());
  EXPECT_GE(measured["high"].get<double>(), measured["fpr"].get<double>());
  double blocks = 0;
  for (const Json& bin : health["block_load"]["histogram"]) blocks += bin["blocks"].get<double>();
  EXPECT_EQ(blocks, file["filter"]["blocked"]["num_blocks"].get<double>());

  // The text report shows the histogram and says how absence is ensured.
  r = RunTool("filter --probes=1000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("keys per block"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| #"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verified absent"), std::string::npos) << r.out;
}

TEST(SstInspectFilterTest, PrefixFiltersAreRecomputedAndVerified) {
  TableOptions options;
  options.prefix_extractor = NewFixedPrefixExtractor(6);
  const std::string path = TempPath("prefix.sst");
  WriteTable(path, testing::MakeEntries(3000, 1), options);
  RunResult r = RunTool("filter --json --probes=100 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_TRUE(file["health"]["keys_complete"].get<bool>());
  EXPECT_EQ(file["health"]["distinct_hashes"].get<double>(),
            file["filter"]["blocked"]["num_keys"].get<double>());
  r = RunTool("verify --json " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(FirstFile(r.out)["filter_prefixes_checked"].get<double>(), 0);
}

TEST(SstInspectFilterTest, TablesWithoutABlockedFilter) {
  std::vector<Entry> entries = testing::MakeEntries(500, 2);
  const std::string none = TempPath("no_filter.sst");
  TableOptions options;
  options.filter_policy = nullptr;
  WriteTable(none, entries, options);
  const std::string classic = TempPath("classic.sst");
  options.filter_policy = NewClassicBloomPolicy(10);
  WriteTable(classic, entries, options);

  RunResult r = RunTool("props " + Shell(none));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("filter             none"), std::string::npos) << r.out;
  r = RunTool("verify " + Shell(none));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("not checked: no trusted filter"), std::string::npos) << r.out;
  r = RunTool("get " + Shell(none) + " " + entries[0].key);
  EXPECT_NE(r.out.find(": filter none, value"), std::string::npos) << r.out;

  r = RunTool("props " + Shell(classic));
  EXPECT_NE(r.out.find("classic bloom v1"), std::string::npos) << r.out;
  r = RunTool("filter --probes=2000 " + Shell(classic));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("only for blocked Bloom filters"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measured"), std::string::npos) << r.out;
  r = RunTool("verify " + Shell(classic));
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// ---------------------------------------------------------------- damage

struct FilterBlock {
  size_t offset = std::string::npos;  // Of the filter (its header) in the file.
  size_t size = 0;                    // Header and bits, without the trailer.
};

// The filter is the block that starts with the magic "LBBF" on a 64-byte
// boundary (docs/FORMAT.md; the table builder aligns it).
FilterBlock FindFilter(const std::string& file) {
  FilterBlock f;
  for (size_t at = 0; at + 64 <= file.size(); at += 64) {
    if (file.compare(at, 4, "LBBF") != 0) continue;
    uint64_t num_blocks;
    std::memcpy(&num_blocks, file.data() + at + 16, 8);
    f.offset = at;
    f.size = 64 + 64 * num_blocks;
    break;
  }
  return f;
}

void Put64(std::string* s, size_t at, uint64_t v) { std::memcpy(&(*s)[at], &v, 8); }

// The table's and the filter's checksums are XXH3-64 with seed 0, which is
// KeyHash with the default HashSpec.
uint64_t Xxh3(const char* data, size_t n) { return KeyHash(std::string_view(data, n)); }

// Recomputes the filter block's trailer for its place (docs/FORMAT.md).
void FixTrailer(std::string* file, const FilterBlock& f) {
  testing::FixTrailer(file, {"filter", f.offset, f.offset + f.size + testing::kTrailerSize, true},
                      testing::Kind::kFilter);
}

// Recomputes the filter's own checksums (bits, then header) and the trailer.
void FixAllChecksums(std::string* file, const FilterBlock& f) {
  Put64(file, f.offset + 32, Xxh3(file->data() + f.offset + 64, f.size - 64));
  Put64(file, f.offset + 56, Xxh3(file->data() + f.offset, 56));
  FixTrailer(file, f);
}

class SstInspectDamageTest : public SstInspectTest {
 protected:
  void SetUp() override {
    SstInspectTest::SetUp();
    good_ = ReadFile(path_);
    filter_ = FindFilter(good_);
    ASSERT_NE(filter_.offset, std::string::npos);
    bad_path_ = TempPath("damaged.sst");
  }
  RunResult VerifyDamaged(const std::string& bytes) {
    WriteFile(bad_path_, bytes);
    return RunTool("verify " + Shell(bad_path_));
  }
  std::string good_;
  FilterBlock filter_;
  std::string bad_path_;
};

TEST_F(SstInspectDamageTest, FlippedFilterBitFailsTheBlockChecksum) {
  std::string bad = good_;
  bad[filter_.offset + 64 + 10] ^= 0x10;
  const RunResult r = VerifyDamaged(bad);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("filter untrusted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("filter block at offset " + std::to_string(filter_.offset) +
                        " (" + std::to_string(filter_.size) + " bytes): checksum mismatch"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;
  // props reads it fine but says why the filter is not used; filter fails.
  RunResult props = RunTool("props " + Shell(bad_path_));
  EXPECT_EQ(props.exit_code, 0);
  EXPECT_NE(props.out.find("UNTRUSTED"), std::string::npos) << props.out;
  EXPECT_EQ(RunTool("filter " + Shell(bad_path_)).exit_code, 1);
}

TEST_F(SstInspectDamageTest, FlippedFilterBitWithTrailerFixedFailsTheFilterChecksum) {
  std::string bad = good_;
  bad[filter_.offset + 64 + 10] ^= 0x10;
  FixTrailer(&bad, filter_);
  const RunResult r = VerifyDamaged(bad);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("filter untrusted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checksum"), std::string::npos) << r.out;
}

TEST_F(SstInspectDamageTest, ClearedFilterBitWithChecksumsFixedGivesFalseNegatives) {
  // A filter that passes every check but lost a bit some key needs.
  std::string bad = good_;
  size_t byte = filter_.offset + 64;
  while (bad[byte] == 0) ++byte;
  bad[byte] &= static_cast<char>(bad[byte] - 1);  // Clears its lowest set bit.
  FixAllChecksums(&bad, filter_);
  const RunResult r = VerifyDamaged(bad);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("false negatives"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("false negative     \""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("untrusted"), std::string::npos) << r.out;
}

TEST_F(SstInspectDamageTest, VerifyNamesEveryDamagedDataBlockNotJustTheFirst) {
  // Damage the first and the last of the 5 data blocks: both are reported,
  // by number and offset, and the blocks between them are read.
  std::string bad = good_;
  bad[10] ^= 0x01;
  auto table = Table::Open(NewMemRandomAccessFile(good_));
  ASSERT_TRUE(table.ok()) << table.status();
  const absl::StatusOr<std::vector<BlockLocation>> blocks = (*table)->DataBlocks();
  ASSERT_TRUE(blocks.ok()) << blocks.status();
  ASSERT_EQ(blocks->size(), 5u);
  bad[blocks->back().offset + 3] ^= 0x01;
  const RunResult r = VerifyDamaged(bad);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("2 of 5 data blocks damaged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("data block 0 at offset 0 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("data block 4 at offset "), std::string::npos) << r.out;
  const RunResult j = RunTool("verify --json " + Shell(bad_path_));
  const Json file = FirstFile(j.out);
  EXPECT_FALSE(file["ok"].get<bool>());
  EXPECT_EQ(file["data_blocks_checked"].get<double>(), 5);
  EXPECT_EQ(file["damaged_data_blocks"].get<double>(), 2);
}

TEST_F(SstInspectDamageTest, DataBlockCorruptionNamesTheBlockOffset) {
  std::string bad = good_;
  bad[10] ^= 0x01;  // In the first data block, at offset 0.
  const RunResult r = VerifyDamaged(bad);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("data block 0 at offset 0 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checksum mismatch"), std::string::npos) << r.out;
  const RunResult scan = RunTool("scan " + Shell(bad_path_));
  EXPECT_EQ(scan.exit_code, 1);
  EXPECT_EQ(CountLines(scan.err), 1u) << scan.err;
  EXPECT_NE(scan.err.find("sst_inspect: " + bad_path_ + ": data block"), std::string::npos)
      << scan.err;
}

TEST_F(SstInspectDamageTest, VerifyNamesEachBlockFromAnotherTable) {
  // The same entries written again: same bytes at the same offsets, but
  // another unique id, so its blocks' trailers belong to it alone.
  TableOptions options = SmallBlocks();
  options.unique_id = kGoldenId + 1;
  const std::string other_path = TempPath("other.sst");
  WriteTable(other_path, GoldenEntries(), options);
  const std::string other = ReadFile(other_path);
  std::vector<testing::Region> regions;
  ASSERT_TRUE(testing::FindRegions(good_, &regions));
  const std::vector<testing::Region> data = testing::RegionsNamed(regions, "data");
  ASSERT_EQ(data.size(), 5u);
  std::string bad = good_;
  for (size_t i : {1, 3}) testing::CopyRegion(&bad, data[i], other, data[i].begin);
  const RunResult r = VerifyDamaged(bad);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("2 of 5 data blocks damaged"), std::string::npos) << r.out;
  for (size_t i : {1, 3}) {
    EXPECT_NE(r.out.find("data block " + std::to_string(i) + " at offset " +
                         std::to_string(data[i].begin) + " (" +
                         std::to_string(data[i].block_size()) + " bytes): checksum mismatch"),
              std::string::npos)
        << r.out;
  }
}

TEST(SstInspectPlacementTest, VerifyNamesSwappedBlocksAndWhereEachBelongs) {
  std::vector<Entry> entries;
  for (int i = 0; i < 400; ++i) {
    entries.push_back({testing::TableKey(i), 1, EntryType::kValue, "value-of-fixed-size"});
  }
  TableOptions options;
  options.block_size = 512;
  const std::string path = TempPath("swapped.sst");
  WriteTable(path, entries, options);
  std::string bytes = ReadFile(path);
  std::vector<testing::Region> regions;
  ASSERT_TRUE(testing::FindRegions(bytes, &regions));
  const std::vector<testing::Region> data = testing::RegionsNamed(regions, "data");
  const auto pairs = testing::SameSizePairs(data);
  ASSERT_FALSE(pairs.empty());
  const auto [i, j] = pairs.back();
  testing::SwapRegions(&bytes, data[i], data[j]);
  WriteFile(path, bytes);
  const RunResult r = RunTool("verify " + Shell(path));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("2 of " + std::to_string(data.size()) + " data blocks damaged"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("data block " + std::to_string(i) + " at offset " +
                       std::to_string(data[i].begin) +
                       " (" + std::to_string(data[i].block_size()) +
                       " bytes): misplaced: intact, but written for offset " +
                       std::to_string(data[j].begin)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("data block " + std::to_string(j) + " at offset " +
                       std::to_string(data[j].begin) +
                       " (" + std::to_string(data[j].block_size()) +
                       " bytes): misplaced: intact, but written for offset " +
                       std::to_string(data[i].begin)),
            std::string::npos)
      << r.out;
  const Json file = FirstFile(RunTool("verify --json " + Shell(path)).out);
  EXPECT_FALSE(file["ok"].get<bool>());
  EXPECT_EQ(file["damaged_data_blocks"].get<double>(), 2);

  // The block dump names them too, and still lists every other block.
  const RunResult b = RunTool("blocks --json " + Shell(path));
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_NE(b.err.find("2 damaged data blocks"), std::string::npos) << b.err;
  const Json blocks = FirstFile(b.out);
  ASSERT_EQ(blocks["data_blocks"].size(), data.size());
  EXPECT_NE(blocks["data_blocks"][i]["error"].get<std::string>().find(
                "misplaced: intact, but written for offset " + std::to_string(data[j].begin)),
            std::string::npos)
      << b.out;
  EXPECT_EQ(blocks["data_blocks"][i == 0 ? 1 : 0]["error"].get<std::string>(), "");
}

// The filter policy of the built-in blocked Bloom filter, by name and
// format, whose builder leaves out every 10th key: a valid filter that
// does not match its table.
class DroppingBuilder : public FilterBuilder {
 public:
  DroppingBuilder() : builder_(std::move(*BlockedBloomBuilder::Create())) {}
  void AddKey(std::string_view key) override {
    if (++added_ % 10 != 0) builder_.AddKey(key);
  }
  absl::StatusOr<std::string> Finish() override { return builder_.Finish(); }

 private:
  BlockedBloomBuilder builder_;
  uint64_t added_ = 0;
};

class DroppingPolicy : public FilterPolicy {
 public:
  std::string Name() const override { return "lsmbloom.BlockedBloom.v1"; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    return std::make_unique<DroppingBuilder>();
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(
      std::string_view filter) const override {
    return NewBlockedBloomPolicy()->NewReader(filter);
  }
};

TEST(SstInspectMismatchTest, FilterMissingKeysIsCaughtByVerifyFilterAndGet) {
  const std::vector<Entry> entries = testing::MakeEntries(3000, 4);
  TableOptions options;
  options.filter_policy = std::make_shared<DroppingPolicy>();
  const std::string path = TempPath("mismatched.sst");
  WriteTable(path, entries, options);

  // The truth, in process: keys the filter rules out.
  auto file = OpenPosixFile(path);
  ASSERT_TRUE(file.ok());
  auto table = Table::Open(std::move(*file));
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE((*table)->filter_status().ok());
  std::vector<std::string> ruled_out;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].key == entries[i - 1].key) continue;
    if (!(*table)->KeyMayMatch(entries[i].key)) ruled_out.push_back(entries[i].key);
  }
  ASSERT_GT(ruled_out.size(), 50u);

  RunResult r = RunTool("verify --json " + Shell(path));
  EXPECT_EQ(r.exit_code, 1);
  const Json v = FirstFile(r.out);
  EXPECT_FALSE(v["ok"].get<bool>());
  EXPECT_EQ(v["false_negative_count"].get<double>(), ruled_out.size());
  ASSERT_EQ(v["false_negatives"].size(), 20u);
  EXPECT_EQ(v["false_negatives"][0]["key"].get<std::string>(), ruled_out[0]);
  EXPECT_GE(v["false_negatives"][0]["filter_block"].get<double>(), 0);
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;

  r = RunTool("verify " + Shell(path));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("false negative     \"" + ruled_out[0] + "\" (filter block"),
            std::string::npos)
      << r.out;

  r = RunTool("filter --probes=100 --json " + Shell(path));
  EXPECT_EQ(r.exit_code, 1);
  const Json f = FirstFile(r.out);
  EXPECT_EQ(f["health"]["false_negatives"].get<double>(), ruled_out.size());
  EXPECT_NE(f["problem"].get<std::string>().find("false negatives"), std::string::npos);

  r = RunTool("get " + Shell(path) + " " + ruled_out[0]);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find(": filter no, value @"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-- FALSE NEGATIVE"), std::string::npos) << r.out;
}

// A policy no reader knows: the table works unfiltered, which is not damage.
class UnknownPolicy : public DroppingPolicy {
 public:
  std::string Name() const override { return "test.Unknown"; }
};

TEST(SstInspectMismatchTest, UnknownPolicyIsAWarningNotAProblem) {
  TableOptions options;
  options.filter_policy = std::make_shared<UnknownPolicy>();
  const std::string path = TempPath("unknown_policy.sst");
  WriteTable(path, testing::MakeEntries(300, 6), options);
  RunResult r = RunTool("props " + Shell(path));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("NOT USED, lookups go unfiltered: UNIMPLEMENTED: filter policy "
                       "'test.Unknown' is not known"),
            std::string::npos)
      << r.out;
  r = RunTool("verify " + Shell(path));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("warning            filter not checked"), std::string::npos) << r.out;
  EXPECT_EQ(RunTool("filter " + Shell(path)).exit_code, 0);
}

// ---------------------------------------------------------------- bad input

// Expects the one-line error "sst_inspect: <what>..." and a usage or
// problem exit status, for every command that reads `path`.
void ExpectFileError(const std::string& path, const std::string& reason,
                     const std::string& tool = kTool) {
  for (const std::string command :
       {"props", "blocks", "sizes", "filter", "verify", "scan", "get"}) {
    const std::string args =
        command + " " + Shell(path) + (command == "get" ? " somekey" : "");
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
  const RunResult r =
      RunTool("props " + Shell(path_) + " " + Shell(missing) + " " + Shell(path_));
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
      "",                                      // No command.
      "frobnicate " + Shell(path_),            // Unknown command.
      "props",                                 // Missing FILE.
      "get " + Shell(path_),                   // Missing KEY.
      "get " + Shell(path_) + " --hex 6",      // Odd hex.
      "scan " + Shell(path_) + " --from b --to a",  // An empty range, backwards.
      "scan " + Shell(path_) + " --count-only=maybe",  // Bad boolean.
      "props --bogus " + Shell(path_),         // Unknown flag.
      "props --probes=5 " + Shell(path_),      // Flag of another command.
      "filter --probes=lots " + Shell(path_),  // Bad value.
      "scan " + Shell(path_) + " --limit",     // Missing value.
      "get " + Shell(path_) + " 'a\\x4'",      // Bad escape.
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
       {"props", "blocks", "sizes", "filter", "verify", "scan", "get"}) {
    for (const std::string& args : {command + " --help", "help " + command, command + " -h"}) {
      const RunResult r = RunTool(args);
      EXPECT_EQ(r.exit_code, 0) << args;
      EXPECT_EQ(r.err, "") << args;
      EXPECT_EQ(r.out.rfind("usage: sst_inspect " + command + " ", 0), 0u) << args << r.out;
      EXPECT_NE(r.out.find("--json"), std::string::npos) << args;
    }
  }
  const RunResult r = RunTool("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command : {"props", "blocks", "sizes", "filter", "verify", "scan", "get"}) {
    EXPECT_NE(r.out.find(std::string("  ") + command + " "), std::string::npos) << r.out;
  }
  EXPECT_NE(RunTool("filter --help").out.find("--probes"), std::string::npos);
  EXPECT_NE(RunTool("scan --help").out.find("--limit"), std::string::npos);
}


TEST(SstInspectHelpTest, VersionPrintsAndExitsZero) {
  const RunResult r = RunTool("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("sst_inspect (lsmbloom)", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("schema_version 2"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------- blocks, sizes

TEST_F(SstInspectTest, BlocksListsEveryDataBlockTheIndexAndTheMetaIndex) {
  RunResult r = RunTool("blocks --json " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  const Json& data = file["data_blocks"];
  const Json& index = file["index"];
  ASSERT_EQ(data.size(), 5u);
  ASSERT_EQ(index.size(), 5u);
  double entries = 0, offset = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    EXPECT_EQ(data[i]["number"].get<double>(), i);
    EXPECT_EQ(data[i]["error"].get<std::string>(), "");
    EXPECT_EQ(data[i]["compression"].get<std::string>(), "none");
    // Blocks follow each other, each with its 9-byte trailer.
    EXPECT_EQ(data[i]["offset"].get<double>(), offset);
    offset += data[i]["stored_size"].get<double>() + 9;
    EXPECT_EQ(data[i]["raw_size"].get<double>(), data[i]["stored_size"].get<double>());
    EXPECT_GE(data[i]["restarts"].get<double>(), 1);
    EXPECT_EQ(index[i]["offset"].get<double>(), data[i]["offset"].get<double>());
    EXPECT_GE(index[i]["separator"].get<std::string>(), data[i]["last_key"].get<std::string>());
    entries += data[i]["entries"].get<double>();
  }
  EXPECT_EQ(entries, 64);
  EXPECT_EQ(data[0]["first_key"].get<std::string>(), "apple");
  EXPECT_EQ(data[0]["first_sequence"].get<double>(), 7);
  EXPECT_EQ(data[4]["last_key"].get<std::string>(), "key059");
  const Json& meta = file["metaindex"];
  ASSERT_EQ(meta.size(), 2u);
  EXPECT_EQ(meta[0]["name"].get<std::string>(), "filter.lsmbloom.BlockedBloom.v1");
  EXPECT_EQ(meta[0]["offset"].get<double>(), 1344);
  EXPECT_EQ(meta[1]["name"].get<std::string>(), "lsmbloom.properties");
  EXPECT_EQ(meta[1]["offset"].get<double>(), 1545);

  r = RunTool("blocks " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"apple\" @7 .. "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("index entries"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"lsmbloom.properties\" -> offset 1545, 814 bytes"), std::string::npos)
      << r.out;
}

TEST(SstInspectSizesTest, SizesGiveKeyAndValueStatisticsAndWhatEachCompressionWouldStore) {
  std::vector<Entry> entries;
  for (int i = 0; i < 2000; ++i) {
    char key[32];
    std::snprintf(key, sizeof(key), "user%06d", i);
    // Compressible values of 10 to 109 bytes.
    entries.push_back({key, 1, EntryType::kValue, std::string(10 + i % 100, 'a' + i % 3)});
  }
  const std::string path = TempPath("sizes.sst");
  TableOptions options;
  options.compression = Compression::kSnappy;
  WriteTable(path, entries, options);
  RunResult r = RunTool("sizes --json " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_EQ(file["keys"]["count"].get<double>(), 2000);
  EXPECT_EQ(file["keys"]["min"].get<double>(), 10);
  EXPECT_EQ(file["keys"]["max"].get<double>(), 10);
  EXPECT_EQ(file["values"]["min"].get<double>(), 10);
  EXPECT_EQ(file["values"]["max"].get<double>(), 109);
  EXPECT_NEAR(file["values"]["mean"].get<double>(), 59.5, 0.01);
  double in_bins = 0;
  for (const Json& bin : file["values"]["histogram"]) in_bins += bin["count"].get<double>();
  EXPECT_EQ(in_bins, 2000);
  EXPECT_EQ(file["compression"].get<std::string>(), "snappy");
  const Json& re = file["recompress"];
  const double raw = file["data_raw_bytes"].get<double>();
  EXPECT_EQ(re["none"]["stored_bytes"].get<double>(), raw);
  // Recompressing with what the table was written with gives what it holds.
  EXPECT_EQ(re["snappy"]["stored_bytes"].get<double>(), file["data_stored_bytes"].get<double>());
  EXPECT_LT(re["zstd"]["stored_bytes"].get<double>(), raw / 2);
  EXPECT_GT(file["block_entries"]["count"].get<double>(), 1);
  r = RunTool("sizes " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("recompressed       none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("entries per block"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------- scan modes

TEST_F(SstInspectTest, HexWritesAndReadsKeysAndValuesAsHexDigits) {
  RunResult r = RunTool("scan --hex " + Shell(path_) + " --limit 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "6170706c65 @7 value 726564\n");
  r = RunTool("get --hex " + Shell(path_) + " 62696e01ff");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "62696e01ff @4 value 0020227122205c");
  r = RunTool("scan --hex --json " + Shell(path_) + " --from 62696e --to 6b6579303030");
  const Json doc = ParseJson(r.out);
  ASSERT_EQ(doc["entries"].size(), 1u);
  EXPECT_EQ(doc["entries"][0]["value"].get<std::string>(), "0020227122205c");
}

TEST_F(SstInspectTest, ScanKeysOnlyAndCountOnly) {
  RunResult r = RunTool("scan --keys-only " + Shell(path_) + " --limit 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "\"apple\" @7 value\n\"apple\" @3 value\n");
  r = RunTool("scan --count-only " + Shell(path_));
  EXPECT_EQ(r.out, "64\n");
  r = RunTool("scan --count-only " + Shell(path_) + " --from key010 --to key020");
  EXPECT_EQ(r.out, "10\n");
  r = RunTool("scan --count-only --json " + Shell(path_) + " --from key010 --to key010");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(ParseJson(r.out)["count"].get<double>(), 0);
}

// ---------------------------------------------------------------- many files

// Three tables of one store, numbered as kvstore names them; 10 is newer
// than 9 although it sorts before it as text.
class SstInspectLsmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempPath("lsm");
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    Write("000009.sst", {{"apple", 1, EntryType::kValue, "old"},
                         {"cherry", 2, EntryType::kValue, "c2"}});
    Write("000010.sst", {{"apple", 5, EntryType::kValue, "new"},
                         {"banana", 6, EntryType::kDeletion, ""}});
    Write("000011.sst", {{"banana", 9, EntryType::kValue, "b9"}});
    WriteFile(dir_ + "/MANIFEST", "not a table, and not read");
  }
  void Write(const std::string& name, const std::vector<Entry>& entries) {
    WriteTable(dir_ + "/" + name, entries, TableOptions());
  }
  std::string dir_;
};

TEST_F(SstInspectLsmTest, GetReadsADirectoryNewestFileFirst) {
  RunResult r = RunTool("get " + Shell(dir_) + " apple");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Masked(r.out, dir_),
            "\"apple\" @5 value \"new\"\n"
            "  FILE/000011.sst: filter no, not found\n"
            "  FILE/000010.sst: filter maybe, value @5\n");
  r = RunTool("get --json " + Shell(dir_) + " banana");
  EXPECT_EQ(r.exit_code, 0);
  const Json doc = ParseJson(r.out);
  EXPECT_EQ(doc["value"].get<std::string>(), "b9");
  EXPECT_EQ(doc["from"].get<std::string>(), dir_ + "/000011.sst");
  ASSERT_EQ(doc["files"].size(), 1u);
  // Files named one by one are put in the same order.
  r = RunTool("get " + Shell(dir_ + "/000009.sst") + " " + Shell(dir_ + "/000010.sst") + " apple");
  EXPECT_NE(r.out.find("\"apple\" @5 value \"new\""), std::string::npos) << r.out;
  r = RunTool("get " + Shell(dir_) + " durian");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "\"durian\" not found");
}

TEST_F(SstInspectLsmTest, ScanMergesFilesInKeyOrderNewestVersionFirst) {
  const RunResult r = RunTool("scan " + Shell(dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Masked(r.out, dir_),
            "FILE/000010.sst: \"apple\" @5 value \"new\"\n"
            "FILE/000009.sst: \"apple\" @1 value \"old\"\n"
            "FILE/000011.sst: \"banana\" @9 value \"b9\"\n"
            "FILE/000010.sst: \"banana\" @6 deletion\n"
            "FILE/000009.sst: \"cherry\" @2 value \"c2\"\n");
  EXPECT_EQ(RunTool("scan --count-only " + Shell(dir_) + " --from b").out, "3\n");
}

TEST_F(SstInspectLsmTest, PropsFilterAndVerifySummariseAcrossFiles) {
  RunResult r = RunTool("props --json " + Shell(dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = ParseJson(r.out);
  EXPECT_EQ(doc["files"].size(), 3u);
  EXPECT_EQ(doc["summary"]["files"].get<double>(), 3);
  EXPECT_EQ(doc["summary"]["entries"].get<double>(), 5);
  EXPECT_EQ(doc["summary"]["smallest_key"].get<std::string>(), "apple");
  EXPECT_EQ(doc["summary"]["largest_key"].get<std::string>(), "cherry");
  r = RunTool("verify " + Shell(dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("total: 3 files: 3 OK, 0 FAILED, 0 unreadable; 5 entries"),
            std::string::npos) << r.out;
  r = RunTool("filter --json --probes=100 " + Shell(dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = ParseJson(r.out);
  EXPECT_EQ(doc["summary"]["checked"].get<double>(), 3);
  EXPECT_GE(doc["summary"]["absent"].get<double>(), 300);
}

TEST_F(SstInspectLsmTest, RelativePathsResolveAgainstTheBazelRunDirectory) {
  // `bazel run` starts the tool in its runfiles and says where the user was.
  const std::string tool =
      "BUILD_WORKING_DIRECTORY=" + Shell(dir_) + " " + std::filesystem::absolute(kTool).string();
  RunResult r = RunTool("props 000009.sst", tool);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "000009.sst");
  r = RunTool("scan --count-only .", tool);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "5\n");
  WriteFile(dir_ + "/keys.txt", "apple\nzebra\n");
  r = RunTool("filter --json --probes=0 --range-probes=0 --keys-from keys.txt 000009.sst", tool);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(FirstFile(r.out)["fpr"]["keys_file"]["excluded"].get<double>(), 1);
  // Absolute paths and a missing file are as they were.
  r = RunTool("props " + Shell(dir_ + "/000010.sst"), tool);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunTool("props missing.sst", tool);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("sst_inspect: missing.sst: ", 0), 0u) << r.err;
}

// ---------------------------------------------------------------- filter probes

TEST(SstInspectFilterTest, ProbesInsideTheKeyRangeAndFromAKeysFile) {
  const std::vector<Entry> entries = testing::MakeEntries(20000, 1);
  const std::string path = TempPath("probes.sst");
  WriteTable(path, entries, TableOptions());
  const std::string keys = TempPath("probe_keys.txt");
  std::string text;
  for (int i = 0; i < 300; ++i) text += entries[i * 7].key + "\n";  // Present.
  for (int i = 0; i < 700; ++i) text += "absent-key-" + std::to_string(i) + "\n";
  WriteFile(keys, text);
  RunResult r = RunTool("filter --json --probes=0 --range-probes=3000 --keys-from " +
                        Shell(keys) + " " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json fpr = FirstFile(r.out)["fpr"];
  EXPECT_TRUE(fpr["measured"].is_null());
  const Json& in = fpr["in_range"];
  EXPECT_EQ(in["generated"].get<double>(), 3000);
  EXPECT_EQ(in["excluded"].get<double>(), 0);
  EXPECT_LT(in["fpr"].get<double>(), 0.05);
  const Json& file = fpr["keys_file"];
  EXPECT_EQ(file["generated"].get<double>(), 1000);
  EXPECT_EQ(file["excluded"].get<double>(), 300);
  EXPECT_EQ(file["absent"].get<double>(), 700);
  r = RunTool("filter --probes=0 --range-probes=100 " + Shell(path));
  EXPECT_NE(r.out.find("measured inside the key range"), std::string::npos) << r.out;
  // A keys file that cannot be read or parsed.
  r = RunTool("filter --keys-from " + Shell(TempPath("no_such_keys.txt")) + " " + Shell(path));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;
  WriteFile(keys, "bad\\q\n");
  r = RunTool("filter --keys-from " + Shell(keys) + " " + Shell(path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(":1: bad escape"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lsmbloom
