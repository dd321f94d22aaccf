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

// ---------------------------------------------------------------- JSON

// Just enough JSON to read the tool's output back: a value tree, and a
// parser that rejects anything malformed.
struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json& operator[](const std::string& key) const {
    static const Json* missing = new Json;
    auto it = object.find(key);
    return it == object.end() ? *missing : it->second;
  }
  const Json& operator[](size_t i) const { return array.at(i); }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  // False (with *error set) unless the whole text is one JSON value.
  bool Parse(Json* out, std::string* error) {
    const bool ok = Value(out) && (SkipSpace(), pos_ == s_.size());
    if (!ok) *error = "bad JSON near byte " + std::to_string(pos_);
    return ok;
  }

 private:
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Word(const char* w) {
    const size_t n = std::strlen(w);
    if (s_.compare(pos_, n, w) != 0) return false;
    pos_ += n;
    return true;
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (pos_ >= s_.size()) return false;
        const char e = s_[pos_++];
        if (e == 'u') {
          if (pos_ + 4 > s_.size()) return false;
          c = static_cast<char>(std::stoi(s_.substr(pos_, 4), nullptr, 16));
          pos_ += 4;
        } else if (e == 'n') {
          c = '\n';
        } else if (e == '"' || e == '\\' || e == '/') {
          c = e;
        } else {
          return false;
        }
      }
      out->push_back(c);
    }
    return Eat('"');
  }
  bool Number(double* out) {
    const char* begin = s_.c_str() + pos_;
    char* end;
    *out = std::strtod(begin, &end);
    if (end == begin) return false;
    pos_ += static_cast<size_t>(end - begin);
    return true;
  }
  bool Value(Json* v) {
    SkipSpace();
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == '{') return Object(v);
    if (c == '[') return Array(v);
    if (c == '"') {
      v->type = Json::Type::kString;
      return String(&v->string);
    }
    if (Word("true") || Word("false")) {
      v->type = Json::Type::kBool;
      v->boolean = s_[pos_ - 1] == 'e' && s_[pos_ - 2] == 'u';
      return true;
    }
    if (Word("null")) return true;
    v->type = Json::Type::kNumber;
    return Number(&v->number);
  }
  bool Array(Json* v) {
    v->type = Json::Type::kArray;
    Eat('[');
    if (Eat(']')) return true;
    do {
      v->array.emplace_back();
      if (!Value(&v->array.back())) return false;
    } while (Eat(','));
    return Eat(']');
  }
  bool Object(Json* v) {
    v->type = Json::Type::kObject;
    Eat('{');
    if (Eat('}')) return true;
    do {
      std::string key;
      if (!String(&key) || !Eat(':') || !Value(&v->object[key])) return false;
    } while (Eat(','));
    return Eat('}');
  }

  const std::string& s_;
  size_t pos_ = 0;
};

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
  Json v;
  std::string error;
  JsonParser parser(text);
  EXPECT_TRUE(parser.Parse(&v, &error)) << error << "\n" << text;
  return v;
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
  return std::regex_replace(text, std::regex("created( +)[0-9]+ \\([^)]*\\)"),
                            "created$1<time>");
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

