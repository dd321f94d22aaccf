// sst_inspect's blocks and sizes commands, scan's modes (--hex,
// --keys-only, --count-only), several files and directories in LSM order,
// paths relative to `bazel run`'s directory, and progress lines.

#include <filesystem>
#include <string>
#include <vector>

#include "tests/sst_inspect_testutil.h"

namespace lsmbloom {
namespace inspect_test {
namespace {

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

// A table written with data-block hash indexes (format 3): blocks lists
// each block's buckets (two per key, as each key here has one version) and
// says how many blocks have one; props names the format.
TEST(SstInspectBlocksTest, BlocksShowTheHashIndexesOfAFormat3Table) {
  std::vector<Entry> entries;
  for (int i = 0; i < 500; ++i) {
    char key[32];
    std::snprintf(key, sizeof(key), "user%06d", i);
    entries.push_back({key, 1, EntryType::kValue, std::string(20, 'v')});
  }
  const std::string path = TempPath("indexed.sst");
  TableOptions options;
  options.data_block_hash_index = true;
  WriteTable(path, entries, options);
  RunResult r = RunTool("blocks --json " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  double buckets = 0, keys = 0;
  ASSERT_GT(file["data_blocks"].size(), 1u);
  for (const Json& b : file["data_blocks"]) {
    EXPECT_EQ(b["error"].get<std::string>(), "");
    buckets += b["hash_buckets"].get<double>();
    keys += b["entries"].get<double>();
  }
  EXPECT_EQ(keys, 500);
  EXPECT_EQ(buckets, 2 * keys);
  r = RunTool("blocks " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hash indexes"), std::string::npos) << r.out;
  r = RunTool("props " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lsmbloom table v3"), std::string::npos) << r.out;
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

// ---------------------------------------------------------------- damage

// The golden table with one byte of its second data block flipped; returns
// that block's offset.
uint64_t DamageSecondDataBlock(const std::string& path) {
  const RunResult blocks = RunTool("blocks --json " + Shell(path));
  const uint64_t offset = FirstFile(blocks.out)["data_blocks"][1]["offset"].get<uint64_t>();
  std::string bytes = ReadFile(path);
  bytes[offset + 5] ^= 0x20;
  WriteFile(path, bytes);
  return offset;
}

TEST_F(SstInspectTest, ScanStopsAtADamagedBlockNamingTheFileAndOffset) {
  const RunResult intact = RunTool("scan --keys-only " + Shell(path_));
  ASSERT_EQ(intact.exit_code, 0);
  const uint64_t offset = DamageSecondDataBlock(path_);
  const RunResult r = RunTool("scan --keys-only " + Shell(path_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path_ + ": data block at offset " + std::to_string(offset)),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the scan stops here"), std::string::npos) << r.err;
  // Only what came before the damage: a prefix of the intact listing.
  EXPECT_LT(r.out.size(), intact.out.size());
  EXPECT_EQ(intact.out.substr(0, r.out.size()), r.out);
  const RunResult json = RunTool("scan --json " + Shell(path_));
  EXPECT_EQ(json.exit_code, 1);
  const Json doc = ParseJson(json.out);
  EXPECT_FALSE(doc["ok"].get<bool>());
  EXPECT_NE(doc["stopped"].get<std::string>().find(std::to_string(offset)), std::string::npos);
}

TEST_F(SstInspectTest, ScanSkipDamagedGoesOnAndReportsEachBlock) {
  const RunResult intact = RunTool("scan --keys-only " + Shell(path_));
  const uint64_t offset = DamageSecondDataBlock(path_);
  const RunResult r = RunTool("scan --keys-only --skip-damaged " + Shell(path_));
  EXPECT_EQ(r.exit_code, 1) << "a salvage is still not a clean read";
  EXPECT_NE(r.err.find("skipped a damaged block: data block at offset " + std::to_string(offset)),
            std::string::npos)
      << r.err;
  // Every line but the damaged block's, in order.
  const size_t lost = CountLines(intact.out) - CountLines(r.out);
  EXPECT_GT(lost, 0u);
  EXPECT_LT(lost, 30u);
  EXPECT_EQ(r.out.substr(r.out.size() - 20), intact.out.substr(intact.out.size() - 20));
  const Json doc = ParseJson(RunTool("scan --json --skip-damaged " + Shell(path_)).out);
  ASSERT_EQ(doc["skipped_blocks"].size(), 1u);
  EXPECT_TRUE(doc["stopped"].is_null());
}

TEST_F(SstInspectTest, DumpShowsABlocksRawBytesEvenWhenDamaged) {
  const RunResult blocks = RunTool("blocks --json " + Shell(path_));
  const Json first = FirstFile(blocks.out)["data_blocks"][0];
  const uint64_t size = first["stored_size"].get<uint64_t>();
  RunResult r = RunTool("dump --json " + Shell(path_) + " 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json block = FirstFile(r.out);
  EXPECT_EQ(block["block"].get<std::string>(), "data block 0");
  // The stored bytes and the trailer, exactly as in the file.
  const std::string bytes = ReadFile(path_).substr(0, size + 9);
  std::string hex;
  for (char c : bytes) {
    char two[3];
    std::snprintf(two, sizeof(two), "%02x", static_cast<unsigned char>(c));
    hex += two;
  }
  EXPECT_EQ(block["hex"].get<std::string>(), hex);
  r = RunTool("dump " + Shell(path_) + " 0");
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            path_ + ": data block 0 at offset 0: " + std::to_string(size) +
                " bytes, then the 9-byte trailer; checks pass");
  EXPECT_EQ(CountLines(r.out), 1 + (size + 9 + 15) / 16);
  EXPECT_EQ(r.out.substr(r.out.find('\n') + 1, 10), "00000000  ");

  const uint64_t offset = DamageSecondDataBlock(path_);
  r = RunTool("dump " + Shell(path_) + " " + std::to_string(offset));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("DAMAGED: "), std::string::npos) << r.out;
  // An offset inside a block is a usage error naming that block.
  r = RunTool("dump " + Shell(path_) + " " + std::to_string(offset + 3));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("inside the data block 1 at offset " + std::to_string(offset)),
            std::string::npos)
      << r.err;
  EXPECT_EQ(RunTool("dump " + Shell(path_) + " x").exit_code, 2);
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
    Write("000009.sst",
          {{"apple", 1, EntryType::kValue, "old"}, {"cherry", 2, EntryType::kValue, "c2"}});
    Write("000010.sst",
          {{"apple", 5, EntryType::kValue, "new"}, {"banana", 6, EntryType::kDeletion, ""}});
    Write("000011.sst", {{"banana", 9, EntryType::kValue, "b9"}});
    WriteFile(dir_ + "/MANIFEST", "not a table, and not read");
  }
  void Write(const std::string& name, const std::vector<Entry>& entries) {
    WriteTable(dir_ + "/" + name, entries, TableOptions());
  }
  std::string dir_;
};

TEST_F(SstInspectLsmTest, GetReadsEveryFileOfADirectoryAndAnswersTheHighestSequence) {
  RunResult r = RunTool("get " + Shell(dir_) + " apple");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Masked(r.out, dir_),
            "\"apple\" @5 value \"new\"\n"
            "  FILE/000011.sst: filter no, not found\n"
            "  FILE/000010.sst: filter maybe, value @5  <- newest\n"
            "  FILE/000009.sst: filter maybe, value @1\n");
  r = RunTool("get --json " + Shell(dir_) + " banana");
  EXPECT_EQ(r.exit_code, 0);
  const Json doc = ParseJson(r.out);
  EXPECT_EQ(doc["value"].get<std::string>(), "b9");
  EXPECT_EQ(doc["from"].get<std::string>(), dir_ + "/000011.sst");
  ASSERT_EQ(doc["files"].size(), 3u);
  // Files named one by one are put in the same order.
  r = RunTool("get " + Shell(dir_ + "/000009.sst") + " " + Shell(dir_ + "/000010.sst") + " apple");
  EXPECT_NE(r.out.find("\"apple\" @5 value \"new\""), std::string::npos) << r.out;
  r = RunTool("get " + Shell(dir_) + " durian");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "\"durian\" not found");
}

// A store's level compaction can give older entries a higher file number
// (kvstore: put K v1; compact; put K v2; compact --level=1 leaves v1 in a
// newer file than v2's): the newest entry is the highest sequence number.
TEST_F(SstInspectLsmTest, GetAndScanTrustSequenceNumbersNotFileNumbers) {
  Write("000020.sst", {{"kiwi", 3, EntryType::kValue, "v1_old"}});
  Write("000012.sst", {{"kiwi", 8, EntryType::kValue, "v2_new"}});
  RunResult r = RunTool("get " + Shell(dir_) + " kiwi");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "\"kiwi\" @8 value \"v2_new\"") << r.out;
  r = RunTool("get --json " + Shell(dir_) + " kiwi");
  EXPECT_EQ(ParseJson(r.out)["from"].get<std::string>(), dir_ + "/000012.sst");
  r = RunTool("scan --from kiwi --to kiwj " + Shell(dir_));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Masked(r.out, dir_),
            "FILE/000012.sst: \"kiwi\" @8 value \"v2_new\"\n"
            "FILE/000020.sst: \"kiwi\" @3 value \"v1_old\"\n");
}

// Tables of unrelated stores can hold one key at one sequence number: which
// is newer cannot be known, and the tool says so instead of guessing.
TEST_F(SstInspectLsmTest, TwoEntriesAtOneSequenceNumberAreAmbiguousNotGuessed) {
  Write("000030.sst", {{"fig", 4, EntryType::kValue, "from-a"}});
  Write("000031.sst", {{"fig", 4, EntryType::kValue, "from-b"}});
  RunResult r = RunTool("get " + Shell(dir_) + " fig");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "\"fig\" @4 ambiguous") << r.out;
  EXPECT_NE(r.err.find("cannot be known"), std::string::npos) << r.err;
  r = RunTool("get --json " + Shell(dir_) + " fig");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(ParseJson(r.out)["result"].get<std::string>(), "ambiguous");
  r = RunTool("scan --from fig --to fih " + Shell(dir_));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot be known"), std::string::npos) << r.err;
  // The same entry in two files (a copy) is no conflict.
  Write("000032.sst", {{"lime", 4, EntryType::kValue, "same"}});
  Write("000033.sst", {{"lime", 4, EntryType::kValue, "same"}});
  r = RunTool("get " + Shell(dir_) + " lime");
  EXPECT_EQ(r.exit_code, 0) << r.err;
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
            std::string::npos)
      << r.out;
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

// ---------------------------------------------------------------- progress

// script(1) gives the tool a terminal for stderr while stdout goes to a
// file: a pass longer than a second then shows a progress line, unless
// --quiet. (Piped, stderr stays empty: every other test checks that.) The
// probes are many because an unfiltered lookup now costs ~100 ns: 80 million
// take seconds on any machine this runs on.
TEST_F(SstInspectTest, LongPassesShowProgressOnATerminalOnly) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  const std::string out = TempPath("progress.out");
  auto run = [&](const std::string& flags) {
    const std::string command = std::string(kTool) + " filter --probes=80000000 --range-probes=0 " +
                                flags + " " + Shell(path_) + " >" + Shell(out);
    return RunTool("-qec " + Shell(command) + " /dev/null", "script");
  };
  RunResult r = run("");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("filter " + path_ + ": outside the range: "), std::string::npos) << r.out;
  EXPECT_NE(ReadFile(out).find("measured outside the key range"), std::string::npos);
  r = run("--quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("outside the range: "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace inspect_test
}  // namespace lsmbloom
