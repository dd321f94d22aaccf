// sst_inspect: looks inside lsmbloom SSTables, filter included.
//
//   sst_inspect props  FILE...       footer, blocks, entries, filter parameters
//   sst_inspect filter FILE...       filter health against the table's keys
//   sst_inspect verify FILE...       checksums, order, lookups, no false negatives
//   sst_inspect scan   FILE          entries, --from/--to/--limit
//   sst_inspect get    FILE KEY      the newest entry for KEY
//
// Text for people by default, one JSON document with --json (the schema is
// in docs/SST_INSPECT.md). Exit status: 0 fine, 1 a file could not be read
// or has a problem, 2 the command line is wrong. Errors are one line on
// stderr: "sst_inspect: <file>: <reason>".

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "lsmbloom/simd.h"
#include "lsmbloom/table.h"
#include "tools/sst_inspect_analysis.h"
#include "tools/sst_inspect_format.h"

ABSL_FLAG(bool, json, false,
          "print one JSON document (schema: docs/SST_INSPECT.md) instead of text");
ABSL_FLAG(bool, quiet, false, "no progress lines on stderr during long passes");
ABSL_FLAG(uint64_t, probes, 100000,
          "absent keys to measure the false-positive rate with; 0 skips it");
ABSL_FLAG(std::string, from, "", "first key to show (inclusive; \\xNN escapes)");
ABSL_FLAG(std::string, to, "", "key to stop before (exclusive; \\xNN escapes)");
ABSL_FLAG(int64_t, limit, -1, "show at most this many entries; negative: all");

