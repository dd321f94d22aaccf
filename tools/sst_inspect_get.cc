// sst_inspect get: the newest entry for a key across tables, looked up
// without the filter in every file, and what each file's filter says.
//
// The newest entry is the one with the highest sequence number, never the
// one in the file with the highest number or the latest time: a store's
// compaction can give older entries a newer file. When two files hold the
// key at that same sequence number with different entries (tables of
// unrelated stores), the order cannot be known, and get says so.

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
  // Files whose entry shares the answer's sequence number but not its
  // contents: which is newer cannot be known.
  std::vector<const InputFile*> conflicting;
  std::vector<std::string> lines;
  std::vector<const InputFile*> line_files;  // Whose line each is.
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
    line_files.push_back(&file);
    if (false_negative) {
      Complain(file.shown, absl::StrCat("the filter rules out ", Quoted(Style{}, key),
                                        ", which the table holds"));
      ok = false;
    }
    if (r->kind == LookupResult::Kind::kNotFound) continue;
    if (answered_by == nullptr || r->sequence > answer.sequence) {
      answer = *r;
      answered_by = &file;
      conflicting.clear();
    } else if (r->sequence == answer.sequence &&
               (r->kind != answer.kind || r->value != answer.value)) {
      conflicting.push_back(&file);
    }
  }
  const bool ambiguous = !conflicting.empty();
  if (ambiguous) {
    std::string names = answered_by->shown;
    for (const InputFile* f : conflicting) absl::StrAppend(&names, ", ", f->shown);
    Complain(names, absl::StrCat("hold different entries for ", Quoted(Style{}, key),
                                 " at the same sequence number ", answer.sequence,
                                 ": which is newest cannot be known (tables of different "
                                 "stores?)"));
    ok = false;
  }
  if (o.style.json) {
    (*doc)["key"] = ShowBytes(o.style, key);
    (*doc)["result"] = ambiguous ? "ambiguous" : ResultName(answer.kind);
    (*doc)["from"] = answered_by && !ambiguous ? Json(EscapeBytes(answered_by->shown)) : Json(nullptr);
    (*doc)["sequence"] = answer.sequence;
    (*doc)["value"] = ambiguous ? "" : ShowBytes(o.style, answer.value);
  } else if (!lines.empty()) {  // Some file was read: it has an answer.
    if (ambiguous) {
      std::printf("%s @%llu ambiguous\n", Quoted(o.style, key).c_str(),
                  static_cast<unsigned long long>(answer.sequence));
    } else {
      std::printf("%s\n", EntryText(o.style, key, answer).c_str());
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      // Over several files, which one answered.
      const bool newest = lines.size() > 1 && !ambiguous && line_files[i] == answered_by;
      std::printf("  %s%s\n", lines[i].c_str(), newest ? "  <- newest" : "");
    }
  }
  if (!ok) return kExitProblem;
  // Like kvstore's get: a key with no value (absent or deleted) exits 1.
  return answer.kind == LookupResult::Kind::kFound ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
