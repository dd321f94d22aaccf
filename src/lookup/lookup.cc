#include "lsmbloom/lookup.h"

#include <algorithm>
#include <map>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/blocked_bloom.h"
#include "lsmbloom/filter_policy.h"
#include "src/lookup/version.h"
#include "src/table/table_lookup.h"

namespace lsmbloom {

using internal::Bump;
using internal::TableLookup;

namespace {

// Bytes [from, from + 8) of `s` as a big-endian number, zero-padded. For
// strings that share their first `from` bytes: when two such numbers differ
// they order their strings; when equal, compare in full.
uint64_t Prefix8(std::string_view s, size_t from) {
  uint64_t p = 0;
  const size_t end = s.size() < from + 8 ? s.size() : from + 8;
  for (size_t i = from; i < end; ++i) {
    p |= uint64_t{static_cast<uint8_t>(s[i])} << (56 - 8 * (i - from));
  }
  return p;
}

size_t CommonPrefixLength(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// a < b for a key and a bound, by prefix first.
bool Less(uint64_t a_prefix, std::string_view a, uint64_t b_prefix, std::string_view b) {
  return a_prefix != b_prefix ? a_prefix < b_prefix : a < b;
}


}  // namespace

bool TableSet::InRange(const FileMeta& m, uint64_t key_prefix, std::string_view key) {
  return !Less(key_prefix, key, m.smallest_prefix, m.smallest) &&
         !Less(m.largest_prefix, m.largest, key_prefix, key);
}

const TableSet::FileMeta* TableSet::FindFile(const Version& v, int level,
                                             uint64_t key_prefix, std::string_view key) {
  const std::vector<uint64_t>& largest = v.largest_prefix[level];
  const std::vector<FileMeta>& meta = v.meta[level];
  // First file whose largest key is >= key.
  size_t lo = std::lower_bound(largest.begin(), largest.end(), key_prefix) - largest.begin();
  while (lo < meta.size() && meta[lo].largest_prefix == key_prefix &&
         meta[lo].largest < key) {
    ++lo;  // Equal prefixes: the full keys decide.
  }
  if (lo == meta.size()) return nullptr;
  const FileMeta& m = meta[lo];
  return Less(key_prefix, key, m.smallest_prefix, m.smallest) ? nullptr : &m;
}

void TableSet::BuildMeta(Version* v) {
  bool first = true;
  for (const auto& level : v->levels) {
    for (const TableFile& f : level) {
      for (std::string_view bound :
           {f.table->smallest_user_key(), f.table->largest_user_key()}) {
        if (first) {
          v->common_prefix.assign(bound.data(), bound.size());
          first = false;
        } else {
          v->common_prefix.resize(CommonPrefixLength(v->common_prefix, bound));
        }
      }
    }
  }
  const size_t from = v->common_prefix.size();
  for (int level = 0; level < kNumLevels; ++level) {
    v->meta[level].clear();
    v->largest_prefix[level].clear();
    for (const TableFile& f : v->levels[level]) {
      const Table& t = *f.table;
      const FilterReader* reader = t.whole_key_filter();
      const HashSpec* spec = TableLookup::FilterHashSpec(t);
      const BlockedBloomView* view =
          reader != nullptr && spec != nullptr && *spec == HashSpec()
              ? reader->blocked_view()
              : nullptr;
      v->meta[level].push_back(FileMeta{Prefix8(t.smallest_user_key(), from),
                                        Prefix8(t.largest_user_key(), from),
                                        t.smallest_user_key(), t.largest_user_key(),
                                        view, &f});
      v->largest_prefix[level].push_back(Prefix8(t.largest_user_key(), from));
    }
  }
}

TableSet::TableSet(const LookupOptions& options)
    : options_(options), current_(std::make_shared<Version>()) {}

TableSet::~TableSet() = default;

std::shared_ptr<const TableSet::Version> TableSet::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

absl::Status TableSet::Apply(const VersionEdit& edit) {
  std::lock_guard<std::mutex> lock(mu_);
  auto next = std::make_shared<Version>(*current_);
  for (const VersionEdit::Removed& r : edit.removed) {
    if (r.level < 0 || r.level >= kNumLevels) {
      return absl::InvalidArgumentError(absl::StrCat("level ", r.level, " out of range"));
    }
    auto& files = next->levels[r.level];
    auto it = std::find_if(files.begin(), files.end(), [&](const TableFile& f) {
      return f.file_number == r.file_number;
    });
    if (it == files.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "file ", r.file_number, " is not in level ", r.level));
    }
    files.erase(it);
  }
  for (const TableFile& f : edit.added) {
    if (f.level < 0 || f.level >= kNumLevels || f.table == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "file ", f.file_number, ": bad level ", f.level, " or no table"));
    }
    for (const auto& level : next->levels) {
      for (const TableFile& existing : level) {
        if (existing.file_number == f.file_number) {
          return absl::InvalidArgumentError(
              absl::StrCat("file number ", f.file_number, " is already in the set"));
        }
      }
    }
    next->levels[f.level].push_back(f);
  }
  auto& l0 = next->levels[0];
  std::sort(l0.begin(), l0.end(), [](const TableFile& a, const TableFile& b) {
    return a.file_number > b.file_number;
  });
  next->last_nonempty_level = -1;
  for (int level = 0; level < kNumLevels; ++level) {
    auto& files = next->levels[level];
    if (!files.empty()) next->last_nonempty_level = level;
    if (level == 0) continue;
    std::sort(files.begin(), files.end(), [](const TableFile& a, const TableFile& b) {
      return a.table->smallest_user_key() < b.table->smallest_user_key();
    });
    for (size_t i = 1; i < files.size(); ++i) {
      if (files[i].table->smallest_user_key() <= files[i - 1].table->largest_user_key()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "files ", files[i - 1].file_number, " and ", files[i].file_number,
            " overlap in level ", level));
      }
    }
  }
  BuildMeta(next.get());
  current_ = std::move(next);
  return absl::OkStatus();
}

