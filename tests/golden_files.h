// The golden files that pin every on-disk format (tests/testdata/golden):
// what each holds and how today's code writes it. tests/golden_format_test
// checks that today's bytes equal the checked-in ones and that today's
// readers find every key in every golden file, of any version;
// tests/write_golden_files adds the files of a new format version.
//
// A file is named after its format and the version its bytes say they are
// (`<name>.v<version>`), so bytes that change without their version
// changing fail the test, and a new version needs a new file while the old
// ones must still be read.

#ifndef LSMBLOOM_TESTS_GOLDEN_FILES_H_
#define LSMBLOOM_TESTS_GOLDEN_FILES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/table/entry.h"
#include "lsmbloom/table/options.h"

namespace lsmbloom {
namespace golden {

// A filter format: a policy, and the golden file's name before ".v<N>".
struct GoldenFilter {
  std::string name;
  std::shared_ptr<const FilterPolicy> policy;
};

// A table format: the options it is written with (unique id and creation
// time fixed, so its bytes are reproducible).
struct GoldenTable {
  std::string name;
  TableOptions options;
};

std::vector<GoldenFilter> GoldenFilters();
std::vector<GoldenTable> GoldenTables();

// The keys every golden file holds, ascending and distinct: what
// tests/testdata/golden/keys.txt lists, one per line.
std::vector<std::string> MakeGoldenKeys();

// The entry a golden table holds for keys[i]: some deletions, values of
// varied lengths.
struct GoldenEntry {
  std::string key;
  uint64_t seq;
  EntryType type;
  std::string value;
};
GoldenEntry GoldenEntryFor(const std::vector<std::string>& keys, size_t i);

// Today's bytes of each format from `keys`.
absl::StatusOr<std::string> WriteGoldenFilter(const GoldenFilter& format,
                                              const std::vector<std::string>& keys);
absl::StatusOr<std::string> WriteGoldenTable(const GoldenTable& format,
                                             const std::vector<std::string>& keys);

// The format version the bytes record: byte 4 of every filter's header,
// the footer's version field of a table.
uint32_t FilterFormatVersion(const std::string& filter);
uint32_t TableFormatVersion(const std::string& table);

// "<name>.v<version>".
std::string GoldenFileName(const std::string& name, uint32_t version);

}  // namespace golden
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_GOLDEN_FILES_H_