namespace lsmbloom {
namespace inspect {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitProblem = 1;
constexpr int kExitUsage = 2;
constexpr int kSchemaVersion = 1;

// ---------------------------------------------------------------- output

// Where a command writes: text on stdout, or members of the JSON document.
struct Output {
  bool json = false;
  JsonWriter* w = nullptr;
};

// One "  label  value" row of a text report.
void Row(const char* label, const std::string& value, int indent = 2) {
  std::printf("%*s%-*s %s\n", indent, "", 20 - indent, label, value.c_str());
}

// A file that could not be read: one line on stderr, and an entry in the
// JSON "files" array so the document still lists every file.
void FileError(const Output& out, const std::string& path, const absl::Status& status) {
  std::fprintf(stderr, "sst_inspect: %s: %s\n", path.c_str(),
               std::string(status.message()).c_str());
  if (!out.json) return;
  out.w->BeginObject();
  out.w->Key("file").String(EscapeBytes(path));
  out.w->Key("error").String(EscapeBytes(Std(status.message())));
  out.w->EndObject();
}

std::string CreationTime(const Table& table) {
  const int64_t seconds =
      static_cast<int64_t>(PropertyUint(table, "lsmbloom.creation_time"));
  return absl::StrCat(seconds, " (",
                      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC",
                                       absl::FromUnixSeconds(seconds),
                                       absl::UTCTimeZone()),
                      ")");
}

std::string FilterContents(const FilterInfo& f) {
  std::string what = f.whole_keys ? "whole keys" : "";
  if (!f.prefix_extractor.empty()) {
    absl::StrAppend(&what, what.empty() ? "" : " and ", "prefixes (", f.prefix_extractor,
                    ")");
  }
  return what.empty() ? "nothing" : what;
}

// Why a filter is not used: corrupt (a problem), or unreadable by this build.
std::string FilterNotUsed(const absl::Status& status) {
  return absl::StrCat(FilterStatusIsProblem(status) ? "UNTRUSTED (corrupt)" : "NOT USED",
                      ", lookups go unfiltered: ", StatusText(status));
}

std::string EntryTypeName(EntryType type) {
  return type == EntryType::kDeletion ? "deletion" : "value";
}

// ---------------------------------------------------------------- props

// The filter's parameters, as its reader and header state them.
void PrintFilterParameters(const FilterInfo& f) {
  Row("describe", f.reader->Describe(), 4);
  Row("bits/key", absl::StrFormat("%.3f", f.reader->bits_per_key()), 4);
  if (f.blocked.has_value()) {
    const FilterGeometry& g = f.blocked->geometry();
    Row("k (probes)", absl::StrCat(g.num_probes), 4);
    Row("blocks", absl::StrCat(g.num_blocks, " of 64 bytes"), 4);
    Row("keys", absl::StrCat(g.num_keys, " distinct hashes"), 4);
    Row("format version", absl::StrCat(f.blocked_format_version), 4);
    Row("hash", absl::StrCat("xxh3-64, seed ", g.hash.seed), 4);
  }
  Row("predicted fpr", Percent(f.reader->predicted_fpr()), 4);
}

void PrintFilterSummary(const FilterInfo& f) {
  if (f.policy.empty()) {
    Row("filter", "none");
    return;
  }
  Row("filter", absl::StrCat(f.policy, ", ", Bytes(f.size), ", ", FilterContents(f),
                             ", ", f.keys_added, " keys added"));
  if (!f.status.ok()) {
    Row("status", FilterNotUsed(f.status), 4);
    return;
  }
  Row("status", "trusted", 4);
  if (f.reader != nullptr) PrintFilterParameters(f);
}

void PrintPropsText(const std::string& path, const InspectedTable& t) {
  const Table& table = *t.table;
  const uint64_t deletions = PropertyUint(table, "lsmbloom.num_deletions");
  std::printf("%s\n", path.c_str());
  Row("size", Bytes(table.file_size()));
  const TableLayout& layout = table.layout();
  Row("format", absl::StrCat("lsmbloom table v", table.format_version(),
                             " (footer of 64 bytes at ", layout.footer_offset,
                             ": magic and checksum ok)"));
  Row("unique id", table.format_version() >= 2
                       ? absl::StrFormat("%016x (every block's checksum is bound to it)",
                                         table.unique_id())
                       : "none (format v1: blocks are not bound to their place)");
  Row("created", absl::StrCat(CreationTime(table), " by ",
                              Property(table, "lsmbloom.creator")));
  Row("entries", absl::StrCat(table.num_entries(), ": ", table.num_entries() - deletions,
                              " values, ", deletions, " deletions"));
  if (t.filter.whole_keys && t.filter.prefix_extractor.empty()) {
    Row("distinct keys", absl::StrCat(t.filter.keys_added));
  }
  Row("key range", absl::StrCat(Quoted(table.smallest_user_key()), " .. ",
                                Quoted(table.largest_user_key())));
  Row("raw sizes", absl::StrCat("keys ", Bytes(PropertyUint(table, "lsmbloom.raw_key_size")),
                                ", values ",
                                Bytes(PropertyUint(table, "lsmbloom.raw_value_size"))));
  Row("data blocks",
      absl::StrCat(PropertyUint(table, "lsmbloom.num_data_blocks"), ", ",
                   Bytes(PropertyUint(table, "lsmbloom.data_size")), "; block size ",
                   Property(table, "lsmbloom.block_size"), ", restart interval ",
                   Property(table, "lsmbloom.restart_interval"), ", compression ",
                   Property(table, "lsmbloom.compression")));
  auto located = [](const BlockLocation& b) {
    return absl::StrCat(Bytes(b.size), " at ", b.offset);
  };
  Row("index block", located(layout.index));
  Row("meta-index block", located(layout.metaindex));
  Row("properties block", located(layout.properties));
  if (layout.filter.size > 0) Row("filter block", located(layout.filter));
  PrintFilterSummary(t.filter);
}

void WriteFilterJson(JsonWriter& w, const FilterInfo& f) {
  if (f.policy.empty()) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("policy").String(EscapeBytes(f.policy));
  w.Key("size").Uint(f.size);
  w.Key("whole_keys").Bool(f.whole_keys);
  w.Key("prefix_extractor").String(EscapeBytes(f.prefix_extractor));
  w.Key("keys_added").Uint(f.keys_added);
  w.Key("trusted").Bool(f.status.ok());
  w.Key("status").String(f.status.ok() ? "OK" : EscapeBytes(StatusText(f.status)));
  if (f.reader != nullptr) {
    w.Key("describe").String(EscapeBytes(f.reader->Describe()));
    w.Key("bits_per_key").Double(f.reader->bits_per_key());
    w.Key("predicted_fpr").Double(f.reader->predicted_fpr());
  }
  w.Key("blocked");
  if (f.blocked.has_value()) {
    const FilterGeometry& g = f.blocked->geometry();
    w.BeginObject();
    w.Key("format_version").Int(f.blocked_format_version);
    w.Key("num_probes").Int(g.num_probes);
    w.Key("num_blocks").Uint(g.num_blocks);
    w.Key("num_keys").Uint(g.num_keys);
    w.Key("hash").String("xxh3-64");
    w.Key("seed").Uint(g.hash.seed);
    w.EndObject();
  } else {
    w.Null();
  }
  w.EndObject();
}

void WritePropsJson(JsonWriter& w, const std::string& path, const InspectedTable& t) {
  const Table& table = *t.table;
  auto uint_prop = [&](const char* key, const char* property) {
    w.Key(key).Uint(PropertyUint(table, property));
  };
  w.BeginObject();
  w.Key("file").String(EscapeBytes(path));
  w.Key("size").Uint(table.file_size());
  w.Key("format_version").Uint(table.format_version());
  // A string: 64-bit ids do not survive JSON readers that use doubles.
  w.Key("unique_id");
  if (table.format_version() >= 2) {
    w.String(absl::StrFormat("%016x", table.unique_id()));
  } else {
    w.Null();
  }
  w.Key("creator").String(EscapeBytes(Property(table, "lsmbloom.creator")));
  uint_prop("creation_time", "lsmbloom.creation_time");
  w.Key("entries").Uint(table.num_entries());
  uint_prop("deletions", "lsmbloom.num_deletions");
  w.Key("distinct_keys");
  if (t.filter.whole_keys && t.filter.prefix_extractor.empty()) {
    w.Uint(t.filter.keys_added);
  } else {
    w.Null();
  }
  w.Key("smallest_key").String(EscapeBytes(table.smallest_user_key()));
  w.Key("largest_key").String(EscapeBytes(table.largest_user_key()));
  uint_prop("raw_key_bytes", "lsmbloom.raw_key_size");
  uint_prop("raw_value_bytes", "lsmbloom.raw_value_size");
  uint_prop("data_blocks", "lsmbloom.num_data_blocks");
  uint_prop("data_bytes", "lsmbloom.data_size");
  uint_prop("block_size", "lsmbloom.block_size");
  uint_prop("restart_interval", "lsmbloom.restart_interval");
  w.Key("compression").String(EscapeBytes(Property(table, "lsmbloom.compression")));
  w.Key("index_bytes").Uint(table.index_memory());
  const TableLayout& layout = table.layout();
  auto write_location = [&w](const char* name, const BlockLocation& b) {
    w.Key(name).BeginObject(/*one_line=*/true);
    w.Key("offset").Uint(b.offset);
    w.Key("size").Uint(b.size);
    w.EndObject();
  };
  w.Key("layout").BeginObject();
  w.Key("footer_offset").Uint(layout.footer_offset);
  write_location("index", layout.index);
  write_location("metaindex", layout.metaindex);
  write_location("properties", layout.properties);
  if (layout.filter.size > 0) {
    write_location("filter", layout.filter);
  } else {
    w.Key("filter").Null();
  }
  w.EndObject();
  w.Key("filter");
  WriteFilterJson(w, t.filter);
  w.Key("properties").BeginObject();
  for (const auto& [name, value] : table.properties()) {
    w.Key(EscapeBytes(name)).String(EscapeBytes(value));
  }
  w.EndObject();
  w.EndObject();
}

bool PropsOne(const Output& out, const std::string& path) {
  absl::StatusOr<InspectedTable> t = OpenInspectedTable(path);
  if (!t.ok()) {
    FileError(out, path, t.status());
    return false;
  }
  if (out.json) {
    WritePropsJson(*out.w, path, *t);
  } else {
    PrintPropsText(path, *t);
  }
  return true;
}

// ---------------------------------------------------------------- filter

struct FilterReport {
  std::optional<FilterHealth> health;  // Blocked Bloom filters only.
  std::optional<ProbeResult> probes;   // Unless --probes=0.
};

// Problems the `filter` command exits non-zero for; empty when healthy.
std::string FilterProblem(const FilterInfo& f, const FilterReport& r) {
  if (FilterStatusIsProblem(f.status)) {
    return absl::StrCat("filter untrusted: ", f.status.message());
  }
  if (!r.health.has_value()) return "";
  const FilterHealth& h = *r.health;
  if (h.false_negatives > 0) {
    return absl::StrCat("the filter rules out ", h.false_negatives,
                        " keys the table holds (false negatives)");
  }
  if (h.keys_complete && h.distinct_hashes != f.blocked->geometry().num_keys) {
    return absl::StrCat("the filter's header counts ", f.blocked->geometry().num_keys,
                        " keys; the table's keys hash to ", h.distinct_hashes,
                        " distinct values");
  }
  return "";
}

void PrintHistogram(const std::vector<LoadBin>& bins) {
  uint64_t most = 1;
  for (const LoadBin& b : bins) most = std::max(most, b.blocks);
  for (const LoadBin& b : bins) {
    const std::string range = b.from == b.to ? absl::StrCat(b.from)
                                             : absl::StrCat(b.from, "-", b.to);
    const size_t bar = static_cast<size_t>((b.blocks * 40 + most - 1) / most);
    std::printf("%22s%9s | %-40s %8llu  (Poisson %.1f)\n", "", range.c_str(),
                std::string(bar, '#').c_str(), static_cast<unsigned long long>(b.blocks),
                b.expected);
  }
}

void PrintHealth(const FilterInfo& f, const FilterHealth& h) {
  Row("bits set", absl::StrCat(h.bits_set, " of ", h.bits_total, " (fill ",
                               Percent(h.fill), ")"));
  const uint64_t header_keys = f.blocked->geometry().num_keys;
  std::string keys = absl::StrCat(h.distinct_hashes, " distinct, recomputed from ",
                                  h.entries, " entries");
  if (!h.keys_complete) {
    absl::StrAppend(&keys, " (whole keys only: prefixes of ", f.prefix_extractor,
                    " cannot be recomputed by this tool)");
  } else if (h.distinct_hashes == header_keys) {
    absl::StrAppend(&keys, ", as the header counts");
  } else {
    absl::StrAppend(&keys, ", but the header counts ", header_keys);
  }
  absl::StrAppend(&keys, "; ", h.false_negatives, " false negatives");
  Row("keys", keys);
  Row("keys per block",
      absl::StrFormat("min %u, mean %.2f, max %u, stddev %.2f (Poisson would give %.2f)",
                      h.load_min, h.load_mean, h.load_max, h.load_stddev,
                      std::sqrt(h.load_mean)));
  PrintHistogram(h.histogram);
}

void PrintProbes(const ProbeResult& p) {
  Row("", absl::StrFormat("measured %s (%u of %u probes), 95%% interval %s .. %s",
                          Percent(p.fpr), p.false_positives, p.absent, Percent(p.low),
                          Percent(p.high)));
  Row("probes", absl::StrCat(p.generated, " generated keys \"sst_inspect.probe.<16 hex "
                                          "digits>\", each verified absent by an"));
  Row("", absl::StrCat("unfiltered lookup in the table (index and data block); ",
                       p.excluded, " found present and excluded"));
}

void PrintFilterText(const std::string& path, const InspectedTable& t,
                     const FilterReport& r) {
  const FilterInfo& f = t.filter;
  std::printf("%s\n", path.c_str());
  if (f.policy.empty()) {
    Row("filter", "none: the table has no filter");
    return;
  }
  Row("filter", absl::StrCat(f.policy, ", ", Bytes(f.size), ", ", FilterContents(f)));
  if (f.reader == nullptr) {
    Row("status", FilterNotUsed(f.status));
    return;
  }
  Row("parameters", f.reader->Describe());
  if (r.health.has_value()) {
    PrintHealth(f, *r.health);
  } else {
    Row("bits, loads", "not shown: only for blocked Bloom filters");
  }
  Row("fpr", absl::StrCat("model ", Percent(f.reader->predicted_fpr()),
                          " at this geometry"));
  if (r.health.has_value()) {
    Row("", absl::StrCat("from fill ", Percent(r.health->fpr_from_fill),
                         " (mean over blocks of fill^k)"));
  }
  if (r.probes.has_value()) PrintProbes(*r.probes);
}

void WriteHealthJson(JsonWriter& w, const FilterHealth& h) {
  w.BeginObject();
  w.Key("bits_set").Uint(h.bits_set);
  w.Key("bits_total").Uint(h.bits_total);
  w.Key("fill").Double(h.fill);
  w.Key("entries").Uint(h.entries);
  w.Key("distinct_hashes").Uint(h.distinct_hashes);
  w.Key("keys_complete").Bool(h.keys_complete);
  w.Key("false_negatives").Uint(h.false_negatives);
  w.Key("block_load").BeginObject();
  w.Key("min").Uint(h.load_min);
  w.Key("mean").Double(h.load_mean);
  w.Key("max").Uint(h.load_max);
  w.Key("stddev").Double(h.load_stddev);
  w.Key("histogram").BeginArray();
  for (const LoadBin& b : h.histogram) {
    w.BeginObject(/*one_line=*/true);
    w.Key("from").Uint(b.from);
    w.Key("to").Uint(b.to);
    w.Key("blocks").Uint(b.blocks);
    w.Key("poisson").Double(b.expected);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
}

void WriteFprJson(JsonWriter& w, const FilterInfo& f, const FilterReport& r) {
  w.BeginObject();
  w.Key("model").Double(f.reader->predicted_fpr());
  w.Key("from_fill");
  if (r.health.has_value()) {
    w.Double(r.health->fpr_from_fill);
  } else {
    w.Null();
  }
  w.Key("measured");
  if (r.probes.has_value()) {
    const ProbeResult& p = *r.probes;
    w.BeginObject();
    w.Key("fpr").Double(p.fpr);
    w.Key("low").Double(p.low);
    w.Key("high").Double(p.high);
    w.Key("false_positives").Uint(p.false_positives);
    w.Key("absent").Uint(p.absent);
    w.Key("generated").Uint(p.generated);
    w.Key("excluded").Uint(p.excluded);
    w.EndObject();
  } else {
    w.Null();
  }
  w.EndObject();
}

void WriteFilterReportJson(JsonWriter& w, const std::string& path, const InspectedTable& t,
                           const FilterReport& r, const std::string& problem) {
  w.BeginObject();
  w.Key("file").String(EscapeBytes(path));
  w.Key("filter");
  WriteFilterJson(w, t.filter);
  w.Key("health");
  if (r.health.has_value()) {
    WriteHealthJson(w, *r.health);
  } else {
    w.Null();
  }
  w.Key("fpr");
  if (t.filter.reader != nullptr) {
    WriteFprJson(w, t.filter, r);
  } else {
    w.Null();
  }
  w.Key("problem").String(EscapeBytes(problem));
  w.EndObject();
}

absl::StatusOr<FilterReport> AnalyzeFilter(const std::string& path, const InspectedTable& t) {
  FilterReport r;
  const FilterInfo& f = t.filter;
  if (f.blocked.has_value()) {
    Progress progress(!absl::GetFlag(FLAGS_quiet) && isatty(STDERR_FILENO),
                      "filter " + path, t.table->num_entries());
    absl::StatusOr<FilterHealth> h = AnalyzeBlockedFilter(t, &progress);
    if (!h.ok()) return h.status();
    r.health = *h;
  }
  const uint64_t probes = absl::GetFlag(FLAGS_probes);
  if (f.reader != nullptr && probes > 0) {
    absl::StatusOr<ProbeResult> p = MeasureFpr(*t.table, *f.reader, probes);
    if (!p.ok()) return p.status();
    r.probes = *p;
  }
  return r;
}

bool FilterOne(const Output& out, const std::string& path) {
  absl::StatusOr<InspectedTable> t = OpenInspectedTable(path);
  absl::StatusOr<FilterReport> r = t.ok() ? AnalyzeFilter(path, *t) : t.status();
  if (!r.ok()) {
    FileError(out, path, r.status());
    return false;
  }
  const std::string problem = FilterProblem(t->filter, *r);
  if (out.json) {
    WriteFilterReportJson(*out.w, path, *t, *r, problem);
  } else {
    PrintFilterText(path, *t, *r);
  }
  if (!problem.empty()) {
    std::fprintf(stderr, "sst_inspect: %s: %s\n", path.c_str(), problem.c_str());
  }
  return problem.empty();
}

// ---------------------------------------------------------------- verify

void PrintVerifyText(const std::string& path, const VerifyReport& r) {
  const std::string verdict =
      r.ok() ? "OK"
             : absl::StrCat("FAILED, ", r.problem_count, " problem",
                            r.problem_count == 1 ? "" : "s");
  std::printf("%s: %s\n", path.c_str(), verdict.c_str());
  Row("entries", absl::StrCat(r.entries, " read, ", r.keys, " keys, ", r.deletions,
                              " deletions"));
  Row("checksums", r.damaged_data_blocks == 0
                       ? absl::StrCat("footer, index, meta-index, properties and ",
                                      r.data_blocks_checked, " data blocks ok")
                       : absl::StrCat(r.damaged_data_blocks, " of ", r.data_blocks_checked,
                                      " data blocks damaged: see problems"));
  Row("lookups", absl::StrCat(r.lookups_ok, " of ", r.keys,
                              " keys found at their newest entry"));
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
    std::string where = fn.filter_block >= 0
                            ? absl::StrCat(" (filter block ", fn.filter_block, ")")
                            : "";
    Row("false negative", absl::StrCat(fn.is_prefix ? "prefix " : "", Quoted(fn.bytes), where));
  }
  if (r.false_negative_count > r.false_negatives.size()) {
    Row("false negative", absl::StrCat("... and ",
                                       r.false_negative_count - r.false_negatives.size(),
                                       " more"));
  }
}

void WriteVerifyJson(JsonWriter& w, const std::string& path, const VerifyReport& r) {
  w.BeginObject();
  w.Key("file").String(EscapeBytes(path));
  w.Key("ok").Bool(r.ok());
  w.Key("entries").Uint(r.entries);
  w.Key("keys").Uint(r.keys);
  w.Key("deletions").Uint(r.deletions);
  w.Key("data_blocks").Uint(r.data_blocks);
  w.Key("data_blocks_checked").Uint(r.data_blocks_checked);
  w.Key("damaged_data_blocks").Uint(r.damaged_data_blocks);
  w.Key("lookups_ok").Uint(r.lookups_ok);
  w.Key("filter_used").Bool(r.filter_used);
  w.Key("filter_keys_checked").Uint(r.filter_keys_checked);
  w.Key("filter_prefixes_checked").Uint(r.filter_prefixes_checked);
  w.Key("problem_count").Uint(r.problem_count);
  w.Key("problems").BeginArray();
  for (const Problem& p : r.problems) {
    w.BeginObject(/*one_line=*/true);
    w.Key("check").String(p.check);
    w.Key("message").String(EscapeBytes(p.message));
    w.EndObject();
  }
  w.EndArray();
  w.Key("warnings").BeginArray();
  for (const std::string& warning : r.warnings) w.String(EscapeBytes(warning));
  w.EndArray();
  w.Key("false_negative_count").Uint(r.false_negative_count);
  w.Key("false_negatives").BeginArray();
  for (const FalseNegative& fn : r.false_negatives) {
    w.BeginObject(/*one_line=*/true);
    w.Key("key").String(EscapeBytes(fn.bytes));
    w.Key("prefix").Bool(fn.is_prefix);
    w.Key("filter_block").Int(fn.filter_block);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

bool VerifyOne(const Output& out, const std::string& path) {
  absl::StatusOr<InspectedTable> t = OpenInspectedTable(path);
  if (!t.ok()) {
    FileError(out, path, t.status());
    return false;
  }
  VerifyReport r;
  {
    const bool show = !absl::GetFlag(FLAGS_quiet) && isatty(STDERR_FILENO);
    Progress blocks(show, "verify " + path + ": checksums",
                    PropertyUint(*t->table, "lsmbloom.num_data_blocks"), "data blocks");
    Progress entries(show, "verify " + path + ": entries", t->table->num_entries());
    r = Verify(*t, &blocks, &entries);
  }
  if (out.json) {
    WriteVerifyJson(*out.w, path, r);
  } else {
    PrintVerifyText(path, r);
  }
  if (!r.ok()) {
    std::fprintf(stderr, "sst_inspect: %s: verify failed, %llu problem%s; first: %s\n",
                 path.c_str(), static_cast<unsigned long long>(r.problem_count),
                 r.problem_count == 1 ? "" : "s", r.problems[0].message.c_str());
  }
  return r.ok();
}

// ---------------------------------------------------------------- scan, get

void PrintEntryText(std::string_view key, uint64_t seq, EntryType type,
                    std::string_view value) {
  std::printf("%s @%llu %s", Quoted(key).c_str(), static_cast<unsigned long long>(seq),
              EntryTypeName(type).c_str());
  if (type == EntryType::kValue) std::printf(" %s", Quoted(value).c_str());
  std::printf("\n");
}

void WriteEntryJson(JsonWriter& w, std::string_view key, uint64_t seq, EntryType type,
                    std::string_view value) {
  w.BeginObject(/*one_line=*/true);
  w.Key("key").String(EscapeBytes(key));
  w.Key("sequence").Uint(seq);
  w.Key("type").String(EntryTypeName(type));
  w.Key("value").String(EscapeBytes(value));
  w.EndObject();
}

struct ScanRange {
  std::string from, to;  // Unescaped; empty: unbounded.
  int64_t limit = -1;    // Negative: no limit.
};

// A command's arguments, with escapes undone.
struct Invocation {
  std::vector<std::string> args;  // After the command name.
  ScanRange range;                // scan only.
};

// Prints the entries in range; returns whether more followed the limit.
absl::StatusOr<bool> ScanEntries(const Output& out, const Table& table,
                                 const ScanRange& range) {
  std::unique_ptr<TableIterator> it = table.NewIterator();
  if (range.from.empty()) {
    it->SeekToFirst();
  } else {
    it->Seek(range.from);
  }
  int64_t shown = 0;
  for (; it->Valid(); it->Next()) {
    const TableEntry e = it->entry();
    if (!range.to.empty() && e.user_key >= range.to) break;
    if (range.limit >= 0 && shown == range.limit) return true;
    if (out.json) {
      WriteEntryJson(*out.w, e.user_key, e.sequence, e.type, e.value);
    } else {
      PrintEntryText(e.user_key, e.sequence, e.type, e.value);
    }
    ++shown;
  }
  if (!it->status().ok()) return it->status();
  return false;
}

bool ScanOne(const Output& out, const std::string& path, const ScanRange& range) {
  absl::StatusOr<InspectedTable> t = OpenInspectedTable(path);
  if (!t.ok()) {
    FileError(out, path, t.status());
    return false;
  }
  if (out.json) {
    out.w->BeginObject();
    out.w->Key("file").String(EscapeBytes(path));
    out.w->Key("entries").BeginArray();
  }
  absl::StatusOr<bool> more = ScanEntries(out, *t->table, range);
  if (out.json) {
    out.w->EndArray();
    out.w->Key("more").Bool(more.ok() && *more);
    out.w->Key("error").String(more.ok() ? "" : EscapeBytes(Std(more.status().message())));
    out.w->EndObject();
  }
  if (!more.ok()) {
    std::fprintf(stderr, "sst_inspect: %s: %s\n", path.c_str(),
                 std::string(more.status().message()).c_str());
    return false;
  }
  return true;
}

// What the filter says about `key`, and whether that is a false negative.
std::string FilterAnswer(const FilterInfo& f, std::string_view key, bool present,
                         bool* false_negative) {
  *false_negative = false;
  if (f.policy.empty()) return "none";
  if (f.reader == nullptr) return "untrusted";
  if (!f.whole_keys) return "prefixes_only";
  if (f.reader->KeyMayMatch(key)) return "maybe";
  *false_negative = present;
  return "no";
}

void PrintGetText(std::string_view key, const LookupResult& r, const std::string& filter,
                  bool false_negative) {
  if (r.kind == LookupResult::Kind::kNotFound) {
    std::printf("%s not found\n", Quoted(key).c_str());
  } else {
    const EntryType type = r.kind == LookupResult::Kind::kFound ? EntryType::kValue
                                                                : EntryType::kDeletion;
    PrintEntryText(key, r.sequence, type, r.value);
  }
  std::printf("filter: %s%s\n", filter.c_str(),
              false_negative ? " -- FALSE NEGATIVE: the table holds this key" : "");
}

void WriteGetJson(JsonWriter& w, const std::string& path, std::string_view key,
                  const LookupResult& r, const std::string& filter, bool false_negative) {
  w.BeginObject();
  w.Key("file").String(EscapeBytes(path));
  w.Key("key").String(EscapeBytes(key));
  const char* result = r.kind == LookupResult::Kind::kFound     ? "value"
                       : r.kind == LookupResult::Kind::kDeleted ? "deletion"
                                                                : "not_found";
  w.Key("result").String(result);
  w.Key("sequence").Uint(r.sequence);
  w.Key("value").String(EscapeBytes(r.value));
  w.Key("filter").String(filter);
  w.Key("false_negative").Bool(false_negative);
  w.EndObject();
}

bool GetOne(const Output& out, const std::string& path, const std::string& key) {
  absl::StatusOr<InspectedTable> t = OpenInspectedTable(path);
  // Unfiltered, so the answer stands even if the filter is wrong.
  absl::StatusOr<LookupResult> r =
      t.ok() ? t->table->GetAfterFilter(key, false) : t.status();
  if (!r.ok()) {
    FileError(out, path, r.status());
    return false;
  }
  bool false_negative;
  const std::string filter = FilterAnswer(t->filter, key, r->kind != LookupResult::Kind::kNotFound,
                                          &false_negative);
  if (out.json) {
    WriteGetJson(*out.w, path, key, *r, filter, false_negative);
  } else {
    PrintGetText(key, *r, filter, false_negative);
  }
  if (false_negative) {
    std::fprintf(stderr, "sst_inspect: %s: the filter rules out %s, which the table holds\n",
                 path.c_str(), Quoted(key).c_str());
  }
  return !false_negative;
}

// ---------------------------------------------------------------- commands

struct Command {
  const char* name;
  const char* args;     // As the usage line shows them.
  const char* summary;  // One line for the command list.
  const char* details;  // The rest of the command's --help.
  std::vector<std::string> flags;  // Besides --json.
  size_t min_args, max_args;
  // Runs over the arguments after the command; true if all went well.
  std::function<bool(const Output&, const Invocation&)> run;
};

// Runs `one` for every file, so a bad file does not hide the rest.
bool ForEachFile(const Output& out, const std::vector<std::string>& files,
                 bool (*one)(const Output&, const std::string&)) {
  bool ok = true;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i > 0 && !out.json) std::printf("\n");
    ok &= one(out, files[i]);
  }
  return ok;
}

absl::StatusOr<std::string> UnescapeArg(const std::string& what, const std::string& text) {
  absl::StatusOr<std::string> bytes = UnescapeBytes(text);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", bytes.status().message()));
  }
  return bytes;
}