bool TableSet::SearchFile(const TableFile& file, std::string_view key, uint64_t hash,
                          bool filter_allowed,
                          absl::StatusOr<LookupResult>* result) const {
  const Table& table = *file.table;
  LevelCounters& c = counters_[file.level];
  const HashSpec* spec = filter_allowed ? TableLookup::FilterHashSpec(table) : nullptr;
  bool consulted = false;
  if (spec != nullptr) {
    consulted = true;
    Bump(c.checked);
    // The key's hash was computed once for the default spec; a file written
    // with another seed needs its own.
    const uint64_t h = *spec == HashSpec() ? hash : KeyHash(key, *spec);
    if (!TableLookup::HashMayMatch(table, h)) {
      Bump(c.ruled_out);
      return false;
    }
    Bump(c.positive);
  }
  uint64_t reads = 0;
  *result = TableLookup::GetAfterFilter(table, key, &reads);
  Bump(c.data_block_reads, reads);
  if (!result->ok()) return true;  // An error ends the lookup: never guess.
  if ((*result)->kind == LookupResult::Kind::kNotFound) return false;
  if (consulted) Bump(c.true_positive);
  return true;
}

// A lookup's counts, added to the shared counters once at its end: an
// atomic add is a full barrier on x86, and a dozen of them in the middle of
// a lookup cost more than its filter probes.
struct TableSet::LocalCounts {
  uint32_t checked[kNumLevels] = {}, ruled_out[kNumLevels] = {},
           positive[kNumLevels] = {}, true_positive[kNumLevels] = {},
           reads[kNumLevels] = {}, range_skipped[kNumLevels] = {};
};

void TableSet::Flush(const LocalCounts& n, int last_level) const {
  if (!options_.count_stats) return;
  for (int level = 0; level < kNumLevels; ++level) {
    LevelCounters& c = counters_[level];
    if (n.checked[level] != 0) {
      Bump(c.checked, n.checked[level]);
      Bump(c.ruled_out, n.ruled_out[level]);
      Bump(c.positive, n.positive[level]);
    }
    if (n.true_positive[level] != 0) Bump(c.true_positive, n.true_positive[level]);
    if (n.reads[level] != 0) Bump(c.data_block_reads, n.reads[level]);
    // Range skips count for the levels the search reached.
    if (level <= last_level && n.range_skipped[level] != 0) {
      Bump(c.range_skipped, n.range_skipped[level]);
    }
  }
}

struct TableSet::Candidates : absl::InlinedVector<const FileMeta*, 16> {};

bool TableSet::FindCandidates(const Version& v, std::string_view key, LocalCounts* counts,
                              Candidates* candidates) {
  const std::string& common = v.common_prefix;
  if (key.substr(0, common.size()) != common) {
    // Outside every file's range: every level-0 file and one file of
    // each other level passed over.
    counts->range_skipped[0] = static_cast<uint32_t>(v.meta[0].size());
    for (int level = 1; level < kNumLevels; ++level) {
      counts->range_skipped[level] = v.meta[level].empty() ? 0 : 1;
    }
    return false;
  }
  const uint64_t key_prefix = Prefix8(key, common.size());
  for (const FileMeta& m : v.meta[0]) {
    if (InRange(m, key_prefix, key)) {
      candidates->push_back(&m);
    } else {
      ++counts->range_skipped[0];
    }
  }
  for (int level = 1; level < kNumLevels; ++level) {
    if (v.meta[level].empty()) continue;
    if (const FileMeta* m = FindFile(v, level, key_prefix, key)) {
      candidates->push_back(m);
    } else {
      ++counts->range_skipped[level];
    }
  }
  return true;
}

