// sst_inspect filter: a filter's health against the table's own keys, and
// its false-positive rate measured on keys verified absent: generated keys
// outside the key range, keys inside it, and keys from a user's file.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/sst_inspect_analysis.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

struct FilterReport {
  std::optional<FilterHealth> health;      // Blocked Bloom filters only.
  std::optional<FilterKeyCheck> keys;      // Other filters that hash keys (Ribbon).
  std::optional<ProbeResult> outside;      // Unless --probes=0.
  std::optional<ProbeResult> inside;       // Unless --range-probes=0.
  std::optional<ProbeResult> from_file;    // With --keys-from.
  std::vector<FilterModuleCheck> modules;  // Modular filters only.
  std::string problem;                     // Why the command fails, or "".
};

std::string Problem(const FilterView& f, const FilterReport& r) {
  if (f.damaged()) return absl::StrCat("filter untrusted: ", f.status().message());
  for (const FilterModuleCheck& c : r.modules) {
    if (!c.status.ok()) {
      return absl::StrCat("filter module ", c.index, " is damaged (", c.status.message(),
                          "): lookups answer \"maybe\" for the keys it would rule out");
    }
  }
  if (r.keys.has_value() && r.keys->false_negatives > 0) {
    return absl::StrCat("the filter rules out ", r.keys->false_negatives,
                        " keys the table holds (false negatives)");
  }
  if (!r.health.has_value()) return "";
  const FilterHealth& h = *r.health;
  if (h.false_negatives > 0) {
    return absl::StrCat("the filter rules out ", h.false_negatives,
                        " keys the table holds (false negatives)");
  }
  const uint64_t header = f.blocked()->geometry().num_keys;
  if (h.keys_complete && h.distinct_hashes != header) {
    return absl::StrCat("the filter's header counts ", header, " keys; the table's keys hash to ",
                        h.distinct_hashes, " distinct values");
  }
  return "";
}

absl::StatusOr<FilterReport> Analyze(const Options& o, const InputFile& file,
                                     const InspectedTable& t,
                                     const std::vector<std::string>& user_keys) {
  FilterReport r;
  const FilterView& f = t.filter();
  const uint64_t entries = t.table().num_entries();
  r.modules = CheckFilterModules(t);
  if (f.blocked() != nullptr) {
    Progress progress(o.style.progress, "filter " + file.shown + ": keys", entries, "entries");
    absl::StatusOr<FilterHealth> h = AnalyzeBlockedFilter(t, &progress);
    if (!h.ok()) return h.status();
    r.health = *h;
  } else if (f.reader() != nullptr && f.reader()->hash_spec() != nullptr) {
    Progress progress(o.style.progress, "filter " + file.shown + ": keys", entries, "entries");
    absl::StatusOr<FilterKeyCheck> c = CheckFilterKeys(t, &progress);
    if (!c.ok()) return c.status();
    r.keys = *c;
  }
  if (f.reader() != nullptr) {
    auto measure = [&](const char* what, uint64_t n,
                       const std::function<std::string(uint64_t)>& key,
                       std::optional<ProbeResult>* out) -> absl::Status {
      if (n == 0) return absl::OkStatus();
      Progress progress(o.style.progress, absl::StrCat("filter ", file.shown, ": ", what), n,
                        "probes");
      absl::StatusOr<ProbeResult> p = MeasureFpr(t.table(), *f.reader(), n, key, &progress);
      if (!p.ok()) return p.status();
      *out = *p;
      return absl::OkStatus();
    };
    absl::Status s = measure("outside the range", o.probes, ProbeKey, &r.outside);
    absl::StatusOr<std::vector<std::string>> inside = InRangeKeys(t, o.range_probes);
    if (s.ok() && !inside.ok()) s = inside.status();
    if (s.ok()) {
      s = measure(
          "inside the range", inside->size(), [&](uint64_t i) { return (*inside)[i]; }, &r.inside);
    }
    if (s.ok() && !o.keys_from.empty()) {
      s = measure(
          "keys from file", user_keys.size(), [&](uint64_t i) { return user_keys[i]; },
          &r.from_file);
    }
    if (!s.ok()) return s;
  }
  r.problem = Problem(f, r);
  return r;
}

