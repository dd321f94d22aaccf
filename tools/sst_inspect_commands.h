// The sst_inspect commands, one source file each (sst_inspect_<name>.cc).
// Each reads its files, prints text or fills the JSON document's "files"
// (and, over several files, "summary"), and returns the exit status.

#ifndef LSMBLOOM_TOOLS_SST_INSPECT_COMMANDS_H_
#define LSMBLOOM_TOOLS_SST_INSPECT_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lsmbloom/inspect/inspect.h"
#include "tools/sst_inspect_common.h"

namespace lsmbloom {
namespace inspect {

// The command line, parsed and checked.
struct Options {
  Style style;
  uint64_t probes = 100000;       // filter: generated keys outside the range.
  uint64_t range_probes = 10000;  // filter: keys inside the key range.
  std::string keys_from;          // filter: a file of keys to probe with.
  std::string from, to;           // scan: [from, to); empty: unbounded.
  int64_t limit = -1;             // scan: negative is no limit.
  bool keys_only = false;         // scan: keys without values.
  bool count_only = false;        // scan: only the number of entries.
};

int RunProps(const Options& o, const std::vector<InputFile>& files, Json* doc);
int RunBlocks(const Options& o, const std::vector<InputFile>& files, Json* doc);
int RunSizes(const Options& o, const std::vector<InputFile>& files, Json* doc);
int RunFilter(const Options& o, const std::vector<InputFile>& files, Json* doc);
int RunVerify(const Options& o, const std::vector<InputFile>& files, Json* doc);
// scan and get read their files in LSM order, newest first.
int RunScan(const Options& o, const std::vector<InputFile>& files, Json* doc);
int RunGet(const Options& o, const std::vector<InputFile>& files, const std::string& key,
           Json* doc);

// Shared by props and filter: the filter object, and its text summary.
Json FilterJson(const FilterView& f);
void PrintFilterSummary(const FilterView& f);
// "whole keys and prefixes (lsmbloom.FixedPrefix.3)".
std::string FilterContents(const FilterView& f);
// Why a filter is not used: corrupt, or unreadable by this build.
std::string FilterNotUsed(const FilterView& f);

}  // namespace inspect
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_SST_INSPECT_COMMANDS_H_