TEST_F(SstInspectTest, GetShowsTheNewestEntryAndTheFilterAnswer) {
  RunResult r = RunTool("get " + Shell(path_) + " apple");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "\"apple\" @7 value \"red\"\nfilter: maybe\n");
  r = RunTool("get " + Shell(path_) + " banana");
  EXPECT_EQ(r.out, "\"banana\" @5 deletion\nfilter: maybe\n");
  r = RunTool("get " + Shell(path_) + " 'bin\\x01\\xFF'");
  EXPECT_EQ(r.out, "\"bin\\x01\\xff\" @4 value \"\\x00 \\x22q\\x22 \\x5c\"\nfilter: maybe\n");
  r = RunTool("get " + Shell(path_) + " key0005 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_EQ(file["result"].string, "not_found");
  EXPECT_TRUE(file["filter"].string == "maybe" || file["filter"].string == "no");
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
  EXPECT_EQ(doc["schema_version"].number, 1);
  EXPECT_EQ(doc["command"].string, "props");
  EXPECT_TRUE(doc["ok"].boolean);
  const Json& file = doc["files"][0];
  EXPECT_EQ(file["file"].string, path_);
  EXPECT_EQ(file["entries"].number, 64);
  EXPECT_EQ(file["deletions"].number, 8);
  EXPECT_EQ(file["distinct_keys"].number, 63);
  EXPECT_EQ(file["smallest_key"].string, "apple");
  EXPECT_EQ(file["data_blocks"].number, 5);
  const Json& filter = file["filter"];
  EXPECT_EQ(filter["policy"].string, "lsmbloom.BlockedBloom.v1");
  EXPECT_TRUE(filter["trusted"].boolean);
  EXPECT_EQ(filter["blocked"]["num_keys"].number, 63);
  EXPECT_EQ(filter["blocked"]["num_blocks"].number, 2);
  EXPECT_GT(filter["predicted_fpr"].number, 0);
  EXPECT_EQ(file["properties"]["lsmbloom.num_entries"].string, "64");
  EXPECT_EQ(file["format_version"].number, 2);
  EXPECT_EQ(file["unique_id"].string, "00c0ffee00c0ffee");
  EXPECT_EQ(file["properties"]["lsmbloom.unique_id"].string, "00c0ffee00c0ffee");
}

