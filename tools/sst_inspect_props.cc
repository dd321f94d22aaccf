// sst_inspect props: the footer, layout, counts, filter parameters and every
// property of each table; reads no data block.

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

std::string CreationTime(const InspectedTable& t) {
  const int64_t seconds = t.properties().creation_time;
  return absl::StrCat(seconds, " (",
                      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixSeconds(seconds),
                                       absl::UTCTimeZone()),
                      ")");
}

// Distinct user keys, when a whole-key filter without prefixes counted them.
bool HasDistinctKeys(const FilterView& f) { return f.whole_keys() && f.prefix_extractor().empty(); }

void PrintFilterParameters(const FilterView& f) {
  Row("describe", f.reader()->Describe(), 4);
  Row("bits/key", absl::StrFormat("%.3f", f.reader()->bits_per_key()), 4);
  if (f.blocked() != nullptr) {
    const BlockedBloomGeometry& g = f.blocked()->geometry();
    Row("k (probes)", absl::StrCat(g.num_probes), 4);
    Row("blocks", absl::StrCat(g.num_blocks, " of 64 bytes"), 4);
    Row("keys", absl::StrCat(g.num_keys, " distinct hashes"), 4);
    Row("format version", absl::StrCat(f.blocked_format_version()), 4);
    Row("hash", absl::StrCat("xxh3-64, seed ", g.hash.seed), 4);
  }
  Row("predicted fpr", Percent(f.reader()->predicted_fpr()), 4);
}

void PrintText(const Style& style, const std::string& shown, const InspectedTable& t) {
  const Table& table = t.table();
  const TableProperties& props = t.properties();
  const uint64_t deletions = props.num_deletions;
  std::printf("%s\n", shown.c_str());
  Row("size", Bytes(table.file_size()));
  const TableLayout layout = LayoutOf(table);
  Row("format", absl::StrCat("lsmbloom table v", table.format_version(), " (footer of 64 bytes at ",
                             layout.footer_offset, ": magic and checksum ok)"));
  Row("unique id",
      table.format_version() >= 2
          ? absl::StrFormat("%016x (every block's checksum is bound to it)", table.unique_id())
          : "none (format v1: blocks are not bound to their place)");
  Row("created", absl::StrCat(CreationTime(t), " by ", props.creator));
  Row("entries", absl::StrCat(table.num_entries(), ": ", table.num_entries() - deletions,
                              " values, ", deletions, " deletions"));
  if (HasDistinctKeys(t.filter())) Row("distinct keys", absl::StrCat(t.filter().keys_added()));
  Row("key range", absl::StrCat(Quoted(style, table.smallest_user_key()), " .. ",
                                Quoted(style, table.largest_user_key())));
  Row("raw sizes",
      absl::StrCat("keys ", Bytes(props.raw_key_size), ", values ", Bytes(props.raw_value_size)));
  Row("data blocks",
      absl::StrCat(props.num_data_blocks, ", ", Bytes(props.data_size), "; block size ",
                   props.block_size, ", restart interval ", props.restart_interval,
                   ", compression ", CompressionName(props.compression)));
  auto located = [](const BlockLocation& b) {
    return absl::StrCat(Bytes(b.size), " at ", b.offset);
  };
  Row("index block", located(layout.index));
  Row("meta-index block", located(layout.metaindex));
  Row("properties block", located(layout.properties));
  if (layout.filter.size > 0) Row("filter block", located(layout.filter));
  PrintFilterSummary(t.filter());
  Row("properties", absl::StrCat(t.recorded_properties().size(), ", as recorded:"));
  for (const auto& [name, value] : t.recorded_properties()) {
    std::printf("    %-34s %s\n", EscapeBytes(name).c_str(), Quoted(Style{}, value).c_str());
  }
}

Json Location(const BlockLocation& b) { return Json{{"offset", b.offset}, {"size", b.size}}; }

