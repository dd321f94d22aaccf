// Writes the golden files of tests/golden_files.h into a directory
// (tests/testdata/golden): keys.txt if it is missing, and each format's file
// for the version its bytes record if that file is missing. It never
// overwrites a golden file: one whose bytes differ from today's is reported
// and the run fails, since bytes that change must change their version.
//
//   bazel run //tests:write_golden_files -- $PWD/tests/testdata/golden

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/golden_files.h"

namespace {

using lsmbloom::golden::GoldenFileName;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// 0 when `path` now holds `bytes` (written or already there), 1 when it
// holds other bytes.
int Place(const std::string& path, const std::string& bytes) {
  if (std::filesystem::exists(path)) {
    if (ReadFile(path) == bytes) {
      std::printf("unchanged  %s\n", path.c_str());
      return 0;
    }
    std::printf("DIFFERS    %s (not overwritten: the format changed without its version)\n",
                path.c_str());
    return 1;
  }
  std::ofstream(path, std::ios::binary) << bytes;
  std::printf("written    %s\n", path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fprintf(stderr,
                 "usage: write_golden_files DIR\n"
                 "Adds the golden files (tests/golden_files.h) missing from DIR; never\n"
                 "overwrites one, and exits 1 if any checked-in file differs from today's.\n");
    return argc == 2 ? 0 : 2;
  }
  const std::string dir = argv[1];
  const std::vector<std::string> keys = lsmbloom::golden::MakeGoldenKeys();
  std::string listing;
  for (const std::string& key : keys) listing += key + "\n";
  int differ = Place(dir + "/keys.txt", listing);
  for (const auto& format : lsmbloom::golden::GoldenFilters()) {
    auto bytes = lsmbloom::golden::WriteGoldenFilter(format, keys);
    if (!bytes.ok()) {
      std::fprintf(stderr, "%s: %s\n", format.name.c_str(), bytes.status().ToString().c_str());
      return 1;
    }
    differ |= Place(dir + "/" +
                        GoldenFileName(format.name, lsmbloom::golden::FilterFormatVersion(*bytes)),
                    *bytes);
  }
  for (const auto& format : lsmbloom::golden::GoldenTables()) {
    auto bytes = lsmbloom::golden::WriteGoldenTable(format, keys);
    if (!bytes.ok()) {
      std::fprintf(stderr, "%s: %s\n", format.name.c_str(), bytes.status().ToString().c_str());
      return 1;
    }
    differ |= Place(dir + "/" +
                        GoldenFileName(format.name, lsmbloom::golden::TableFormatVersion(*bytes)),
                    *bytes);
  }
  return differ;
}
