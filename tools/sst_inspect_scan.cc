// sst_inspect scan: entries of one or several tables, merged in LSM order:
// user keys ascending, and for one key the newest entry first (by sequence
// number; the file order only breaks ties), each naming its file.
//
// A listing never looks complete when it is not: the first block that
// cannot be read stops the scan with an error naming the file and the
// block's offset. With --skip-damaged the scan reports each damaged block
// and goes on past it, and still exits 1.

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
  // Set when a damaged block ends the scan early: the listing is partial.
  std::string stopped;
  Json skipped = Json::array();
  // A source whose iterator stopped on an error: stop the scan, or with
  // --skip-damaged report the block and go past it.
  auto push_or_finish = [&](Source* s) {
    while (!s->it->Valid() && !s->it->status().ok()) {
      const std::string error(s->it->status().message());
      ok = false;
      if (!o.skip_damaged) {
        Complain(s->file->shown, absl::StrCat(error, "; the scan stops here (--skip-damaged goes on "
                                              "past damaged blocks)"));
        stopped = absl::StrCat(s->file->shown, ": ", error);
        return;
      }
      if (!s->it->SkipDamagedBlock()) {
        Complain(s->file->shown, absl::StrCat(error, "; the rest of this file cannot be read"));
        skipped.push_back(Json{{"file", EscapeBytes(s->file->shown)},
                               {"error", EscapeBytes(error)},
                               {"rest_of_file", true}});
        return;
      }
      Complain(s->file->shown, absl::StrCat("skipped a damaged block: ", error));
      skipped.push_back(Json{{"file", EscapeBytes(s->file->shown)},
                             {"error", EscapeBytes(error)},
                             {"rest_of_file", false}});
    }
    if (s->it->Valid()) heap.push(s);
  };
  for (auto& s : sources) {
    push_or_finish(s.get());
    if (!stopped.empty()) break;
  }
  // The entry printed last, to tell when two files hold one key at one
  // sequence number with different contents (their order is unknowable).
  struct Last {
    std::string key, value;
    uint64_t sequence = 0;
    EntryType type = EntryType::kValue;
    const Source* source = nullptr;
  } last;
  const bool name_files = files.size() > 1;
  Json entries = Json::array();
  uint64_t count = 0;
  bool more = false;
  while (!heap.empty() && stopped.empty()) {
    Source* s = heap.top();
    heap.pop();
    const TableEntry e = s->it->entry();
    if (!o.to.empty() && e.user_key >= o.to) continue;  // This source is done.
    if (o.limit >= 0 && count == static_cast<uint64_t>(o.limit)) {
      more = true;
      break;
    }
    if (last.source != nullptr && last.source != s && last.key == e.user_key &&
        last.sequence == e.sequence && (last.type != e.type || last.value != e.value)) {
      Complain(absl::StrCat(last.source->file->shown, ", ", s->file->shown),
               absl::StrCat("hold different entries for ", Quoted(Style{}, e.user_key),
                            " at the same sequence number ", e.sequence,
                            ": which is newer cannot be known (tables of different stores?)"));
      ok = false;
    }
    last.key.assign(e.user_key.data(), e.user_key.size());
    last.value.assign(e.value.data(), e.value.size());
    last.sequence = e.sequence;
    last.type = e.type;
    last.source = s;
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
    // Set when a damaged block stopped the scan: the entries are partial.
    (*doc)["stopped"] = stopped.empty() ? Json(nullptr) : Json(EscapeBytes(stopped));
    (*doc)["skipped_blocks"] = std::move(skipped);
    if (!o.count_only) (*doc)["entries"] = std::move(entries);
  }
  return ok ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