Json PropsJson(const Style& style, const std::string& shown, const InspectedTable& t) {
  const Table& table = t.table();
  Json j;
  j["file"] = EscapeBytes(shown);
  j["size"] = table.file_size();
  j["format_version"] = table.format_version();
  // A string: 64-bit ids do not survive JSON readers that use doubles.
  j["unique_id"] = table.format_version() >= 2 ? Json(absl::StrFormat("%016x", table.unique_id()))
                                               : Json(nullptr);
  const TableProperties& props = t.properties();
  j["creator"] = EscapeBytes(props.creator);
  j["creation_time"] = props.creation_time;
  j["entries"] = table.num_entries();
  j["deletions"] = props.num_deletions;
  j["distinct_keys"] = HasDistinctKeys(t.filter()) ? Json(t.filter().keys_added()) : Json(nullptr);
  j["smallest_key"] = ShowBytes(style, table.smallest_user_key());
  j["largest_key"] = ShowBytes(style, table.largest_user_key());
  j["raw_key_bytes"] = props.raw_key_size;
  j["raw_value_bytes"] = props.raw_value_size;
  j["data_blocks"] = props.num_data_blocks;
  j["data_bytes"] = props.data_size;
  j["block_size"] = props.block_size;
  j["restart_interval"] = props.restart_interval;
  j["compression"] = CompressionName(props.compression);
  j["index_bytes"] = table.index_memory();
  const TableLayout layout = LayoutOf(table);
  j["layout"] = Json{{"footer_offset", layout.footer_offset},
                     {"index", Location(layout.index)},
                     {"metaindex", Location(layout.metaindex)},
                     {"properties", Location(layout.properties)},
                     {"filter", layout.filter.size > 0 ? Location(layout.filter) : Json(nullptr)}};
  j["filter"] = FilterJson(t.filter());
  Json recorded = Json::object();
  for (const auto& [name, value] : t.recorded_properties()) {
    recorded[EscapeBytes(name)] = EscapeBytes(value);
  }
  j["properties"] = recorded;
  return j;
}

// Totals over several tables.
struct Totals {
  uint64_t files = 0, bytes = 0, entries = 0, deletions = 0, data_blocks = 0;
  uint64_t filter_bytes = 0, filter_keys = 0;
  std::string smallest, largest;
  bool any = false;

  void Add(const InspectedTable& t) {
    const Table& table = t.table();
    files++;
    bytes += table.file_size();
    entries += table.num_entries();
    deletions += t.properties().num_deletions;
    data_blocks += t.properties().num_data_blocks;
    filter_bytes += t.filter().size();
    filter_keys += t.filter().keys_added();
    if (table.num_entries() == 0) return;
    if (!any || table.smallest_user_key() < smallest) smallest = table.smallest_user_key();
    if (!any || table.largest_user_key() > largest) largest = table.largest_user_key();
    any = true;
  }
};

}  // namespace

std::string FilterKind(const FilterView& f) {
  if (f.policy() == kBlockedBloomPolicyName) return "blocked bloom";
  if (f.policy() == kRibbonPolicyName) {
    // Over max_construction_bytes a Ribbon builder writes a blocked filter.
    return f.blocked() != nullptr ? "blocked bloom (ribbon fallback)" : "ribbon";
  }
  if (f.policy() == kClassicBloomPolicyName) return "classic bloom";
  if (f.policy() == kModularBloomPolicyName) return "modular bloom";
  return "other";
}

std::string FilterContents(const FilterView& f) {
  std::string what = f.whole_keys() ? "whole keys" : "";
  if (!f.prefix_extractor().empty()) {
    absl::StrAppend(&what, what.empty() ? "" : " and ", "prefixes (", f.prefix_extractor(), ")");
  }
  return what.empty() ? "nothing" : what;
}

std::string FilterNotUsed(const FilterView& f) {
  return absl::StrCat(f.damaged() ? "UNTRUSTED (corrupt)" : "NOT USED",
                      ", lookups go unfiltered: ", StatusText(f.status()));
}