// Undoes the escapes in KEY (get) and --from, --to (scan).
absl::StatusOr<Invocation> Prepare(const std::string& command,
                                   std::vector<std::string> args) {
  Invocation inv;
  if (command == "get") {
    absl::StatusOr<std::string> key = UnescapeArg("KEY", args[1]);
    if (!key.ok()) return key.status();
    args[1] = *key;
  }
  if (command == "scan") {
    absl::StatusOr<std::string> from = UnescapeArg("--from", absl::GetFlag(FLAGS_from));
    if (!from.ok()) return from.status();
    absl::StatusOr<std::string> to = UnescapeArg("--to", absl::GetFlag(FLAGS_to));
    if (!to.ok()) return to.status();
    inv.range.from = *from;
    inv.range.to = *to;
    inv.range.limit = absl::GetFlag(FLAGS_limit);
  }
  inv.args = std::move(args);
  return inv;
}

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"props", "FILE...", "footer, blocks, entries, properties and filter parameters",
       "Prints, per table: size, format version, creation time, entry and key counts,\n"
       "key range, data and index blocks, and the filter: policy, size, whether it is\n"
       "trusted (and if not, why), bits/key, k, blocks, format version, hash and seed,\n"
       "and the false-positive rate its geometry predicts. Reads no data blocks.",
       {}, 1, SIZE_MAX,
       [](const Output& out, const Invocation& inv) {
         return ForEachFile(out, inv.args, PropsOne);
       }},
      {"filter", "FILE...", "filter health: fill, keys per block, predicted and measured FPR",
       "Reads every entry to recompute the keys the filter was built from, places each\n"
       "in its filter block by the rule of docs/FORMAT.md, and prints the fraction of\n"
       "bits set, the spread of keys per block (with a histogram next to a Poisson\n"
       "spread of the same mean), and three false-positive rates: the model's at this\n"
       "geometry, the one the actual fill predicts (mean over blocks of fill^k), and\n"
       "one measured on --probes generated keys, each verified absent from the table\n"
       "by an unfiltered lookup before it counts. Exits 1 if the filter is corrupt or\n"
       "rules out a key the table holds.",
       {"probes", "quiet"}, 1, SIZE_MAX,
       [](const Output& out, const Invocation& inv) {
         return ForEachFile(out, inv.args, FilterOne);
       }},
      {"verify", "FILE...", "checksums, order, lookups and filter of every key",
       "Opens each table (verifying the footer, index, meta-index, properties and\n"
       "filter checksums), reads every entry (verifying every data block's checksum),\n"
       "checks that entries are in order and match the properties, looks every key up\n"
       "and checks it finds its newest entry, and asks the filter about every key and\n"
       "prefix: one it rules out is a false negative, a corrupt or mismatched filter.\n"
       "Exits 1 on any problem, naming the block offset or key. Progress goes to\n"
       "stderr when it is a terminal.",
       {"quiet"}, 1, SIZE_MAX,
       [](const Output& out, const Invocation& inv) {
         return ForEachFile(out, inv.args, VerifyOne);
       }},
      {"scan", "FILE", "entries in order, between --from and --to",
       "Prints entries in table order, one a line: key, @sequence, type, and value.\n"
       "Keys and values are quoted, with \\xNN for bytes that are not printable ASCII\n"
       "and for '\"' and '\\'. --from and --to take the same escapes.",
       {"from", "to", "limit"}, 1, 1,
       [](const Output& out, const Invocation& inv) {
         return ScanOne(out, inv.args[0], inv.range);
       }},
      {"get", "FILE KEY", "the newest entry for KEY, and what the filter says",
       "Looks KEY up without the filter, prints the newest entry (or \"not found\"),\n"
       "then what the filter answers for it: maybe, no, none, untrusted, or\n"
       "prefixes_only. KEY takes \\xNN escapes. Exits 1 if the filter rules out a key\n"
       "the table holds.",
       {}, 2, 2,
       [](const Output& out, const Invocation& inv) {
         return GetOne(out, inv.args[0], inv.args[1]);
       }},
  };
  return *commands;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: sst_inspect COMMAND [flags] ARGS...\n"
               "Looks inside lsmbloom SSTables, filter included.\n\ncommands:\n");
  for (const Command& c : Commands()) {
    std::fprintf(out, "  %-6s %-9s  %s\n", c.name, c.args, c.summary);
  }
  std::fprintf(out,
               "  help   [COMMAND]  this text, or a command's\n\n"
               "Every command takes --json (one JSON document, docs/SST_INSPECT.md) and\n"
               "--help. Exit status: 0 fine, 1 a file is unreadable or has a problem,\n"
               "2 a usage error.\n");
}

