// sst_inspect filter on tables with a modular filter: a line for each
// module (offset, size, bits/key, k, FPR, FPR of the modules up to it,
// checksum), in text and JSON, against the header the table reads; and a
// module damaged in the file reported as damaged, the command failing.

#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "tests/sst_inspect_testutil.h"
#include "tests/table_surgery.h"

namespace lsmbloom {
namespace inspect_test {
namespace {

// Module bits/key of the tables here: four modules of unequal sizes.
const std::vector<double> kModuleBits = {4, 2, 2, 1};

TableOptions ModularOptions() {
  ModularBloomOptions modular;
  modular.module_bits_per_key = kModuleBits;
  TableOptions options;
  options.filter_policy = *NewModularBloomPolicy(modular);
  return options;
}

// The modular header the table reads when it opens `path`.
ModularBloomHeader HeaderOf(const std::string& path) {
  auto file = OpenPosixFile(path);
  EXPECT_TRUE(file.ok()) << file.status();
  auto table = Table::Open(std::move(*file));
  EXPECT_TRUE(table.ok()) << table.status();
  if (!table.ok() || (*table)->filter_modules() == nullptr) return ModularBloomHeader();
  return *(*table)->filter_modules();
}

// Where the filter block starts in the file (table_surgery.h, from the
// footer and meta-index by hand).
size_t FilterOffset(const std::string& path) {
  std::vector<testutil::Region> regions;
  EXPECT_TRUE(testutil::FindRegions(ReadFile(path), &regions));
  const std::vector<testutil::Region> filter = testutil::RegionsNamed(regions, "filter");
  EXPECT_EQ(filter.size(), 1u);
  return filter.empty() ? 0 : filter[0].begin;
}

// The module lines of the text report: module index -> the line's fields
// (offset, size, bits/key, k, fpr, fpr 0..m, checksum verdict).
std::vector<std::vector<std::string>> ModuleLines(const std::string& out) {
  static const std::regex line(
      R"(^ +(\d+) +(\d+) +(\d+) +([0-9.]+) +(\d+) +([0-9.]+%) +([0-9.]+%)  (.*)$)");
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    EXPECT_EQ(std::stoul(m[1]), lines.size()) << l;
    lines.push_back({m[2], m[3], m[4], m[5], m[6], m[7], m[8]});
  }
  return lines;
}

TEST(SstInspectModularTest, ShowsEveryModuleAsTheHeaderNamesIt) {
  const std::string path = TempPath("modular.sst");
  WriteTable(path, testutil::MakeEntries(6000, 1), ModularOptions());
  const ModularBloomHeader header = HeaderOf(path);
  ASSERT_EQ(header.modules.size(), kModuleBits.size());
  const size_t filter_offset = FilterOffset(path);

  RunResult r = RunTool("filter --json --probes=2000 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Json file = FirstFile(r.out);
  EXPECT_EQ(file["filter"]["kind"], "modular bloom");
  EXPECT_EQ(file["keys"]["false_negatives"].get<double>(), 0);
  const Json& modules = file["modules"];
  ASSERT_EQ(modules.size(), kModuleBits.size()) << r.out;
  double cumulative = 1;
  for (size_t m = 0; m < kModuleBits.size(); ++m) {
    SCOPED_TRACE(m);
    const FilterModuleInfo& info = header.modules[m];
    const Json& j = modules[m];
    EXPECT_EQ(j["index"].get<double>(), m);
    EXPECT_EQ(j["offset"].get<double>(), info.offset);
    EXPECT_EQ(j["file_offset"].get<double>(), filter_offset + info.offset);
    EXPECT_EQ(j["size"].get<double>(), info.size);
    EXPECT_EQ(j["num_blocks"].get<double>(), info.num_blocks);
    EXPECT_EQ(j["num_probes"].get<double>(), info.num_probes);
    EXPECT_NEAR(j["bits_per_key"].get<double>(), info.num_blocks * 512.0 / header.num_keys, 1e-9);
    EXPECT_NEAR(j["bits_per_key"].get<double>(), kModuleBits[m], 0.25);
    EXPECT_DOUBLE_EQ(j["predicted_fpr"].get<double>(), info.predicted_fpr);
    cumulative *= info.predicted_fpr;
    EXPECT_DOUBLE_EQ(j["cumulative_fpr"].get<double>(), cumulative);
    EXPECT_TRUE(j["verified"].get<bool>());
    EXPECT_EQ(j["status"], "OK");
  }
  // What the table holds and the probes measure: module 0.
  EXPECT_DOUBLE_EQ(file["fpr"]["model"].get<double>(), header.modules[0].predicted_fpr);

  r = RunTool("filter --probes=100 " + Shell(path));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("modules            4 in the filter block"), std::string::npos) << r.out;
  const std::vector<std::vector<std::string>> lines = ModuleLines(r.out);
  ASSERT_EQ(lines.size(), kModuleBits.size()) << r.out;
  for (size_t m = 0; m < lines.size(); ++m) {
    SCOPED_TRACE(m);
    EXPECT_EQ(lines[m][0], std::to_string(header.modules[m].offset));
    EXPECT_EQ(lines[m][1], std::to_string(header.modules[m].size));
    EXPECT_EQ(lines[m][3], std::to_string(header.modules[m].num_probes));
    EXPECT_EQ(lines[m][6], "verified");
  }
}

TEST(SstInspectModularTest, ADamagedModuleIsReportedAndTheCommandFails) {
  const std::string path = TempPath("modular_intact.sst");
  WriteTable(path, testutil::MakeEntries(6000, 2), ModularOptions());
  const ModularBloomHeader header = HeaderOf(path);
  ASSERT_EQ(header.modules.size(), kModuleBits.size());
  // One byte of module 2's bits (past its own 64-byte header) flipped.
  const FilterModuleInfo& two = header.modules[2];
  std::string bytes = ReadFile(path);
  bytes[FilterOffset(path) + two.offset + 64 + 17] ^= 0x04;
  const std::string damaged = TempPath("modular_damaged.sst");
  WriteFile(damaged, bytes);

  RunResult r = RunTool("filter --probes=100 " + Shell(damaged));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::vector<std::vector<std::string>> lines = ModuleLines(r.out);
  ASSERT_EQ(lines.size(), kModuleBits.size()) << r.out;
  for (size_t m = 0; m < lines.size(); ++m) {
    SCOPED_TRACE(m);
    if (m == 2) {
      EXPECT_EQ(lines[m][6], "DAMAGED, not used: filter module: checksum mismatch");
      // Leaving it out, the FPR of the modules up to it is module 1's.
      EXPECT_EQ(lines[m][5], lines[1][5]);
    } else {
      EXPECT_EQ(lines[m][6], "verified");
    }
  }
  EXPECT_NE(r.err.find("filter module 2 is damaged"), std::string::npos) << r.err;

  r = RunTool("filter --json --probes=100 " + Shell(damaged));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const Json file = FirstFile(r.out);
  for (size_t m = 0; m < kModuleBits.size(); ++m) {
    EXPECT_EQ(file["modules"][m]["verified"].get<bool>(), m != 2) << m;
  }
  EXPECT_NE(file["modules"][2]["status"].get<std::string>().find("checksum mismatch"),
            std::string::npos);
  EXPECT_NE(file["problem"].get<std::string>().find("module 2"), std::string::npos);
  // The table itself, and module 0 with it, is still trusted.
  EXPECT_TRUE(file["filter"]["trusted"].get<bool>());
}

}  // namespace
}  // namespace inspect_test
}  // namespace lsmbloom
