// TableSet::MultiGet: a batch of keys, each file's filter probed for all of
// its keys at once.

#include <algorithm>
#include <memory>
#include <vector>

#include "lsmbloom/lookup.h"
#include "src/lookup/version.h"
#include "src/table/table_lookup.h"

namespace lsmbloom {

using internal::Bump;
using internal::TableLookup;

// One MultiGet: its keys, their hashes and answers, and scratch reused
// file after file.
struct TableSet::MultiGetState {
  explicit MultiGetState(absl::Span<const std::string_view> k)
      : keys(k),
        hashes(k.size()),
        results(k.size(), LookupResult()),
        done(k.size(), 0),
        maybe(new bool[k.size()]) {
    KeyHashBatch(keys.data(), hashes.data(), keys.size());
  }

  absl::Span<const std::string_view> keys;
  std::vector<uint64_t> hashes;
  std::vector<absl::StatusOr<LookupResult>> results;
  std::vector<char> done;       // done[i]: keys[i] has its answer.
  std::vector<uint32_t> batch;  // The keys to look for in the file at hand.
  std::vector<uint64_t> batch_hashes;
  std::unique_ptr<bool[]> maybe;
};

void TableSet::SearchBatch(MultiGetState* m, const TableFile& file,
                           bool filter_allowed) const {
  if (m->batch.empty()) return;
  const std::vector<uint32_t>& batch = m->batch;
  const Table& table = *file.table;
  LevelCounters& c = counters_[file.level];
  const HashSpec* spec = filter_allowed ? TableLookup::FilterHashSpec(table) : nullptr;
  const bool batched = spec != nullptr && *spec == HashSpec();
  if (batched) {
    m->batch_hashes.resize(batch.size());
    for (size_t j = 0; j < batch.size(); ++j) m->batch_hashes[j] = m->hashes[batch[j]];
    TableLookup::HashesMayMatch(table, m->batch_hashes,
                                absl::MakeSpan(m->maybe.get(), batch.size()));
    size_t positives = 0;
    for (size_t j = 0; j < batch.size(); ++j) positives += m->maybe[j];
    Bump(c.checked, batch.size());
    Bump(c.ruled_out, batch.size() - positives);
    Bump(c.positive, positives);
  }
  for (size_t j = 0; j < batch.size(); ++j) {
    const uint32_t i = batch[j];
    absl::StatusOr<LookupResult>& result = m->results[i];
    if (!batched) {
      m->done[i] = SearchFile(file, m->keys[i], m->hashes[i], filter_allowed, &result);
      continue;
    }
    if (!m->maybe[j]) continue;
    uint64_t reads = 0;
    result = TableLookup::GetAfterFilter(table, m->keys[i], &reads);
    Bump(c.data_block_reads, reads);
    if (result.ok() && result->kind != LookupResult::Kind::kNotFound) Bump(c.true_positive);
    m->done[i] = !result.ok() || result->kind != LookupResult::Kind::kNotFound;
  }
}

void TableSet::SearchLevel(MultiGetState* m, const Version& v, int level,
                           const std::vector<uint32_t>& pending) const {
  const bool filter_allowed = FilterAllowed(v, level);
  const std::vector<TableFile>& files = v.levels[level];
  const absl::Span<const std::string_view> keys = m->keys;
  if (level == 0) {
    auto key_less = [&](uint32_t i, std::string_view k) { return keys[i] < k; };
    auto less_key = [&](std::string_view k, uint32_t i) { return k < keys[i]; };
    for (const TableFile& f : files) {
      auto lo = std::lower_bound(pending.begin(), pending.end(),
                                 f.table->smallest_user_key(), key_less);
      auto hi = std::upper_bound(lo, pending.end(), f.table->largest_user_key(), less_key);
      m->batch.clear();
      for (auto it = lo; it != hi; ++it) {
        if (!m->done[*it]) m->batch.push_back(*it);
      }
      SearchBatch(m, f, filter_allowed);
    }
    return;
  }
  size_t f = 0;
  m->batch.clear();
  for (uint32_t i : pending) {
    while (f < files.size() && files[f].table->largest_user_key() < keys[i]) {
      SearchBatch(m, files[f], filter_allowed);  // The run for file f ended.
      m->batch.clear();
      ++f;
    }
    if (f == files.size()) break;
    if (keys[i] >= files[f].table->smallest_user_key()) m->batch.push_back(i);
  }
  if (f < files.size()) SearchBatch(m, files[f], filter_allowed);
}

std::vector<absl::StatusOr<LookupResult>> TableSet::MultiGet(
    absl::Span<const std::string_view> keys) const {
  const std::shared_ptr<const Version> v = current();
  Bump(lookups_, keys.size());
  MultiGetState m(keys);
  // Pending keys in key order: each file's keys are then one contiguous run,
  // found by binary search (level 0) or one merge walk (sorted levels).
  std::vector<uint32_t> pending(keys.size());
  for (uint32_t i = 0; i < keys.size(); ++i) pending[i] = i;
  std::sort(pending.begin(), pending.end(),
            [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  for (int level = 0; level < kNumLevels && !pending.empty(); ++level) {
    SearchLevel(&m, *v, level, pending);
    pending.erase(std::remove_if(pending.begin(), pending.end(),
                                 [&](uint32_t i) { return m.done[i] != 0; }),
                  pending.end());
  }
  return std::move(m.results);
}

}  // namespace lsmbloom