void PrintFlagHelp(const std::string& name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  std::printf("  --%-8s %s (default: %s)\n", name.c_str(), flag->Help().c_str(),
              flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue().c_str());
}

void PrintCommandHelp(const Command& c) {
  std::printf("usage: sst_inspect %s [flags] %s\n%s\n\nflags:\n", c.name, c.args, c.details);
  for (const std::string& flag : c.flags) PrintFlagHelp(flag);
  PrintFlagHelp("json");
  std::printf("  --help     this text\n");
}

// ---------------------------------------------------------------- arguments

struct FlagArg {
  std::string name, value;
};

struct Arguments {
  std::vector<std::string> positional;  // The command first.
  std::vector<FlagArg> flags;
  bool help = false;
};

// The flag "--name" stands for: its own, or for "--noname" a boolean's.
const absl::CommandLineFlag* LookUpFlag(const std::string& name, bool* negated) {
  *negated = false;
  if (const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name)) return f;
  if (!absl::StartsWith(name, "no")) return nullptr;
  const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name.substr(2));
  if (f == nullptr || !f->IsOfType<bool>()) return nullptr;
  *negated = true;
  return f;
}

// Splits argv into flags (-x, --x, --x=v, --x v, --nox) and positional
// arguments; "--" ends the flags.
absl::StatusOr<Arguments> SplitArguments(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      a.positional.insert(a.positional.end(), argv + i + 1, argv + argc);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      a.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    if (name == "help" || name == "h") {
      a.help = true;
      continue;
    }
    const size_t eq = name.find('=');
    std::string value = eq == std::string::npos ? "" : name.substr(eq + 1);
    name = name.substr(0, eq);
    bool negated;
    const absl::CommandLineFlag* flag = LookUpFlag(name, &negated);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag ", arg.substr(0, arg.find('='))));
    }
    if (negated) {
      if (eq != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      value = "false";
    } else if (eq == std::string::npos) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::InvalidArgumentError("--" + name + " needs a value");
      }
    }
    a.flags.push_back(FlagArg{std::string(flag->Name()), value});
  }
  return a;
}