void PrintHistogram(const std::vector<LoadBin>& bins) {
  uint64_t most = 1;
  for (const LoadBin& b : bins) most = std::max(most, b.blocks);
  for (const LoadBin& b : bins) {
    const std::string range =
        b.from == b.to ? absl::StrCat(b.from) : absl::StrCat(b.from, "-", b.to);
    const size_t bar = static_cast<size_t>((b.blocks * 40 + most - 1) / most);
    std::printf("%22s%9s | %-40s %8llu  (Poisson %.1f)\n", "", range.c_str(),
                std::string(bar, '#').c_str(), static_cast<unsigned long long>(b.blocks),
                b.expected);
  }
}

void PrintHealth(const FilterView& f, const FilterHealth& h) {
  Row("bits set", absl::StrCat(h.bits_set, " of ", h.bits_total, " (fill ", Percent(h.fill), ")"));
  const uint64_t header_keys = f.blocked()->geometry().num_keys;
  std::string keys =
      absl::StrCat(h.distinct_hashes, " distinct, recomputed from ", h.entries, " entries");
  if (!h.keys_complete) {
    absl::StrAppend(&keys, " (whole keys only: prefixes of ", f.prefix_extractor(),
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
                      h.load_min, h.load_mean, h.load_max, h.load_stddev, std::sqrt(h.load_mean)));
  PrintHistogram(h.histogram);
}

void PrintKeyCheck(const FilterView& f, const FilterKeyCheck& c) {
  std::string keys =
      absl::StrCat(c.distinct_hashes, " distinct, recomputed from ", c.entries, " entries");
  if (!c.keys_complete) {
    absl::StrAppend(&keys, " (whole keys only: prefixes of ", f.prefix_extractor(),
                    " cannot be recomputed by this tool)");
  }
  absl::StrAppend(&keys, "; ", c.false_negatives, " false negatives");
  Row("keys", keys);
}

// One line a module: where it is, its geometry and model FPR, the FPR of
// the modules up to it, and whether its bytes verify.
void PrintModules(const std::vector<FilterModuleCheck>& modules) {
  Row("modules", absl::StrCat(modules.size(), " in the filter block, each checked in the file; ",
                              "the table holds module 0, lookups read the others on demand"));
  Row("", absl::StrFormat("%3s %10s %10s %9s %3s %10s %10s  %s", "#", "offset", "size", "bits/key",
                          "k", "fpr", "fpr 0..m", "checksum"));
  for (const FilterModuleCheck& c : modules) {
    const std::string verdict =
        c.status.ok() ? "verified" : absl::StrCat("DAMAGED, not used: ", c.status.message());
    Row("", absl::StrFormat("%3d %10u %10u %9.3f %3d %10s %10s  %s", c.index, c.info.offset,
                            c.info.size, c.bits_per_key, c.info.num_probes,
                            Percent(c.info.predicted_fpr), Percent(c.cumulative_fpr), verdict));
  }
  Row("", "offsets from the filter block's start; fpr 0..m: the modules up to m that verify");
}

void PrintMeasured(const char* what, const ProbeResult& p) {
  Row("", absl::StrFormat("%s %s (%u of %u probes), 95%% interval %s .. %s", what, Percent(p.fpr),
                          p.false_positives, p.absent, Percent(p.low), Percent(p.high)));
}

