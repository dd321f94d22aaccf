#include "lsmbloom/lookup.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace lsmbloom {

// An immutable snapshot of the files. Level 0 newest first; levels >= 1 by
// smallest key.
struct TableSet::Version {
  std::array<std::vector<TableFile>, kNumLevels> levels;
  int last_nonempty_level = -1;
};

namespace {

bool InRange(const Table& t, std::string_view key) {
  return key >= t.smallest_user_key() && key <= t.largest_user_key();
}

// The file of a sorted, non-overlapping level that could hold `key`.
const TableFile* FindFile(const std::vector<TableFile>& level, std::string_view key) {
  auto it = std::lower_bound(level.begin(), level.end(), key,
                             [](const TableFile& f, std::string_view k) {
                               return f.table->largest_user_key() < k;
                             });
  if (it == level.end() || key < it->table->smallest_user_key()) return nullptr;
  return &*it;
}

void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace

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

absl::StatusOr<LookupResult> TableSet::Get(std::string_view key) const {
  const std::shared_ptr<const Version> v = current();
  Bump(lookups_);
  const uint64_t hash = KeyHash(key);
  absl::StatusOr<LookupResult> result = LookupResult();
  for (int level = 0; level < kNumLevels; ++level) {
    const bool filter_allowed =
        options_.use_filters &&
        !(options_.skip_last_level_filters && level == v->last_nonempty_level);
    if (level == 0) {
      for (const TableFile& f : v->levels[0]) {
        if (InRange(*f.table, key) && SearchFile(f, key, hash, filter_allowed, &result)) {
          return result;
        }
      }
    } else if (const TableFile* f = FindFile(v->levels[level], key)) {
      if (SearchFile(*f, key, hash, filter_allowed, &result)) return result;
    }
  }
  return LookupResult();
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
    double fpr_sum = 0;
    for (const TableFile& f : v->levels[level]) {
      ++l.files;
      l.filter_bytes += f.table->filter_memory();
      if (const FilterReader* r = f.table->whole_key_filter()) fpr_sum += r->predicted_fpr();
    }
    l.predicted_fpr = l.files == 0 ? 0 : fpr_sum / l.files;
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
  }
}

std::vector<std::vector<TableFile>> TableSet::files() const {
  const std::shared_ptr<const Version> v = current();
  return std::vector<std::vector<TableFile>>(v->levels.begin(), v->levels.end());
}

}  // namespace lsmbloom
