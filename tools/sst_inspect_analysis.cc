#include "tools/sst_inspect_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/io/file.h"
#include "src/util/random.h"

namespace lsmbloom {
namespace inspect {

namespace {
// Messages quote keys escaped, whatever the output style.
constexpr Style kText{};
}  // namespace

namespace {

void MeasureBits(const FilterView& f, FilterHealth* h) {
  const BlockedBloomGeometry& g = f.blocked()->geometry();
  double fpr_sum = 0;
  for (uint64_t b = 0; b < g.num_blocks; ++b) {
    const uint64_t set = static_cast<uint64_t>(f.BitsSetInBlock(b));
    h->bits_set += set;
    fpr_sum += FprFromFill(static_cast<double>(set) / kBlockBits, g.num_probes);
  }
  h->bits_total = g.num_blocks * kBlockBits;
  h->fill = h->bits_total == 0 ? 0 : static_cast<double>(h->bits_set) / h->bits_total;
  h->fpr_from_fill = g.num_blocks == 0 ? 0 : fpr_sum / g.num_blocks;
  h->fpr_model = g.predicted_fpr();
}

double PoissonPmf(uint64_t k, double mean) {
  if (mean <= 0) return k == 0 ? 1 : 0;
  return std::exp(k * std::log(mean) - mean - std::lgamma(k + 1.0));
}

// About a dozen bins over [min, max], one per load when the range is small.
std::vector<LoadBin> Histogram(const std::vector<uint64_t>& loads, uint64_t min, uint64_t max,
                               double mean) {
  const uint64_t span = max - min + 1;
  const uint64_t width = span <= 16 ? 1 : (span + 11) / 12;
  std::vector<LoadBin> bins;
  for (uint64_t from = min; from <= max; from += width) {
    LoadBin bin{from, std::min(max, from + width - 1), 0, 0};
    for (uint64_t k = bin.from; k <= bin.to; ++k) {
      bin.expected += PoissonPmf(k, mean) * loads.size();
    }
    bins.push_back(bin);
  }
  for (uint64_t load : loads) bins[(load - min) / width].blocks++;
  return bins;
}

void MeasureLoads(const std::vector<uint64_t>& loads, FilterHealth* h) {
  if (loads.empty()) return;
  h->load_min = *std::min_element(loads.begin(), loads.end());
  h->load_max = *std::max_element(loads.begin(), loads.end());
  double sum = 0, sum_sq = 0;
  for (uint64_t load : loads) {
    sum += load;
    sum_sq += static_cast<double>(load) * load;
  }
  h->load_mean = sum / loads.size();
  h->load_stddev = std::sqrt(std::max(0.0, sum_sq / loads.size() - h->load_mean * h->load_mean));
  h->histogram = Histogram(loads, h->load_min, h->load_max, h->load_mean);
}

// Every distinct hash of the keys the builder gave the filter, sorted.
absl::StatusOr<std::vector<uint64_t>> FilterKeyHashes(const InspectedTable& t, const HashSpec& spec,
                                                      Progress* progress, uint64_t* entries) {
  std::vector<uint64_t> hashes;
  FilterKeys replay(t);
  std::unique_ptr<TableIterator> it = t.table().NewIterator();
  *entries = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    progress->Update(++*entries);
    replay.Add(it->entry().user_key,
               [&](std::string_view key, bool) { hashes.push_back(KeyHash(key, spec)); });
  }
  if (!it->status().ok()) return it->status();
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  return hashes;
}

}  // namespace

absl::StatusOr<FilterHealth> AnalyzeBlockedFilter(const InspectedTable& t, Progress* progress) {
  const FilterView& f = t.filter();
  const BlockedBloomReader& reader = *f.blocked();
  const BlockedBloomGeometry& g = reader.geometry();
  FilterHealth h;
  MeasureBits(f, &h);
  absl::StatusOr<std::vector<uint64_t>> hashes = FilterKeyHashes(t, g.hash, progress, &h.entries);
  if (!hashes.ok()) return hashes.status();
  h.distinct_hashes = hashes->size();
  h.keys_complete = f.prefix_extractor().empty() || f.prefixes_reproducible();
  std::vector<uint64_t> loads(g.num_blocks, 0);
  for (uint64_t hash : *hashes) {
    if (g.num_blocks > 0) loads[f.BlockOfHash(hash)]++;
    if (!reader.MayMatchHash(hash)) h.false_negatives++;
  }
  MeasureLoads(loads, &h);
  return h;
}

absl::StatusOr<FilterKeyCheck> CheckFilterKeys(const InspectedTable& t, Progress* progress) {
  const FilterView& f = t.filter();
  const FilterReader& reader = *f.reader();
  FilterKeyCheck c;
  absl::StatusOr<std::vector<uint64_t>> hashes =
      FilterKeyHashes(t, *reader.hash_spec(), progress, &c.entries);
  if (!hashes.ok()) return hashes.status();
  c.distinct_hashes = hashes->size();
  c.keys_complete = f.prefix_extractor().empty() || f.prefixes_reproducible();
  for (uint64_t hash : *hashes) c.false_negatives += !reader.HashMayMatch(hash);
  return c;
}

// ---------------------------------------------------------------- probes

namespace {

// The 95% Wilson score interval of `hits` successes in `n` trials.
void WilsonInterval(uint64_t hits, uint64_t n, double* low, double* high) {
  if (n == 0) {
    *low = *high = 0;
    return;
  }
  const double z = 1.96, p = static_cast<double>(hits) / n;
  const double denom = 1 + z * z / n;
  const double center = (p + z * z / (2.0 * n)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / denom;
  *low = std::max(0.0, center - half);
  *high = std::min(1.0, center + half);
}

}  // namespace

std::string ProbeKey(uint64_t i) {
  return absl::StrFormat("sst_inspect.probe.%016x", internal::SplitMix64(i));
}

absl::StatusOr<ProbeResult> MeasureFpr(const Table& table, const FilterReader& reader,
                                       uint64_t count,
                                       const std::function<std::string(uint64_t)>& key_of,
                                       Progress* progress) {
  ProbeResult r;
  r.generated = count;
  for (uint64_t i = 0; i < count; ++i) {
    progress->Update(i);
    const std::string key = key_of(i);
    // Unfiltered, so a filter that wrongly says "no" cannot vouch for absence.
    absl::StatusOr<LookupResult> found = GetUnfiltered(table, key);
    if (!found.ok()) return found.status();
    if (found->kind != LookupResult::Kind::kNotFound) {
      r.excluded++;
      continue;
    }
    r.absent++;
    if (reader.KeyMayMatch(key)) r.false_positives++;
  }
  r.fpr = r.absent == 0 ? 0 : static_cast<double>(r.false_positives) / r.absent;
  WilsonInterval(r.false_positives, r.absent, &r.low, &r.high);
  return r;
}

absl::StatusOr<std::vector<std::string>> InRangeKeys(const InspectedTable& t, uint64_t count) {
  std::vector<std::string> keys;
  const uint64_t entries = t.table().num_entries();
  if (count == 0 || entries == 0) return keys;
  const std::string_view largest = t.table().largest_user_key();
  // Every step-th entry's key gets count / sampled suffixes.
  const uint64_t sampled = std::min(count, entries);
  const uint64_t step = entries / sampled;
  std::unique_ptr<TableIterator> it = t.table().NewIterator();
  uint64_t i = 0;
  for (it->SeekToFirst(); it->Valid() && keys.size() < count; it->Next(), ++i) {
    if (i % step != 0) continue;
    const std::string_view user_key = it->entry().user_key;
    for (uint64_t j = 0; j < (count + sampled - 1) / sampled && keys.size() < count; ++j) {
      std::string key(user_key);
      key.push_back('\0');
      absl::StrAppendFormat(&key, "%08x",
                            static_cast<uint32_t>(internal::SplitMix64(i * 1000003 + j)));
      if (key <= largest) keys.push_back(std::move(key));
    }
  }
  if (!it->status().ok()) return it->status();
  return keys;
}

absl::StatusOr<std::vector<std::string>> ReadKeyFile(const Style& style, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the keys file"));
  std::vector<std::string> keys;
  std::string line;
  for (uint64_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    absl::StatusOr<std::string> key = ParseBytes(style, line);
    if (!key.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", n, ": ", key.status().message()));
    }
    keys.push_back(std::move(*key));
  }
  return keys;
}

// ---------------------------------------------------------------- verify

namespace {

class Verifier {
 public:
  Verifier(const InspectedTable& t, VerifyReport* report)
      : t_(t), filter_(t.filter()), report_(report), replay_(t) {}