void PrintText(const InputFile& file, const InspectedTable& t, const FilterReport& r) {
  const FilterView& f = t.filter();
  std::printf("%s\n", file.shown.c_str());
  if (f.policy().empty()) {
    Row("filter", "none: the table has no filter");
    return;
  }
  Row("filter", absl::StrCat(f.policy(), ", ", Bytes(f.size()), ", ", FilterContents(f)));
  if (f.reader() == nullptr) {
    Row("status", FilterNotUsed(f));
    return;
  }
  Row("kind", FilterKind(f));
  Row("parameters", f.reader()->Describe());
  Row("bits/key", absl::StrFormat("%.3f", f.reader()->bits_per_key()));
  if (!r.modules.empty()) PrintModules(r.modules);
  if (r.health.has_value()) {
    PrintHealth(f, *r.health);
  } else {
    if (r.keys.has_value()) PrintKeyCheck(f, *r.keys);
    Row("bits, loads", "not shown: only for blocked Bloom filters");
  }
  std::string model_note;
  if (FilterKind(f) == "ribbon") model_note = " (Ribbon model, dependent keys included)";
  if (!r.modules.empty()) model_note = " (module 0: what the table holds, and the probes below)";
  Row("fpr", absl::StrCat("model ", Percent(f.reader()->predicted_fpr()), " at this geometry",
                          model_note));
  if (r.health.has_value()) {
    Row("", absl::StrCat("from fill ", Percent(r.health->fpr_from_fill),
                         " (mean over blocks of fill^k)"));
  }
  if (r.outside.has_value()) PrintMeasured("measured outside the key range", *r.outside);
  if (r.inside.has_value()) PrintMeasured("measured inside the key range", *r.inside);
  if (r.from_file.has_value()) PrintMeasured("measured on the keys file", *r.from_file);
  std::vector<std::string> probes;
  if (r.outside.has_value()) {
    probes.push_back(absl::StrCat(r.outside->generated,
                                  " generated \"sst_inspect.probe.<16 hex digits>\" (",
                                  r.outside->excluded, " present, excluded)"));
  }
  if (r.inside.has_value()) {
    probes.push_back(absl::StrCat(r.inside->generated,
                                  " in range: a table key, a 0 byte, 8 hex digits (",
                                  r.inside->excluded, " present, excluded)"));
  }
  if (r.from_file.has_value()) {
    probes.push_back(absl::StrCat(r.from_file->generated, " from the keys file (",
                                  r.from_file->excluded, " present, excluded)"));
  }
  for (size_t i = 0; i < probes.size(); ++i) Row(i == 0 ? "probes" : "", probes[i]);
  if (!probes.empty()) {
    Row("", "each verified absent by an unfiltered lookup (index and data block)");
  }
}

Json ProbeJson(const std::optional<ProbeResult>& p) {
  if (!p.has_value()) return nullptr;
  return Json{{"fpr", p->fpr},          {"low", p->low},
              {"high", p->high},        {"false_positives", p->false_positives},
              {"absent", p->absent},    {"generated", p->generated},
              {"excluded", p->excluded}};
}

