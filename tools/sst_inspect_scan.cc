// sst_inspect scan: entries of one or several tables, merged in LSM order:
// user keys ascending, and for one key the newest entry first (higher
// sequence numbers, then the newer file), each naming its file.

#include <cstdio>
#include <queue>

#include "absl/strings/str_cat.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

struct Source {
  size_t rank;  // Position in LSM order: 0 is the newest file.
  const InputFile* file;
  std::unique_ptr<InspectedTable> table;
  std::unique_ptr<TableIterator> it;
  uint64_t shown = 0;
};

// Whether `a`'s current entry comes after `b`'s (a min-heap by LSM order).
struct After {
  bool operator()(const Source* a, const Source* b) const {
    const TableEntry x = a->it->entry(), y = b->it->entry();
    if (x.user_key != y.user_key) return x.user_key > y.user_key;
    if (x.sequence != y.sequence) return x.sequence < y.sequence;
    return a->rank > b->rank;
  }
};

std::string TypeName(EntryType type) { return type == EntryType::kDeletion ? "deletion" : "value"; }

}  // namespace

int RunScan(const Options& o, const std::vector<InputFile>& files, Json* doc) {
  bool ok = true;
  std::vector<std::unique_ptr<Source>> sources;
  for (size_t i = 0; i < files.size(); ++i) {
    absl::StatusOr<InspectedTable> t = InspectedTable::Open(files[i].path);
    if (!t.ok()) {
      (*doc)["files"].push_back(FileError(files[i].shown, t.status()));
      ok = false;
      continue;
    }
    auto s = std::make_unique<Source>();
    s->rank = i;
    s->file = &files[i];
    s->table = std::make_unique<InspectedTable>(std::move(*t));
    s->it = s->table->table().NewIterator();
    if (o.from.empty()) {
      s->it->SeekToFirst();
    } else {
      s->it->Seek(o.from);
    }
    sources.push_back(std::move(s));
  }
  std::priority_queue<Source*, std::vector<Source*>, After> heap;
  // A source whose iterator stopped on an error: say so, and go on without it.
  auto push_or_finish = [&](Source* s) {
    if (s->it->Valid()) {
      heap.push(s);
    } else if (!s->it->status().ok()) {
      Complain(s->file->shown, std::string(s->it->status().message()));
      ok = false;
    }
  };
  for (auto& s : sources) push_or_finish(s.get());
  const bool name_files = files.size() > 1;
  Json entries = Json::array();
  uint64_t count = 0;
  bool more = false;
  while (!heap.empty()) {
    Source* s = heap.top();
    heap.pop();
    const TableEntry e = s->it->entry();
    if (!o.to.empty() && e.user_key >= o.to) continue;  // This source is done.
    if (o.limit >= 0 && count == static_cast<uint64_t>(o.limit)) {
      more = true;
      break;
    }
    count++;
    s->shown++;
    if (!o.count_only) {
      if (o.style.json) {
        Json j{{"file", EscapeBytes(s->file->shown)},
               {"key", ShowBytes(o.style, e.user_key)},
               {"sequence", e.sequence},
               {"type", TypeName(e.type)}};
        if (!o.keys_only) j["value"] = ShowBytes(o.style, e.value);
        entries.push_back(std::move(j));
      } else {
        std::string line = name_files ? s->file->shown + ": " : "";
        absl::StrAppend(&line, Quoted(o.style, e.user_key), " @", e.sequence, " ",
                        TypeName(e.type));
        if (!o.keys_only && e.type == EntryType::kValue) {
          absl::StrAppend(&line, " ", Quoted(o.style, e.value));
        }
        std::printf("%s\n", line.c_str());
      }
    }
    s->it->Next();
    push_or_finish(s);
  }
  if (o.count_only && !o.style.json) std::printf("%llu\n", static_cast<unsigned long long>(count));
  if (o.style.json) {
    for (auto& s : sources) {
      const absl::Status st = s->it->status();
      (*doc)["files"].push_back(Json{{"file", EscapeBytes(s->file->shown)},
                                     {"entries", s->shown},
                                     {"error", EscapeBytes(std::string(st.message()))}});
    }
    (*doc)["count"] = count;
    (*doc)["more"] = more;
    if (!o.count_only) (*doc)["entries"] = std::move(entries);
  }
  return ok ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