  void CheckFilterStatus();
  void CheckDataBlocks(Progress* progress);
  void ReadEntries(Progress* progress);
  void CheckProperties();
  void CheckFilterKeyCount();

 private:
  void AddProblem(std::string check, std::string message) {
    if (report_->problems.size() < VerifyReport::kMaxListed) {
      report_->problems.push_back(Problem{std::move(check), std::move(message)});
    }
    report_->problem_count++;
  }
  bool CheckOrder(const TableEntry& e);
  void CheckLookup(const TableEntry& e);
  void CheckFilter(std::string_view key, bool is_prefix);

  const InspectedTable& t_;
  const FilterView& filter_;
  VerifyReport* report_;
  FilterKeys replay_;
  bool read_all_ = false;
  std::string prev_key_, first_key_;
  uint64_t prev_tag_ = 0;
  uint64_t filter_keys_ = 0;      // Keys and prefixes the builder was given.
  std::vector<uint64_t> hashes_;  // Of the filter keys, for blocked filters.
};

void Verifier::CheckFilterStatus() {
  const absl::Status& s = filter_.status();
  report_->filter_used = filter_.reader() != nullptr;
  if (report_->filter_used && !filter_.prefix_extractor().empty() &&
      !filter_.prefixes_reproducible()) {
    report_->warnings.push_back(absl::StrCat("prefixes not checked: this tool cannot ",
                                             "recompute those of ", filter_.prefix_extractor()));
  }
  if (s.ok() || s.code() == absl::StatusCode::kNotFound) return;
  if (filter_.damaged()) {
    AddProblem("filter", absl::StrCat("filter untrusted, so lookups go unfiltered: ", s.message()));
  } else {
    report_->warnings.push_back(
        absl::StrCat("filter not checked: this build cannot read it: ", s.message()));
  }
}

bool Verifier::CheckOrder(const TableEntry& e) {
  const uint64_t tag = (e.sequence << 8) | static_cast<uint8_t>(e.type);
  const bool first = report_->entries == 0;
  const bool new_key = first || e.user_key != prev_key_;
  if (!first) {
    const int c = std::string_view(prev_key_).compare(e.user_key);
    if (c > 0 || (c == 0 && tag >= prev_tag_)) {
      AddProblem("order", absl::StrCat("entry ", report_->entries, " ", Quoted(kText, e.user_key),
                                       " @", e.sequence, " is not after ", Quoted(kText, prev_key_),
                                       " @", prev_tag_ >> 8));
    }
  }
  prev_tag_ = tag;
  if (new_key) prev_key_.assign(e.user_key.data(), e.user_key.size());
  return new_key;
}

void Verifier::CheckLookup(const TableEntry& e) {
  absl::StatusOr<LookupResult> got = GetUnfiltered(t_.table(), e.user_key);
  const LookupResult::Kind want =
      e.type == EntryType::kValue ? LookupResult::Kind::kFound : LookupResult::Kind::kDeleted;
  std::string wrong;
  if (!got.ok()) {
    wrong = std::string(got.status().message());
  } else if (got->kind != want || got->sequence != e.sequence ||
             (want == LookupResult::Kind::kFound && got->value != e.value)) {
    wrong = got->kind == LookupResult::Kind::kNotFound
                ? "not found"
                : absl::StrCat("a different entry (@", got->sequence, ")");
  }
  if (wrong.empty()) {
    report_->lookups_ok++;
    return;
  }
  AddProblem("lookup", absl::StrCat("lookup of ", Quoted(kText, e.user_key), " (newest entry @",
                                    e.sequence, ") gave ", wrong));
}

void Verifier::CheckFilter(std::string_view key, bool is_prefix) {
  filter_keys_++;
  if (filter_.blocked() != nullptr) {
    hashes_.push_back(KeyHash(key, filter_.blocked()->geometry().hash));
  }
  if (!report_->filter_used) return;
  (is_prefix ? report_->filter_prefixes_checked : report_->filter_keys_checked)++;
  if (filter_.reader()->KeyMayMatch(key)) return;
  report_->false_negative_count++;
  if (report_->false_negatives.size() >= VerifyReport::kMaxListed) return;
  FalseNegative fn{std::string(key), is_prefix, -1};
  if (filter_.blocked() != nullptr) {
    fn.filter_block = static_cast<int64_t>(filter_.BlockOfHash(hashes_.back()));
  }
  report_->false_negatives.push_back(std::move(fn));
}

void Verifier::CheckDataBlocks(Progress* progress) {
  absl::StatusOr<std::vector<BlockLocation>> blocks = DataBlockLocations(t_.table());
  if (!blocks.ok()) {
    AddProblem("index", std::string(blocks.status().message()));
    return;
  }
  for (size_t i = 0; i < blocks->size(); ++i) {
    const BlockLocation& b = (*blocks)[i];
    const absl::Status s = CheckDataBlock(t_.table(), b);
    report_->data_blocks_checked++;
    progress->Update(report_->data_blocks_checked);
    if (s.ok()) continue;
    report_->damaged_data_blocks++;
    // The message names the block's kind, offset and size, and says
    // "misplaced" for an intact block written for another offset.
    const std::string message(s.message());
    constexpr char kPrefix[] = "data block ";
    AddProblem("checksum", absl::StartsWith(message, kPrefix)
                               ? absl::StrCat(kPrefix, i, " ", message.substr(sizeof(kPrefix) - 1))
                               : absl::StrCat(kPrefix, i, ": ", message));
  }
}

void Verifier::ReadEntries(Progress* progress) {
  std::unique_ptr<TableIterator> it = t_.table().NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const TableEntry e = it->entry();
    const bool new_key = CheckOrder(e);
    if (report_->entries == 0) first_key_ = prev_key_;
    report_->entries++;
    progress->Update(report_->entries);
    if (e.type == EntryType::kDeletion) report_->deletions++;
    if (!new_key) continue;
    report_->keys++;
    CheckLookup(e);
    replay_.Add(e.user_key,
                [this](std::string_view key, bool is_prefix) { CheckFilter(key, is_prefix); });
  }
  if (!it->status().ok()) {
    // The block pass has counted the damaged block as a problem; say what
    // that left unchecked, as a warning.
    report_->warnings.push_back(absl::StrCat("entries past the first damaged data block (after ",
                                             report_->entries, " good entries) were not checked"));
    if (report_->damaged_data_blocks == 0) {  // Only the entry pass saw it.
      AddProblem("checksum", std::string(it->status().message()));
    }
    return;
  }
  read_all_ = true;
  report_->read_all = true;
  if (report_->false_negative_count > 0) {
    AddProblem("filter", absl::StrCat(report_->false_negative_count,
                                      " keys the table holds are ruled out by the filter "
                                      "(false negatives): the filter is corrupt or was not "
                                      "built from these keys"));
  }
}

void Verifier::CheckProperties() {
  if (!read_all_) return;  // Counts of a partial read mean nothing.
  const Table& table = t_.table();
  report_->data_blocks = t_.properties().num_data_blocks;
  auto expect = [&](const char* what, uint64_t recorded, uint64_t found) {
    if (recorded == found) return;
    AddProblem("properties", absl::StrCat("properties record ", recorded, " ", what,
                                          ", the table holds ", found));
  };
  expect("entries", table.num_entries(), report_->entries);
  expect("deletions", t_.properties().num_deletions, report_->deletions);
  const std::string last_key = prev_key_;
  if (report_->entries > 0 &&
      (table.smallest_user_key() != first_key_ || table.largest_user_key() != last_key)) {
    AddProblem("properties",
               absl::StrCat("properties record keys ", Quoted(kText, table.smallest_user_key()),
                            " .. ", Quoted(kText, table.largest_user_key()), ", the table holds ",
                            Quoted(kText, first_key_), " .. ", Quoted(kText, last_key)));
  }
}

void Verifier::CheckFilterKeyCount() {
  if (!read_all_ || filter_.policy().empty()) return;
  if (!filter_.prefix_extractor().empty() && !filter_.prefixes_reproducible()) return;
  if (filter_.keys_added() != filter_keys_) {
    AddProblem("properties", absl::StrCat("properties record ", filter_.keys_added(),
                                          " keys added to the filter, the table's "
                                          "entries give ",
                                          filter_keys_));
  }
  if (filter_.blocked() == nullptr) return;
  std::sort(hashes_.begin(), hashes_.end());
  hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
  const uint64_t recorded = filter_.blocked()->geometry().num_keys;
  if (recorded != hashes_.size()) {
    AddProblem("filter", absl::StrCat("the filter's header counts ", recorded,
                                      " keys; the table's keys hash to ", hashes_.size(),
                                      " distinct values"));
  }
}

}  // namespace

VerifyReport Verify(const InspectedTable& t, Progress* blocks, Progress* entries) {
  VerifyReport report;
  Verifier verifier(t, &report);
  verifier.CheckFilterStatus();
  verifier.CheckDataBlocks(blocks);
  verifier.ReadEntries(entries);
  verifier.CheckProperties();
  verifier.CheckFilterKeyCount();
  return report;
}

}  // namespace inspect
}  // namespace lsmbloom