absl::StatusOr<LookupResult> TableSet::SearchCandidates(const Version& v,
                                                        const Candidates& candidates,
                                                        std::string_view key,
                                                        LocalCounts* counts) const {
  // Every candidate's filter block in flight at once, probed in one call.
  const uint64_t hash = KeyHash(key);
  absl::InlinedVector<const BlockedBloomView*, 16> views;
  for (const FileMeta* m : candidates) {
    if (m->filter != nullptr && FilterAllowed(v, m->file->level)) {
      views.push_back(m->filter);
    }
  }
  absl::InlinedVector<bool, 16> answers(views.size());
  if (!views.empty()) ProbeEach(views.data(), views.size(), hash, answers.data());

  // The survivors, newest first, until one answers.
  absl::StatusOr<LookupResult> result = LookupResult();
  size_t probed = 0;
  for (const FileMeta* m : candidates) {
    const TableFile& f = *m->file;
    const bool allowed = FilterAllowed(v, f.level);
    if (m->filter == nullptr || !allowed) {
      if (SearchFile(f, key, hash, allowed, &result)) {
        Flush(*counts, f.level);
        return result;
      }
      continue;
    }
    ++counts->checked[f.level];
    if (!answers[probed++]) {
      ++counts->ruled_out[f.level];
      continue;
    }
    ++counts->positive[f.level];
    uint64_t reads = 0;
    result = TableLookup::GetAfterFilter(*f.table, key, &reads);
    counts->reads[f.level] += static_cast<uint32_t>(reads);
    // An error ends the lookup: never guess.
    if (!result.ok() || result->kind != LookupResult::Kind::kNotFound) {
      if (result.ok()) ++counts->true_positive[f.level];
      Flush(*counts, f.level);
      return result;
    }
  }
  Flush(*counts, kNumLevels - 1);
  return LookupResult();
}

absl::StatusOr<LookupResult> TableSet::Get(std::string_view key) const {
  const std::shared_ptr<const Version> v = current();
  if (options_.count_stats) Bump(lookups_);
  LocalCounts counts;
  // The candidate files, newest first, from the compact view alone; then
  // their filters, all at once; then the survivors' data.
  Candidates candidates;
  if (!FindCandidates(*v, key, &counts, &candidates)) {
    Flush(counts, kNumLevels - 1);
    return LookupResult();
  }
  return SearchCandidates(*v, candidates, key, &counts);
}

bool TableSet::FilterAllowed(const Version& v, int level) const {
  return options_.use_filters &&
         !(options_.skip_last_level_filters && level == v.last_nonempty_level);
}

LookupStats TableSet::stats() const {
  const std::shared_ptr<const Version> v = current();
  LookupStats s;
  s.lookups = lookups_.load(std::memory_order_relaxed);
  for (int level = 0; level < kNumLevels; ++level) {
    LevelStats& l = s.levels[level];
    const LevelCounters& c = counters_[level];
    l.filters_checked = c.checked.load(std::memory_order_relaxed);
    l.filters_ruled_out = c.ruled_out.load(std::memory_order_relaxed);
    l.filters_positive = c.positive.load(std::memory_order_relaxed);
    l.filters_true_positive = c.true_positive.load(std::memory_order_relaxed);
    l.data_block_reads = c.data_block_reads.load(std::memory_order_relaxed);
    l.files_range_skipped = c.range_skipped.load(std::memory_order_relaxed);
    double fpr_sum = 0, filter_bits = 0;
    uint64_t filtered_entries = 0;
    for (const TableFile& f : v->levels[level]) {
      ++l.files;
      l.entries += f.table->num_entries();
      l.filter_bytes += f.table->filter_memory();
      if (const FilterReader* r = f.table->whole_key_filter()) {
        fpr_sum += r->predicted_fpr();
        filter_bits += r->bits_per_key() * static_cast<double>(f.table->num_entries());
        filtered_entries += f.table->num_entries();
      }
    }
    l.predicted_fpr = l.files == 0 ? 0 : fpr_sum / l.files;
    l.bits_per_key = filtered_entries == 0 ? 0 : filter_bits / filtered_entries;
    s.total_filter_bytes += l.filter_bytes;
  }
  return s;
}

void TableSet::ResetStats() {
  lookups_.store(0);
  for (LevelCounters& c : counters_) {
    c.checked.store(0);
    c.ruled_out.store(0);
    c.positive.store(0);
    c.true_positive.store(0);
    c.data_block_reads.store(0);
    c.range_skipped.store(0);
  }
}

std::vector<std::vector<TableFile>> TableSet::files() const {
  const std::shared_ptr<const Version> v = current();
  return std::vector<std::vector<TableFile>>(v->levels.begin(), v->levels.end());
}

}  // namespace lsmbloom
