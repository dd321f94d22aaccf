#include "lsmbloom/lookup/lookup.h"

#include <algorithm>
#include <map>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"

namespace lsmbloom {

// An immutable snapshot of the files. Level 0 newest first; levels >= 1 by
// smallest key.
struct TableSet::Version {
  std::array<std::vector<TableFile>, kNumLevels> levels;
  int last_nonempty_level = -1;
  // What a lookup reads of each file, in the same order, side by side:
  // choosing candidates touches these arrays, not the tables.
  std::array<std::vector<FileMeta>, kNumLevels> meta;
  // Sorted levels: 8 bytes of each file's largest key (after the common
  // prefix), for the binary search; a full compare only when these are equal.
  std::array<std::vector<uint64_t>, kNumLevels> largest_prefix;
  // The longest prefix every file's bounds share ("user0000" of
  // "user000012345678"). A key without it is outside every file; with it,
  // the 8 bytes after it tell most keys and bounds apart.
  std::string common_prefix;
};

// One file as a lookup sees it.
struct TableSet::FileMeta {
  // The 8 bytes after the version's common prefix, big-endian, zero-padded.
  uint64_t smallest_prefix;
  uint64_t largest_prefix;
  std::string_view smallest, largest;
  // The file's blocked filter when the key's one hash serves it; null when
  // it has no filter or one that needs its own hash (SearchFile's path).
  const BlockedBloomView* filter;
  const TableFile* file;
};

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

void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
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
      const HashSpec* spec = t.filter_hash_spec();
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
  const HashSpec* spec = filter_allowed ? table.filter_hash_spec() : nullptr;
  bool consulted = false;
  if (spec != nullptr) {
    consulted = true;
    Bump(c.checked);
    // The key's hash was computed once for the default spec; a file written
    // with another seed needs its own.
    const uint64_t h = *spec == HashSpec() ? hash : KeyHash(key, *spec);
    if (!table.HashMayMatch(h)) {
      Bump(c.ruled_out);
      return false;
    }
    Bump(c.positive);
  }
  uint64_t reads = 0;
  *result = table.GetAfterFilter(key, consulted, &reads);
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

absl::StatusOr<LookupResult> TableSet::Get(std::string_view key) const {
  const std::shared_ptr<const Version> v = current();
  if (options_.count_stats) Bump(lookups_);
  LocalCounts counts;

  // 1. The candidate files, newest first, from the compact view alone.
  absl::InlinedVector<const FileMeta*, 16> candidates;
  const std::string& common = v->common_prefix;
  if (key.substr(0, common.size()) != common) {
    // Outside every file's range: every level-0 file and one file of
    // each other level passed over.
    counts.range_skipped[0] = static_cast<uint32_t>(v->meta[0].size());
    for (int level = 1; level < kNumLevels; ++level) {
      counts.range_skipped[level] = v->meta[level].empty() ? 0 : 1;
    }
    Flush(counts, kNumLevels - 1);
    return LookupResult();
  }
  const uint64_t key_prefix = Prefix8(key, common.size());
  for (const FileMeta& m : v->meta[0]) {
    if (InRange(m, key_prefix, key)) {
      candidates.push_back(&m);
    } else {
      ++counts.range_skipped[0];
    }
  }
  for (int level = 1; level < kNumLevels; ++level) {
    if (v->meta[level].empty()) continue;
    if (const FileMeta* m = FindFile(*v, level, key_prefix, key)) {
      candidates.push_back(m);
    } else {
      ++counts.range_skipped[level];
    }
  }

  // 2. Every candidate's filter block in flight at once, probed in one call.
  const uint64_t hash = KeyHash(key);
  absl::InlinedVector<const BlockedBloomView*, 16> views;
  for (const FileMeta* m : candidates) {
    if (m->filter != nullptr && FilterAllowed(*v, m->file->level)) {
      views.push_back(m->filter);
    }
  }
  absl::InlinedVector<bool, 16> answers(views.size());
  if (!views.empty()) ProbeEach(views.data(), views.size(), hash, answers.data());

  // 3. The survivors, newest first, until one answers.
  absl::StatusOr<LookupResult> result = LookupResult();
  size_t probed = 0;
  for (const FileMeta* m : candidates) {
    const TableFile& f = *m->file;
    const bool allowed = FilterAllowed(*v, f.level);
    if (m->filter == nullptr || !allowed) {
      if (SearchFile(f, key, hash, allowed, &result)) {
        Flush(counts, f.level);
        return result;
      }
      continue;
    }
    ++counts.checked[f.level];
    if (!answers[probed++]) {
      ++counts.ruled_out[f.level];
      continue;
    }
    ++counts.positive[f.level];
    uint64_t reads = 0;
    result = f.table->GetAfterFilter(key, true, &reads);
    counts.reads[f.level] += static_cast<uint32_t>(reads);
    // An error ends the lookup: never guess.
    if (!result.ok() || result->kind != LookupResult::Kind::kNotFound) {
      if (result.ok()) ++counts.true_positive[f.level];
      Flush(counts, f.level);
      return result;
    }
  }
  Flush(counts, kNumLevels - 1);
  return LookupResult();
}

bool TableSet::FilterAllowed(const Version& v, int level) const {
  return options_.use_filters &&
         !(options_.skip_last_level_filters && level == v.last_nonempty_level);
}

std::vector<absl::StatusOr<LookupResult>> TableSet::MultiGet(
    absl::Span<const std::string_view> keys) const {
  const std::shared_ptr<const Version> v = current();
  Bump(lookups_, keys.size());
  std::vector<absl::StatusOr<LookupResult>> results(keys.size(), LookupResult());
  std::vector<uint64_t> hashes(keys.size());
  KeyHashBatch(keys.data(), hashes.data(), keys.size());
  // Pending keys in key order: each file's keys are then one contiguous run,
  // found by binary search (level 0) or one merge walk (sorted levels).
  std::vector<uint32_t> pending(keys.size());
  for (uint32_t i = 0; i < keys.size(); ++i) pending[i] = i;
  std::sort(pending.begin(), pending.end(),
            [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });

  // Scratch reused per file.
  std::vector<uint32_t> batch;
  std::vector<uint64_t> batch_hashes;
  std::unique_ptr<bool[]> maybe(new bool[keys.size()]);

  // Probes `file` for the keys in `batch` together, then searches the
  // survivors. Keys that reach an answer are marked `done`.
  std::vector<char> done(keys.size(), 0);
  auto search_batch = [&](const TableFile& file, bool filter_allowed) {
    if (batch.empty()) return;
    const Table& table = *file.table;
    LevelCounters& c = counters_[file.level];
    const HashSpec* spec = filter_allowed ? table.filter_hash_spec() : nullptr;
    const bool batched = spec != nullptr && *spec == HashSpec();
    if (batched) {
      batch_hashes.resize(batch.size());
      for (size_t j = 0; j < batch.size(); ++j) batch_hashes[j] = hashes[batch[j]];
      table.HashesMayMatch(batch_hashes, absl::MakeSpan(maybe.get(), batch.size()));
      size_t positives = 0;
      for (size_t j = 0; j < batch.size(); ++j) positives += maybe[j];
      Bump(c.checked, batch.size());
      Bump(c.ruled_out, batch.size() - positives);
      Bump(c.positive, positives);
    }
    for (size_t j = 0; j < batch.size(); ++j) {
      const uint32_t i = batch[j];
      if (batched) {
        if (!maybe[j]) continue;
        uint64_t reads = 0;
        results[i] = table.GetAfterFilter(keys[i], true, &reads);
        Bump(c.data_block_reads, reads);
        if (results[i].ok() && results[i]->kind != LookupResult::Kind::kNotFound) {
          Bump(c.true_positive);
        }
        done[i] = !results[i].ok() || results[i]->kind != LookupResult::Kind::kNotFound;
      } else {
        done[i] = SearchFile(file, keys[i], hashes[i], filter_allowed, &results[i]);
      }
    }
  };

  auto key_less = [&](uint32_t i, std::string_view k) { return keys[i] < k; };
  auto less_key = [&](std::string_view k, uint32_t i) { return k < keys[i]; };
  for (int level = 0; level < kNumLevels && !pending.empty(); ++level) {
    const bool filter_allowed =
        options_.use_filters &&
        !(options_.skip_last_level_filters && level == v->last_nonempty_level);
    const auto& files = v->levels[level];
    if (level == 0) {
      for (const TableFile& f : files) {
        auto lo = std::lower_bound(pending.begin(), pending.end(),
                                   f.table->smallest_user_key(), key_less);
        auto hi = std::upper_bound(lo, pending.end(), f.table->largest_user_key(), less_key);
        batch.clear();
        for (auto it = lo; it != hi; ++it) {
          if (!done[*it]) batch.push_back(*it);
        }
        search_batch(f, filter_allowed);
      }
    } else {
      size_t f = 0;
      batch.clear();
      for (uint32_t i : pending) {
        while (f < files.size() && files[f].table->largest_user_key() < keys[i]) {
          search_batch(files[f], filter_allowed);  // The run for file f ended.
          batch.clear();
          ++f;
        }
        if (f == files.size()) break;
        if (keys[i] >= files[f].table->smallest_user_key()) batch.push_back(i);
      }
      if (f < files.size()) search_batch(files[f], filter_allowed);
    }
    pending.erase(std::remove_if(pending.begin(), pending.end(),
                                 [&](uint32_t i) { return done[i] != 0; }),
                  pending.end());
  }
  return results;
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
