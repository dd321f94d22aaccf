// sst_inspect's filter and verify commands on filters healthy, damaged and
// mismatched: health against the table's own keys, probes outside and
// inside the key range and from a keys file, and verify naming every
// damaged or misplaced block.

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/inspect/inspect.h"
#include "tests/sst_inspect_testutil.h"
#include "tests/table_surgery.h"

namespace lsmbloom {
namespace inspect_test {
namespace {

// ---------------------------------------------------------------- filter

// Keys the probe generator will produce: a table holding some of them
// must not count them as absent.
std::string ProbeKey(uint64_t i) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "sst_inspect.probe.%016llx",
                static_cast<unsigned long long>(testutil::SplitMix64(i)));
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
  const std::vector<Entry> entries = testutil::MakeEntries(60000, 3);
  WriteTable(path, entries, TableOptions());
  RunResult r = RunTool("filter --json --probes=50000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  const Json& health = file["health"];
  EXPECT_EQ(health["false_negatives"].get<double>(), 0);
  EXPECT_EQ(health["distinct_hashes"].get<double>(),
            file["filter"]["blocked"]["num_keys"].get<double>());
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
  options.prefix_extractor = *NewFixedPrefixExtractor(6);
  const std::string path = TempPath("prefix.sst");
  WriteTable(path, testutil::MakeEntries(3000, 1), options);
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
  std::vector<Entry> entries = testutil::MakeEntries(500, 2);
  const std::string none = TempPath("no_filter.sst");
  TableOptions options;
  options.filter_policy = nullptr;
  WriteTable(none, entries, options);
  const std::string classic = TempPath("classic.sst");
  options.filter_policy = *NewClassicBloomPolicy(10);
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

TEST(SstInspectFilterTest, RibbonTableShowsKindBitsPerKeyModelAndMeasuredFpr) {
  const std::vector<Entry> entries = testutil::MakeEntries(30000, 4);
  RibbonOptions ribbon;
  ribbon.target_fpr = 0.01;
  TableOptions options;
  options.filter_policy = *NewRibbonPolicy(ribbon);
  const std::string path = TempPath("ribbon.sst");
  WriteTable(path, entries, options);
  std::set<std::string> distinct;
  for (const Entry& e : entries) distinct.insert(e.key);

  RunResult r = RunTool("filter --json --probes=50000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_EQ(file["filter"]["policy"].get<std::string>(), kRibbonPolicyName);
  EXPECT_EQ(file["filter"]["kind"].get<std::string>(), "ribbon");
  EXPECT_TRUE(file["filter"]["trusted"].get<bool>());
  const double bits = file["filter"]["bits_per_key"].get<double>();
  EXPECT_GT(bits, 6);
  EXPECT_LT(bits, 8);  // The blocked filter needs ~10 for this FPR.
  EXPECT_TRUE(file["health"].is_null());  // Bits and block loads: blocked only.
  EXPECT_EQ(file["keys"]["distinct_hashes"].get<double>(), distinct.size());
  EXPECT_EQ(file["keys"]["false_negatives"].get<double>(), 0);
  const double model = file["fpr"]["model"].get<double>();
  EXPECT_GT(model, 0.005);
  EXPECT_LE(model, 0.0101);
  const double measured = file["fpr"]["measured"]["fpr"].get<double>();
  EXPECT_GT(measured, model / 2);
  EXPECT_LT(measured, model * 2);

  r = RunTool("filter --probes=2000 --range-probes=0 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row : {"kind               ribbon\n", "bits/key           ",
                          "(Ribbon model, dependent keys included)",
                          "; 0 false negatives\n", "measured outside the key range"}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  }
  r = RunTool("verify --json " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(FirstFile(r.out)["filter_keys_checked"].get<double>(), distinct.size());
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
  testutil::FixTrailer(file, {"filter", f.offset, f.offset + f.size + testutil::kTrailerSize, true},
                      testutil::Kind::kFilter);
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
  EXPECT_NE(r.out.find("filter block at offset " + std::to_string(filter_.offset) + " (" +
                       std::to_string(filter_.size) + " bytes): checksum mismatch"),
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
  const absl::StatusOr<std::vector<BlockLocation>> blocks = DataBlockLocations(**table);
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
  std::vector<testutil::Region> regions;
  ASSERT_TRUE(testutil::FindRegions(good_, &regions));
  const std::vector<testutil::Region> data = testutil::RegionsNamed(regions, "data");
  ASSERT_EQ(data.size(), 5u);
  std::string bad = good_;
  for (size_t i : {1, 3}) testutil::CopyRegion(&bad, data[i], other, data[i].begin);
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
    entries.push_back({testutil::TableKey(i), 1, EntryType::kValue, "value-of-fixed-size"});
  }
  TableOptions options;
  options.block_size = 512;
  const std::string path = TempPath("swapped.sst");
  WriteTable(path, entries, options);
  std::string bytes = ReadFile(path);
  std::vector<testutil::Region> regions;
  ASSERT_TRUE(testutil::FindRegions(bytes, &regions));
  const std::vector<testutil::Region> data = testutil::RegionsNamed(regions, "data");
  const auto pairs = testutil::SameSizePairs(data);
  ASSERT_FALSE(pairs.empty());
  const auto [i, j] = pairs.back();
  testutil::SwapRegions(&bytes, data[i], data[j]);
  WriteFile(path, bytes);
  const RunResult r = RunTool("verify " + Shell(path));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("2 of " + std::to_string(data.size()) + " data blocks damaged"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("data block " + std::to_string(i) + " at offset " +
                       std::to_string(data[i].begin) + " (" + std::to_string(data[i].block_size()) +
                       " bytes): misplaced: intact, but written for offset " +
                       std::to_string(data[j].begin)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("data block " + std::to_string(j) + " at offset " +
                       std::to_string(data[j].begin) + " (" + std::to_string(data[j].block_size()) +
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
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    return DefaultFilterPolicy()->NewReader(filter);
  }
};

TEST(SstInspectMismatchTest, FilterMissingKeysIsCaughtByVerifyFilterAndGet) {
  const std::vector<Entry> entries = testutil::MakeEntries(3000, 4);
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
  WriteTable(path, testutil::MakeEntries(300, 6), options);
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

// ---------------------------------------------------------------- filter probes

TEST(SstInspectFilterTest, ProbesInsideTheKeyRangeAndFromAKeysFile) {
  const std::vector<Entry> entries = testutil::MakeEntries(20000, 1);
  const std::string path = TempPath("probes.sst");
  WriteTable(path, entries, TableOptions());
  const std::string keys = TempPath("probe_keys.txt");
  std::string text;
  for (int i = 0; i < 300; ++i) text += entries[i * 7].key + "\n";  // Present.
  for (int i = 0; i < 700; ++i) text += "absent-key-" + std::to_string(i) + "\n";
  WriteFile(keys, text);
  RunResult r = RunTool("filter --json --probes=0 --range-probes=3000 --keys-from " + Shell(keys) +
                        " " + Shell(path));
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
}  // namespace inspect_test
}  // namespace lsmbloom