TEST_F(SstInspectTest, ScanJsonKeepsEveryByteThroughTheEscapes) {
  const RunResult r = RunTool("scan --json " + Shell(path_) + " --limit=4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = ParseJson(r.out);
  const Json& entries = doc["files"][0]["entries"];
  ASSERT_EQ(entries.array.size(), 4u);
  EXPECT_TRUE(doc["files"][0]["more"].boolean);
  EXPECT_EQ(entries[1]["key"].string, "apple");
  EXPECT_EQ(entries[1]["sequence"].number, 3);
  EXPECT_EQ(entries[2]["type"].string, "deletion");
  EXPECT_EQ(entries[3]["key"].string, "bin\\x01\\xff");
  EXPECT_EQ(entries[3]["value"].string, "\\x00 \\x22q\\x22 \\x5c");
}

TEST_F(SstInspectTest, VerifyJson) {
  const RunResult r = RunTool("verify --json " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_TRUE(file["ok"].boolean);
  EXPECT_EQ(file["entries"].number, 64);
  EXPECT_EQ(file["lookups_ok"].number, 63);
  EXPECT_EQ(file["filter_keys_checked"].number, 63);
  EXPECT_EQ(file["problems"].array.size(), 0u);
}

TEST_F(SstInspectTest, FilterJson) {
  const RunResult r = RunTool("filter --json --probes=5000 " + Shell(path_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  const Json& health = file["health"];
  EXPECT_EQ(health["distinct_hashes"].number, 63);
  EXPECT_EQ(health["false_negatives"].number, 0);
  EXPECT_EQ(health["bits_total"].number, 1024);
  EXPECT_EQ(health["block_load"]["min"].number + health["block_load"]["max"].number, 63);
  EXPECT_EQ(file["fpr"]["measured"]["generated"].number, 5000);
  EXPECT_EQ(file["problem"].string, "");
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
  EXPECT_EQ(measured["excluded"].number, 5);
  EXPECT_EQ(measured["absent"].number, 995);
}

TEST(SstInspectFilterTest, HealthOfALargerTableMatchesTheModel) {
  const std::string path = TempPath("large.sst");
  const std::vector<Entry> entries = testing::MakeEntries(60000, 3);
  WriteTable(path, entries, TableOptions());
  RunResult r = RunTool("filter --json --probes=50000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  const Json& health = file["health"];
  EXPECT_EQ(health["false_negatives"].number, 0);
  EXPECT_EQ(health["distinct_hashes"].number, file["filter"]["blocked"]["num_keys"].number);
  EXPECT_TRUE(health["keys_complete"].boolean);
  EXPECT_GT(health["fill"].number, 0.3);
  EXPECT_LT(health["fill"].number, 0.6);
  const double model = file["fpr"]["model"].number;
  EXPECT_NEAR(file["fpr"]["from_fill"].number, model, model * 0.25);
  const Json& measured = file["fpr"]["measured"];
  EXPECT_GT(measured["fpr"].number, model / 2);
  EXPECT_LT(measured["fpr"].number, model * 2);
  EXPECT_LE(measured["low"].number, measured["fpr"].number);
  EXPECT_GE(measured["high"].number, measured["fpr"].number);
  double blocks = 0;
  for (const Json& bin : health["block_load"]["histogram"].array) blocks += bin["blocks"].number;
  EXPECT_EQ(blocks, file["filter"]["blocked"]["num_blocks"].number);

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
  EXPECT_TRUE(file["health"]["keys_complete"].boolean);
  EXPECT_EQ(file["health"]["distinct_hashes"].number,
            file["filter"]["blocked"]["num_keys"].number);
  r = RunTool("verify --json " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(FirstFile(r.out)["filter_prefixes_checked"].number, 0);
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
  EXPECT_NE(r.out.find("filter: none"), std::string::npos) << r.out;

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
  EXPECT_FALSE(file["ok"].boolean);
  EXPECT_EQ(file["data_blocks_checked"].number, 5);
  EXPECT_EQ(file["damaged_data_blocks"].number, 2);
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
  EXPECT_FALSE(file["ok"].boolean);
  EXPECT_EQ(file["damaged_data_blocks"].number, 2);
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
  EXPECT_FALSE(v["ok"].boolean);
  EXPECT_EQ(v["false_negative_count"].number, ruled_out.size());
  ASSERT_EQ(v["false_negatives"].array.size(), 20u);
  EXPECT_EQ(v["false_negatives"][0]["key"].string, ruled_out[0]);
  EXPECT_GE(v["false_negatives"][0]["filter_block"].number, 0);
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;

  r = RunTool("verify " + Shell(path));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("false negative     \"" + ruled_out[0] + "\" (filter block"),
            std::string::npos)
      << r.out;

  r = RunTool("filter --probes=100 --json " + Shell(path));
  EXPECT_EQ(r.exit_code, 1);
  const Json f = FirstFile(r.out);
  EXPECT_EQ(f["health"]["false_negatives"].number, ruled_out.size());
  EXPECT_NE(f["problem"].string.find("false negatives"), std::string::npos);

  r = RunTool("get " + Shell(path) + " " + ruled_out[0]);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("filter: no -- FALSE NEGATIVE"), std::string::npos) << r.out;
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
  for (const std::string command : {"props", "filter", "verify", "scan", "get"}) {
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
    EXPECT_FALSE(doc["ok"].boolean);
    EXPECT_NE(doc["files"][0]["error"].string.find(reason), std::string::npos) << j.out;
  }
}

TEST_F(SstInspectTest, BadFilesGiveOneLineAndNonZeroExit) {
  ExpectFileError(TempPath("does_not_exist.sst"), "No such file");
  ExpectFileError(std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp",
                  "is a directory");

  const std::string garbage = TempPath("garbage.sst");
  WriteFile(garbage, std::string(5000, 'g'));
  ExpectFileError(garbage, "not an lsmbloom table");

  const std::string good = ReadFile(path_);
  const std::string truncated = TempPath("truncated.sst");
  WriteFile(truncated, good.substr(0, good.size() / 2));
  ExpectFileError(truncated, "bad magic");
  WriteFile(truncated, good.substr(0, good.size() - 1));
  ExpectFileError(truncated, "bad magic");
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
  ASSERT_EQ(doc["files"].array.size(), 2u);
  EXPECT_TRUE(doc["files"][0]["ok"].boolean);
  EXPECT_NE(doc["files"][1]["error"].string, "");
}

TEST_F(SstInspectTest, UsageErrorsGiveOneLineAndExitTwo) {
  const std::vector<std::string> cases = {
      "",                                      // No command.
      "frobnicate " + Shell(path_),            // Unknown command.
      "props",                                 // Missing FILE.
      "get " + Shell(path_),                   // Missing KEY.
      "scan " + Shell(path_) + " " + Shell(path_),  // Too many.
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
  for (const std::string command : {"props", "filter", "verify", "scan", "get"}) {
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
  for (const char* command : {"props", "filter", "verify", "scan", "get"}) {
    EXPECT_NE(r.out.find(std::string("  ") + command + " "), std::string::npos) << r.out;
  }
  EXPECT_NE(RunTool("filter --help").out.find("--probes"), std::string::npos);
  EXPECT_NE(RunTool("scan --help").out.find("--limit"), std::string::npos);
}

}  // namespace
}  // namespace lsmbloom
