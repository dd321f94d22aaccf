// sst_inspect verify: every checksum, entry order, properties, a lookup of
// every key and the filter's answer for every key and prefix.

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "tools/sst_inspect_analysis.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

void PrintText(const Style& style, const std::string& shown, const VerifyReport& r) {
  const std::string verdict = r.ok() ? "OK"
                                     : absl::StrCat("FAILED, ", r.problem_count, " problem",
                                                    r.problem_count == 1 ? "" : "s");
  std::printf("%s: %s\n", shown.c_str(), verdict.c_str());
  Row("entries", absl::StrCat(r.entries, " read, ", r.keys, " keys, ", r.deletions, " deletions"));
  Row("checksums", r.damaged_data_blocks == 0
                       ? absl::StrCat("footer, index, meta-index, properties and ",
                                      r.data_blocks_checked, " data blocks ok")
                       : absl::StrCat(r.damaged_data_blocks, " of ", r.data_blocks_checked,
                                      " data blocks damaged: see problems"));
  Row("lookups", absl::StrCat(r.lookups_ok, " of ", r.keys, " keys found at their newest entry"));
  std::string filter = "not checked: no trusted filter";
  if (r.filter_used) {
    filter = absl::StrCat(r.filter_keys_checked, " keys");
    if (r.filter_prefixes_checked > 0) {
      absl::StrAppend(&filter, " and ", r.filter_prefixes_checked, " prefixes");
    }
    absl::StrAppend(&filter, " checked, ", r.false_negative_count, " false negatives");
  }
  Row("filter", filter);
  for (const Problem& p : r.problems) Row("problem", absl::StrCat(p.check, ": ", p.message));
  if (r.problem_count > r.problems.size()) {
    Row("problem", absl::StrCat("... and ", r.problem_count - r.problems.size(), " more"));
  }
  for (const std::string& warning : r.warnings) Row("warning", warning);
  for (const FalseNegative& fn : r.false_negatives) {
    const std::string where =
        fn.filter_block >= 0 ? absl::StrCat(" (filter block ", fn.filter_block, ")") : "";
    Row("false negative",
        absl::StrCat(fn.is_prefix ? "prefix " : "", Quoted(style, fn.bytes), where));
  }
  if (r.false_negative_count > r.false_negatives.size()) {
    Row("false negative",
        absl::StrCat("... and ", r.false_negative_count - r.false_negatives.size(), " more"));
  }
}

Json ReportJson(const Style& style, const std::string& shown, const VerifyReport& r) {
  Json problems = Json::array(), warnings = Json::array(), negatives = Json::array();
  for (const Problem& p : r.problems) {
    problems.push_back(Json{{"check", p.check}, {"message", EscapeBytes(p.message)}});
  }
  for (const std::string& w : r.warnings) warnings.push_back(EscapeBytes(w));
  for (const FalseNegative& fn : r.false_negatives) {
    negatives.push_back(Json{{"key", ShowBytes(style, fn.bytes)},
                             {"prefix", fn.is_prefix},
                             {"filter_block", fn.filter_block}});
  }
  return Json{{"file", EscapeBytes(shown)},
              {"ok", r.ok()},
              {"entries", r.entries},
              {"keys", r.keys},
              {"deletions", r.deletions},
              {"data_blocks", r.data_blocks},
              {"data_blocks_checked", r.data_blocks_checked},
              {"damaged_data_blocks", r.damaged_data_blocks},
              {"lookups_ok", r.lookups_ok},
              {"filter_used", r.filter_used},
              {"filter_keys_checked", r.filter_keys_checked},
              {"filter_prefixes_checked", r.filter_prefixes_checked},
              {"problem_count", r.problem_count},
              {"problems", problems},
              {"warnings", warnings},
              {"false_negative_count", r.false_negative_count},
              {"false_negatives", negatives}};
}

}  // namespace

int RunVerify(const Options& o, const std::vector<InputFile>& files, Json* doc) {
  uint64_t passed = 0, failed = 0, entries = 0;
  // A damaged table is no error here: Verify reports what it found.
  const uint64_t unreadable = ForEachTable(
      o, "verify", files, doc,
      [&](const InputFile& file, const InspectedTable& t) {
        Progress blocks(o.style.progress, "verify " + file.shown + ": checksums",
                        t.properties().num_data_blocks, "data blocks");
        Progress rows(o.style.progress, "verify " + file.shown + ": entries",
                      t.table().num_entries(), "entries");
        return absl::StatusOr<VerifyReport>(Verify(t, &blocks, &rows));
      },
      [&](const InputFile& file, const InspectedTable&, const VerifyReport& r) {
        entries += r.entries;
        (r.ok() ? passed : failed)++;
        if (o.style.json) {
          (*doc)["files"].push_back(ReportJson(o.style, file.shown, r));
        } else {
          PrintText(o.style, file.shown, r);
        }
        if (!r.ok()) {
          Complain(file.shown, absl::StrCat("verify failed, ", r.problem_count, " problem",
                                            r.problem_count == 1 ? "" : "s",
                                            "; first: ", r.problems[0].message));
        }
      });
  if (files.size() > 1) {
    if (o.style.json) {
      (*doc)["summary"] = Json{{"files", files.size()},
                               {"passed", passed},
                               {"failed", failed},
                               {"unreadable", unreadable},
                               {"entries", entries}};
    } else {
      std::printf(
          "\ntotal: %zu files: %llu OK, %llu FAILED, %llu unreadable; %llu entries\n", files.size(),
          static_cast<unsigned long long>(passed), static_cast<unsigned long long>(failed),
          static_cast<unsigned long long>(unreadable), static_cast<unsigned long long>(entries));
    }
  }
  return failed + unreadable == 0 ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
