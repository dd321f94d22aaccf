// sst_inspect get: the newest entry for a key across tables in LSM order
// (the first file, newest first, that holds the key answers), looked up
// without the filter, and what each file's filter says.

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

// What the filter says about `key`; sets *false_negative when it rules out
// a key the table holds.
std::string FilterAnswer(const FilterView& f, std::string_view key, bool present,
                         bool* false_negative) {
  *false_negative = false;
  if (f.policy().empty()) return "none";
  if (f.reader() == nullptr) return "untrusted";
  if (!f.whole_keys()) return "prefixes_only";
  if (f.reader()->KeyMayMatch(key)) return "maybe";
  *false_negative = present;
  return "no";
}

const char* ResultName(LookupResult::Kind kind) {
  switch (kind) {
    case LookupResult::Kind::kFound:
      return "value";
    case LookupResult::Kind::kDeleted:
      return "deletion";
    case LookupResult::Kind::kNotFound:
      return "not_found";
  }
  return "not_found";
}

std::string EntryText(const Style& style, std::string_view key, const LookupResult& r) {
  if (r.kind == LookupResult::Kind::kNotFound) return Quoted(style, key) + " not found";
  std::string s = absl::StrCat(Quoted(style, key), " @", r.sequence, " ", ResultName(r.kind));
  if (r.kind == LookupResult::Kind::kFound) absl::StrAppend(&s, " ", Quoted(style, r.value));
  return s;
}

}  // namespace

int RunGet(const Options& o, const std::vector<InputFile>& files, const std::string& key,
           Json* doc) {
  bool ok = true;
  LookupResult answer;
  const InputFile* answered_by = nullptr;
  std::vector<std::string> lines;
  for (const InputFile& file : files) {
    absl::StatusOr<InspectedTable> t = InspectedTable::Open(file.path);
    // Unfiltered, so the answer stands even if the filter is wrong.
    absl::StatusOr<LookupResult> r =
        t.ok() ? GetUnfiltered(t->table(), key) : absl::StatusOr<LookupResult>(t.status());
    if (!r.ok()) {
      (*doc)["files"].push_back(FileError(file.shown, r.status()));
      ok = false;
      continue;
    }
    bool false_negative;
    const std::string filter =
        FilterAnswer(t->filter(), key, r->kind != LookupResult::Kind::kNotFound, &false_negative);
    (*doc)["files"].push_back(Json{{"file", EscapeBytes(file.shown)},
                                   {"result", ResultName(r->kind)},
                                   {"sequence", r->sequence},
                                   {"value", ShowBytes(o.style, r->value)},
                                   {"filter", filter},
                                   {"false_negative", false_negative}});
    lines.push_back(
        absl::StrCat(file.shown, ": filter ", filter, ", ",
                     r->kind == LookupResult::Kind::kNotFound
                         ? std::string("not found")
                         : absl::StrCat(ResultName(r->kind), " @", r->sequence),
                     false_negative ? " -- FALSE NEGATIVE: the table holds this key" : ""));
    if (false_negative) {
      Complain(file.shown, absl::StrCat("the filter rules out ", Quoted(Style{}, key),
                                        ", which the table holds"));
      ok = false;
    }
    if (r->kind != LookupResult::Kind::kNotFound) {
      answer = *r;
      answered_by = &file;
      break;  // Older files hold older entries: the newest has answered.
    }
  }
  if (o.style.json) {
    (*doc)["key"] = ShowBytes(o.style, key);
    (*doc)["result"] = ResultName(answer.kind);
    (*doc)["from"] = answered_by ? Json(EscapeBytes(answered_by->shown)) : Json(nullptr);
    (*doc)["sequence"] = answer.sequence;
    (*doc)["value"] = ShowBytes(o.style, answer.value);
  } else if (!lines.empty()) {  // Some file was read: it has an answer.
    std::printf("%s\n", EntryText(o.style, key, answer).c_str());
    for (const std::string& line : lines) std::printf("  %s\n", line.c_str());
  }
  if (!ok) return kExitProblem;
  // Like kvstore's get: a key with no value (absent or deleted) exits 1.
  return answer.kind == LookupResult::Kind::kFound ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