// Sets the flags `command` accepts; anything else is a usage error.
absl::Status ApplyFlags(const Command& command, const std::vector<FlagArg>& flags) {
  for (const FlagArg& f : flags) {
    const bool allowed = f.name == "json" || std::find(command.flags.begin(), command.flags.end(),
                                                       f.name) != command.flags.end();
    if (!allowed) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", f.name, " does not apply to ", command.name));
    }
    std::string error;
    if (!absl::FindCommandLineFlag(f.name)->ParseFrom(f.value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--", f.name, ": ", error));
    }
  }
  return absl::OkStatus();
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "sst_inspect: %s\n", message.c_str());
  return kExitUsage;
}

// `help`, `help COMMAND`, `--help`, `COMMAND --help`.
int Help(const Arguments& a) {
  std::vector<std::string> words = a.positional;
  if (!words.empty() && words[0] == "help") words.erase(words.begin());
  if (words.empty()) {
    PrintUsage(stdout);
    return kExitOk;
  }
  const Command* c = FindCommand(words[0]);
  if (c == nullptr) return UsageError(absl::StrCat("unknown command '", words[0], "'"));
  PrintCommandHelp(*c);
  return kExitOk;
}

int Run(const Command& command, const Invocation& inv) {
  Output out;
  out.json = absl::GetFlag(FLAGS_json);
  JsonWriter writer(stdout);
  if (out.json) {
    out.w = &writer;
    writer.BeginObject();
    writer.Key("schema_version").Int(kSchemaVersion);
    writer.Key("command").String(command.name);
    writer.Key("files").BeginArray();
  }
  const bool ok = command.run(out, inv);
  if (out.json) {
    writer.EndArray();
    writer.Key("ok").Bool(ok);
    writer.EndObject();
    writer.Finish();
  }
  std::fflush(stdout);
  return ok ? kExitOk : kExitProblem;
}

