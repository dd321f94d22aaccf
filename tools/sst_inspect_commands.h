// The sst_inspect commands, one source file each (sst_inspect_<name>.cc).
// Each reads its files, prints text or fills the JSON document's "files"
// (and, over several files, "summary"), and returns the exit status.

#ifndef LSMBLOOM_TOOLS_SST_INSPECT_COMMANDS_H_
#define LSMBLOOM_TOOLS_SST_INSPECT_COMMANDS_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
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
  bool skip_damaged = false;      // scan: report damaged blocks and go on.
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
// The raw bytes of the block at `offset` of one file, trailer included.
int RunDump(const Options& o, const InputFile& file, uint64_t offset, Json* doc);

// The loop of the per-file commands: for each file in turn, opens its table
// and calls analyze(file, table), which returns an absl::StatusOr of the
// command's report. A file that cannot be opened or analysed gets an error
// entry in the JSON document and a line on stderr; otherwise
// show(file, table, report) prints the report (the text of two files is
// separated by a blank line). Over several files a progress line counts
// them, cleared before anything is printed. Returns how many files could not
// be read.
template <class Analyze, class Show>
uint64_t ForEachTable(const Options& o, const char* command, const std::vector<InputFile>& files,
                      Json* doc, const Analyze& analyze, const Show& show) {
  using Report = decltype(analyze(files[0], std::declval<const InspectedTable&>()));
  Progress done(o.style.progress && files.size() > 1, command, files.size(), "files");
  uint64_t unreadable = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    done.Force(i);
    absl::StatusOr<InspectedTable> table = InspectedTable::Open(files[i].path);
    Report report = table.ok() ? analyze(files[i], *table) : Report(table.status());
    done.Clear();  // Before anything is printed.
    if (!report.ok()) {
      (*doc)["files"].push_back(FileError(files[i].shown, report.status()));
      unreadable++;
      continue;
    }
    if (!o.style.json && i > 0) std::printf("\n");
    show(files[i], *table, *report);
  }
  return unreadable;
}

// Shared by props and filter: the filter object, and its text summary.
Json FilterJson(const FilterView& f);
void PrintFilterSummary(const FilterView& f);
// The filter's kind by its policy: "blocked bloom", "ribbon", "classic
// bloom", or "other" (a policy this build does not have).
std::string FilterKind(const FilterView& f);
// "whole keys and prefixes (lsmbloom.FixedPrefix.3)".
std::string FilterContents(const FilterView& f);
// Why a filter is not used: corrupt, or unreadable by this build.
std::string FilterNotUsed(const FilterView& f);

}  // namespace inspect
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_SST_INSPECT_COMMANDS_H_