Json ReportJson(const InputFile& file, const InspectedTable& t, const FilterReport& r) {
  Json j;
  j["file"] = EscapeBytes(file.shown);
  j["filter"] = FilterJson(t.filter());
  j["health"] = nullptr;
  if (r.health.has_value()) {
    const FilterHealth& h = *r.health;
    Json bins = Json::array();
    for (const LoadBin& b : h.histogram) {
      bins.push_back(
          Json{{"from", b.from}, {"to", b.to}, {"blocks", b.blocks}, {"poisson", b.expected}});
    }
    j["health"] = Json{{"bits_set", h.bits_set},
                       {"bits_total", h.bits_total},
                       {"fill", h.fill},
                       {"entries", h.entries},
                       {"distinct_hashes", h.distinct_hashes},
                       {"keys_complete", h.keys_complete},
                       {"false_negatives", h.false_negatives},
                       {"block_load", Json{{"min", h.load_min},
                                           {"mean", h.load_mean},
                                           {"max", h.load_max},
                                           {"stddev", h.load_stddev},
                                           {"histogram", bins}}}};
  }
  j["keys"] = nullptr;
  if (r.keys.has_value()) {
    j["keys"] = Json{{"entries", r.keys->entries},
                     {"distinct_hashes", r.keys->distinct_hashes},
                     {"keys_complete", r.keys->keys_complete},
                     {"false_negatives", r.keys->false_negatives}};
  }
  j["modules"] = nullptr;
  if (!r.modules.empty()) {
    j["modules"] = Json::array();
    for (const FilterModuleCheck& c : r.modules) {
      j["modules"].push_back(
          Json{{"index", c.index},
               {"offset", c.info.offset},
               {"file_offset", c.file_offset},
               {"size", c.info.size},
               {"num_blocks", c.info.num_blocks},
               {"num_probes", c.info.num_probes},
               {"bits_per_key", c.bits_per_key},
               {"predicted_fpr", c.info.predicted_fpr},
               {"cumulative_fpr", c.cumulative_fpr},
               {"verified", c.status.ok()},
               {"status", c.status.ok() ? "OK" : EscapeBytes(StatusText(c.status))}});
    }
  }
  j["fpr"] = nullptr;
  if (t.filter().reader() != nullptr) {
    j["fpr"] =
        Json{{"model", t.filter().reader()->predicted_fpr()},
             {"from_fill", r.health.has_value() ? Json(r.health->fpr_from_fill) : Json(nullptr)},
             {"measured", ProbeJson(r.outside)},
             {"in_range", ProbeJson(r.inside)},
             {"keys_file", ProbeJson(r.from_file)}};
  }
  j["problem"] = EscapeBytes(r.problem);
  return j;
}

}  // namespace

int RunFilter(const Options& o, const std::vector<InputFile>& files, Json* doc) {
  std::vector<std::string> user_keys;
  if (!o.keys_from.empty()) {
    absl::StatusOr<std::vector<std::string>> keys = ReadKeyFile(o.style, o.keys_from);
    if (!keys.ok()) {
      std::fprintf(stderr, "sst_inspect: %s\n", std::string(keys.status().message()).c_str());
      return keys.status().code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitProblem;
    }
    user_keys = std::move(*keys);
  }
  uint64_t checked = 0, failed = 0, filter_bytes = 0, filter_keys = 0, fp = 0, absent = 0;
  const uint64_t unreadable = ForEachTable(
      o, "filter", files, doc,
      [&](const InputFile& file, const InspectedTable& t) {
        return Analyze(o, file, t, user_keys);
      },
      [&](const InputFile& file, const InspectedTable& t, const FilterReport& r) {
        checked++;
        filter_bytes += t.filter().size();
        filter_keys += t.filter().keys_added();
        for (const auto* p : {&r.outside, &r.inside, &r.from_file}) {
          if (p->has_value()) {
            fp += (*p)->false_positives;
            absent += (*p)->absent;
          }
        }
        if (o.style.json) {
          (*doc)["files"].push_back(ReportJson(file, t, r));
        } else {
          PrintText(file, t, r);
        }
        if (!r.problem.empty()) {
          Complain(file.shown, r.problem);
          failed++;
        }
      });
  if (files.size() > 1) {
    const double rate = absent == 0 ? 0 : static_cast<double>(fp) / absent;
    if (o.style.json) {
      (*doc)["summary"] = Json{{"files", files.size()},      {"checked", checked},
                               {"failed", failed},           {"filter_bytes", filter_bytes},
                               {"filter_keys", filter_keys}, {"false_positives", fp},
                               {"absent", absent},           {"measured_fpr", rate}};
    } else {
      std::printf("\ntotal: %llu of %zu files checked, %llu with a problem\n",
                  static_cast<unsigned long long>(checked), files.size(),
                  static_cast<unsigned long long>(failed));
      Row("filters", absl::StrCat(Bytes(filter_bytes), " for ", filter_keys, " keys added"));
      Row("measured fpr",
          absl::StrCat(Percent(rate), " (", fp, " of ", absent, " absent probes, all kinds)"));
    }
  }
  return unreadable + failed == 0 ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