int Main(int argc, char** argv) {
  // LSMBLOOM_SIMD pins the kernels, as in every tool (answers do not change).
  const absl::Status pinned = PinSimdTargetFromEnvironment();
  if (!pinned.ok()) return UsageError(std::string(pinned.message()));
  absl::StatusOr<Arguments> a = SplitArguments(argc, argv);
  if (!a.ok()) return UsageError(std::string(a.status().message()));
  if (a->help || (!a->positional.empty() && a->positional[0] == "help")) return Help(*a);
  if (a->positional.empty()) {
    PrintUsage(stderr);
    return kExitUsage;
  }
  const Command* command = FindCommand(a->positional[0]);
  if (command == nullptr) {
    return UsageError(absl::StrCat("unknown command '", a->positional[0],
                                   "'; commands: props, filter, verify, scan, get, help"));
  }
  const std::vector<std::string> args(a->positional.begin() + 1, a->positional.end());
  if (args.size() < command->min_args || args.size() > command->max_args) {
    return UsageError(absl::StrCat(
        command->name, ": ", args.size() < command->min_args ? "missing" : "too many",
        " arguments; usage: sst_inspect ", command->name, " [flags] ", command->args));
  }
  absl::Status s = ApplyFlags(*command, a->flags);
  if (!s.ok()) return UsageError(std::string(s.message()));
  absl::StatusOr<Invocation> inv = Prepare(command->name, args);
  if (!inv.ok()) return UsageError(std::string(inv.status().message()));
  return Run(*command, *inv);
}

}  // namespace
}  // namespace inspect
}  // namespace lsmbloom

int main(int argc, char** argv) { return lsmbloom::inspect::Main(argc, argv); }