void PrintFilterSummary(const FilterView& f) {
  if (f.policy().empty()) {
    Row("filter", "none");
    return;
  }
  Row("filter", absl::StrCat(f.policy(), ", ", Bytes(f.size()), ", ", FilterContents(f), ", ",
                             f.keys_added(), " keys added"));
  if (!f.status().ok()) {
    Row("status", FilterNotUsed(f), 4);
    return;
  }
  Row("status", "trusted", 4);
  if (f.reader() != nullptr) PrintFilterParameters(f);
}

Json FilterJson(const FilterView& f) {
  if (f.policy().empty()) return nullptr;
  Json j;
  j["policy"] = EscapeBytes(f.policy());
  j["kind"] = FilterKind(f);
  j["size"] = f.size();
  j["whole_keys"] = f.whole_keys();
  j["prefix_extractor"] = EscapeBytes(f.prefix_extractor());
  j["keys_added"] = f.keys_added();
  j["trusted"] = f.status().ok();
  j["status"] = f.status().ok() ? "OK" : EscapeBytes(StatusText(f.status()));
  if (f.reader() != nullptr) {
    j["describe"] = EscapeBytes(f.reader()->Describe());
    j["bits_per_key"] = f.reader()->bits_per_key();
    j["predicted_fpr"] = f.reader()->predicted_fpr();
  }
  j["blocked"] = nullptr;
  if (f.blocked() != nullptr) {
    const BlockedBloomGeometry& g = f.blocked()->geometry();
    j["blocked"] = Json{{"format_version", f.blocked_format_version()},
                        {"num_probes", g.num_probes},
                        {"num_blocks", g.num_blocks},
                        {"num_keys", g.num_keys},
                        {"hash", "xxh3-64"},
                        {"seed", g.hash.seed}};
  }
  return j;
}

int RunProps(const Options& o, const std::vector<InputFile>& files, Json* doc) {
  Totals totals;
  // Opening a table reads all that props shows: nothing more to analyse.
  const uint64_t unreadable = ForEachTable(
      o, "props", files, doc,
      [](const InputFile&, const InspectedTable&) { return absl::StatusOr<bool>(true); },
      [&](const InputFile& file, const InspectedTable& t, bool) {
        totals.Add(t);
        if (o.style.json) {
          (*doc)["files"].push_back(PropsJson(o.style, file.shown, t));
        } else {
          PrintText(o.style, file.shown, t);
        }
      });
  if (files.size() > 1) {
    const std::string range = totals.any ? absl::StrCat(Quoted(o.style, totals.smallest), " .. ",
                                                        Quoted(o.style, totals.largest))
                                         : "none";
    if (o.style.json) {
      (*doc)["summary"] = Json{
          {"files", totals.files},
          {"bytes", totals.bytes},
          {"entries", totals.entries},
          {"deletions", totals.deletions},
          {"data_blocks", totals.data_blocks},
          {"filter_bytes", totals.filter_bytes},
          {"filter_keys", totals.filter_keys},
          {"smallest_key", totals.any ? Json(ShowBytes(o.style, totals.smallest)) : Json(nullptr)},
          {"largest_key", totals.any ? Json(ShowBytes(o.style, totals.largest)) : Json(nullptr)}};
    } else {
      std::printf("\ntotal: %llu of %zu files read\n",
                  static_cast<unsigned long long>(totals.files), files.size());
      Row("size", Bytes(totals.bytes));
      Row("entries", absl::StrCat(totals.entries, ", ", totals.deletions, " deletions"));
      Row("key range", range);
      Row("data blocks", absl::StrCat(totals.data_blocks));
      Row("filters",
          absl::StrCat(Bytes(totals.filter_bytes), " for ", totals.filter_keys, " keys added"));
    }
  }
  return unreadable == 0 ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
