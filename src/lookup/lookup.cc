#include "lsmbloom/lookup/lookup.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <new>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "src/filter/filter_probe.h"
#include "src/lookup/candidate_filters.h"
#include "src/lookup/filter_residency.h"
#include "src/lookup/lookup_counts.h"
#include "src/lookup/scratch.h"
#include "src/lookup/storage_search.h"
#include "src/lookup/version.h"
#include "src/table/table_lookup.h"
#include "src/util/prefetch.h"

namespace lsmbloom {

using internal::BlockReads;
using internal::FileMeta;
using internal::IndexSearch;
using internal::LocalCounts;
using internal::RangeSkips;
using internal::TableLookup;
using internal::Version;

using internal::AnyTrue;
using internal::BoolBuffer;
using internal::Buffer;
using internal::ConstructedIf;
using internal::ForEachTrue;
using internal::StackScratch;

namespace {

void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }

// Whether this lookup counts its accesses to modular filters: one in 8 per
// thread, so that counting costs an absent-key Get little (a shared counter
// per file, bumped by every lookup, would cost one atomic add a file).
bool SampleAccesses() {
  thread_local uint32_t n = 0;
  return (++n & 7) == 0;
}

// Counts the checks of files[0, answered) whose filters are modular: the
// ones that could have cost a false-positive read (files after the one
// that answered were probed but never searched).
void CountAccesses(const FileMeta* const* files, size_t answered) {
  for (size_t j = 0; j < answered; ++j) {
    if (files[j]->accesses != nullptr) files[j]->accesses->fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

class TableSet::Impl {
 public:
  explicit Impl(const LookupOptions& options)
      : options_(options), current_(std::make_shared<Version>()), residency_(options) {}

  absl::Status Apply(const VersionEdit& edit);
  void RebalanceFilterMemory();
  absl::Status Get(std::string_view key, LookupResult* result) const;
  std::vector<absl::StatusOr<LookupResult>> MultiGet(absl::Span<const std::string_view> keys) const;
  LookupStats stats() const;
  void ResetStats();
  std::vector<std::vector<TableFile>> files() const;

 private:
  struct LevelCounters {
    std::atomic<uint64_t> checked{0}, ruled_out{0}, positive{0}, true_positive{0},
        data_block_reads{0}, range_skipped{0};
    std::atomic<uint64_t> cache_hits{0}, cache_misses{0}, file_reads{0}, file_bytes{0},
        shared_reads{0};
    // LocalCounts::expected_false_positives, in kExpectedFalsePositiveUnits.
    std::atomic<uint64_t> expected_false_positives{0};
  };
  // Fixed point for the atomic sum of expected false positives.
  static constexpr double kExpectedFalsePositiveUnits = 4294967296.0;  // 2^32

  std::shared_ptr<const Version> current() const {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }
  // Searches the candidate files of `key` (newest first, hash ==
  // KeyHash(key)) until one answers. maybe[j] is the answer of files[j]'s
  // filter (true when it has none, or is not consulted), and blocks[j] (if
  // blocks is not null) the data block located for it. *stopped_at: the
  // level of the file that answered, or the last level. counts (here and
  // below) is null when counters are not kept. The answer goes to *result
  // (kNotFound if no file has the key).
  absl::Status SearchCandidates(const FileMeta* const* files, const bool* maybe,
                                const size_t* blocks, size_t n, std::string_view key,
                                uint64_t hash, LocalCounts* counts, int* stopped_at,
                                size_t* answered, LookupResult* result) const;
  // Adds one lookup's (or batch's) counts to counters_.
  void Flush(const LocalCounts& counts) const;

  const LookupOptions options_;
  std::mutex edit_mu_;     // Held by Apply and RebalanceFilterMemory: one at a time.
  mutable std::mutex mu_;  // Guards current_ (the pointer, not the version).
  std::shared_ptr<const Version> current_;
  internal::FilterResidency residency_;  // Under edit_mu_ (its counters need no lock).
  mutable std::array<LevelCounters, kNumLevels> counters_;
  mutable std::atomic<uint64_t> lookups_{0};
};

TableSet::TableSet(const LookupOptions& options) : impl_(std::make_unique<Impl>(options)) {}
TableSet::~TableSet() = default;

absl::Status TableSet::Apply(const VersionEdit& edit) { return impl_->Apply(edit); }
void TableSet::RebalanceFilterMemory() { impl_->RebalanceFilterMemory(); }

absl::StatusOr<LookupResult> TableSet::Get(std::string_view key) const {
  LookupResult result;
  absl::Status s = impl_->Get(key, &result);
  if (!s.ok()) return s;
  return result;
}

absl::Status TableSet::Get(std::string_view key, LookupResult* result) const {
  return impl_->Get(key, result);
}

std::vector<absl::StatusOr<LookupResult>> TableSet::MultiGet(
    absl::Span<const std::string_view> keys) const {
  return impl_->MultiGet(keys);
}

LookupStats TableSet::stats() const { return impl_->stats(); }
void TableSet::ResetStats() { impl_->ResetStats(); }
std::vector<std::vector<TableFile>> TableSet::files() const { return impl_->files(); }

absl::Status TableSet::Impl::Apply(const VersionEdit& edit) {
  std::lock_guard<std::mutex> edit_lock(edit_mu_);
  const std::shared_ptr<const Version> before = current();
  auto next = std::make_shared<Version>(*before);
  absl::Status applied = internal::ApplyEdit(edit, next.get());
  if (!applied.ok()) return applied;
  // Module reads happen here, with lookups still on `before`.
  residency_.Rebalance(*before, next.get());
  next->Index(options_);
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(next);
  return absl::OkStatus();
}

void TableSet::Impl::RebalanceFilterMemory() {
  std::lock_guard<std::mutex> edit_lock(edit_mu_);
  const std::shared_ptr<const Version> before = current();
  if (!before->any_modular) return;
  auto next = std::make_shared<Version>(*before);
  residency_.Rebalance(*before, next.get());
  next->Index(options_);
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(next);
}

void TableSet::Impl::Flush(const LocalCounts& n) const {
  Bump(lookups_, n.lookups);
  for (int level = 0; level < kNumLevels; ++level) {
    LevelCounters& c = counters_[level];
    if (n.checked[level] != 0) {
      Bump(c.checked, n.checked[level]);
      Bump(c.ruled_out, n.ruled_out[level]);
      Bump(c.positive, n.positive[level]);
      Bump(c.expected_false_positives,
           static_cast<uint64_t>(std::llround(std::max(0.0, n.expected_false_positives[level]) *
                                              kExpectedFalsePositiveUnits)));
    }
    if (n.true_positive[level] != 0) Bump(c.true_positive, n.true_positive[level]);
    if (n.reads[level] != 0) Bump(c.data_block_reads, n.reads[level]);
    if (n.range_skipped[level] != 0) Bump(c.range_skipped, n.range_skipped[level]);
    if (n.any_from_storage) {
      Bump(c.cache_hits, n.cache_hits[level]);
      Bump(c.cache_misses, n.cache_misses[level]);
      Bump(c.file_reads, n.file_reads[level]);
      Bump(c.file_bytes, n.file_bytes[level]);
      Bump(c.shared_reads, n.shared_reads[level]);
    }
  }
}

absl::Status TableSet::Impl::SearchCandidates(const FileMeta* const* files, const bool* maybe,
                                              const size_t* blocks, size_t n,
                                              std::string_view key, uint64_t hash,
                                              LocalCounts* counts, int* stopped_at,
                                              size_t* answered, LookupResult* result) const {
  result->Reset();  // Not found until a file answers.
  *answered = n;
  for (size_t j = 0; j < n; ++j) {
    const FileMeta& m = *files[j];
    const int level = m.level;
    const bool filtered = internal::Filtered(m);
    if (filtered) {
      const bool ruled_out = !maybe[j];
      if (counts != nullptr) counts->AddProbe(level, ruled_out, m.predicted_fpr);
      if (ruled_out) continue;
    }
    BlockReads reads;
    const absl::Status status =
        blocks != nullptr
            ? TableLookup::GetFromBlock(*m.table, blocks[j], key, hash, &reads, result)
            : TableLookup::GetAfterFilter(*m.table, key, hash, &reads, result);
    const bool found = status.ok() && result->kind != LookupResult::Kind::kNotFound;
    if (counts != nullptr) counts->AddSearch(level, reads, filtered && found, m.predicted_fpr);
    // An error ends the lookup: never guess.
    if (!status.ok()) {
      *stopped_at = level;
      *answered = j;
      return internal::FileSearchError(m, status);
    }
    if (result->kind != LookupResult::Kind::kNotFound) {
      *stopped_at = level;
      *answered = j;
      return status;
    }
  }
  *stopped_at = kNumLevels - 1;
  return absl::OkStatus();
}

absl::Status TableSet::Impl::Get(std::string_view key, LookupResult* result) const {
  const std::shared_ptr<const Version> v = current();
  ConstructedIf<LocalCounts> kept(options_.count_stats);
  LocalCounts* const counts = kept.get();
  if (counts != nullptr) counts->lookups = 1;

  // 1. The candidate files, newest first, from the compact view alone.
  StackScratch<const FileMeta*, 32> scratch(v->max_candidates());
  RangeSkips skips;
  const absl::Span<const FileMeta* const> candidates =
      v->FindCandidates(key, scratch.data(), &skips);
  const size_t n = candidates.size();

  // 2. Every candidate's filter: the blocked ones with their blocks in
  // flight at once, probed in one call; where the version has other kinds,
  // each kind in a call of its own, then the others through their own
  // readers.
  const uint64_t hash = KeyHash(key);
  StackScratch<bool, 32> maybe(n);
  internal::ProbeCandidates(*v, candidates.data(), n, key, hash, maybe.data());

  // 3. The survivors, newest first, until one answers. Most absent keys
  // have none: then, unless their probes are counted, nothing to walk.
  const bool sampled = v->any_modular && SampleAccesses();
  if (counts == nullptr && !AnyTrue(maybe.data(), n)) {
    if (sampled) CountAccesses(candidates.data(), n);
    result->Reset();
    return absl::OkStatus();
  }
  int stopped_at = kNumLevels - 1;
  size_t answered = n;
  absl::Status s =
      SearchCandidates(candidates.data(), maybe.data(), /*blocks=*/nullptr, n, key, hash,
                       counts, &stopped_at, &answered, result);
  if (sampled) CountAccesses(candidates.data(), answered);
  if (counts != nullptr) {
    counts->AddRangeSkips(skips, stopped_at);
    Flush(*counts);
  }
  return s;
}

std::vector<absl::StatusOr<LookupResult>> TableSet::Impl::MultiGet(
    absl::Span<const std::string_view> keys) const {
  const std::shared_ptr<const Version> v = current();
  std::vector<absl::StatusOr<LookupResult>> results;
  results.reserve(keys.size());
  // Each made in place: copying one made result costs a string copy a key.
  for (size_t i = 0; i < keys.size(); ++i) results.emplace_back(absl::in_place);
  ConstructedIf<LocalCounts> kept(options_.count_stats);
  LocalCounts* const counts = kept.get();
  if (counts != nullptr) counts->lookups = static_cast<uint32_t>(keys.size());

  // A chunk of keys at a time keeps its (key, file) pairs in cache.
  constexpr size_t kChunk = 128;
  uint64_t hashes[kChunk];
  struct KeyPlan {
    const FileMeta* const* files;  // Its candidates, newest first,
    uint32_t first, count;         // probed as pairs [first, first + count).
    RangeSkips skips;
    bool any_maybe;  // Some candidate's filter said "maybe" (or has none).
  };
  KeyPlan plans[kChunk];
  // Room for every key's candidate files where the version has no list of
  // its own, and the probes of a chunk, one per pair: uninitialised (each is
  // written before it is read).
  const size_t max_pairs = std::min(kChunk, keys.size()) * v->max_candidates();
  Buffer<const FileMeta*> candidate_scratch;
  Buffer<const BlockedBloomView*> pair_views;
  Buffer<uint64_t> pair_hashes;
  const FileMeta** const scratch = candidate_scratch.Get(max_pairs);
  Buffer<const FileMeta*> pair_file_buffer;
  const FileMeta** const pair_files = pair_file_buffer.Get(max_pairs);
  const BlockedBloomView** const views = pair_views.Get(max_pairs);
  uint64_t* const view_hashes = pair_hashes.Get(max_pairs);
  BoolBuffer maybe;
  Buffer<size_t> blocks;
  // Probed pairs whose filter said "maybe", with their keys and searches.
  struct Survivor {
    uint32_t pair, key;
    const Table* table;
    IndexSearch search;
  };
  std::vector<Survivor> survivors;
  // Where tables are read from storage: the chunk's searches, by key.
  std::vector<internal::KeySearch> searches;
  std::vector<size_t> search_key;

  for (size_t start = 0; start < keys.size(); start += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - start);
    // The caller's keys may be out of cache: all of them on their way
    // before the first is hashed. (An empty key's data may be null.)
    for (size_t i = 0; i < n; ++i) {
      if (!keys[start + i].empty()) internal::PrefetchForRead(keys[start + i].data());
    }
    KeyHashBatch(absl::MakeConstSpan(keys.data() + start, n), absl::MakeSpan(hashes, n));

    // 1. Every key's candidates, and their probes.
    uint32_t num_pairs = 0;
    for (size_t i = 0; i < n; ++i) {
      KeyPlan& plan = plans[i];
      plan.first = num_pairs;
      plan.skips = RangeSkips();
      const absl::Span<const FileMeta* const> candidates =
          v->FindCandidates(keys[start + i], &scratch[num_pairs], &plan.skips);
      plan.files = candidates.data();
      plan.count = static_cast<uint32_t>(candidates.size());
      for (uint32_t c = 0; c < plan.count; ++c) {
        pair_files[num_pairs + c] = candidates[c];
        views[num_pairs + c] = &candidates[c]->filter;
        view_hashes[num_pairs + c] = hashes[i];
      }
      num_pairs += plan.count;
    }

    // 2. All blocked filters' probes of the chunk in one call, many blocks
    // in flight; where the version has other kinds, each kind's likewise;
    // then the filters probed through their own readers.
    bool* pair_maybe = maybe.Get(num_pairs);
    internal::ProbeCandidatePairs(*v, pair_files, views, view_hashes, num_pairs, pair_maybe);
    if (v->any_own_filter) {
      for (size_t i = 0; i < n; ++i) {
        const KeyPlan& plan = plans[i];
        internal::ProbeThroughReaders(plan.files, plan.count, keys[start + i], hashes[i],
                                      pair_maybe + plan.first);
      }
    }

    // 3. The data blocks of the probed pairs that survived, loading
    // together, in rounds so that each round's misses overlap across
    // survivors: the index slots that settle each search; then the data
    // blocks they name, their tails first (requested back to back, so that
    // the page walks of the blocks' pages overlap); then (now that the tails
    // have had time to arrive) the entries a search reads: the interval a
    // block's hash index names, or its restart entries.
    size_t* pair_block = blocks.Get(num_pairs);
    survivors.clear();
    for (size_t i = 0; i < n; ++i) plans[i].any_maybe = false;
    size_t key = 0;  // The key of pair p: pairs are in key order.
    ForEachTrue(pair_maybe, num_pairs, [&](size_t p) {
      while (plans[key].first + plans[key].count <= p) ++key;
      KeyPlan& plan = plans[key];
      plan.any_maybe = true;
      const FileMeta& file = *plan.files[p - plan.first];
      survivors.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(start + key), file.table,
                           TableLookup::StartLocate(*file.table, keys[start + key])});
    });
    for (const Survivor& s : survivors) {
      pair_block[s.pair] = TableLookup::LocateBlock(*s.table, keys[s.key], s.search);
    }
    for (const Survivor& s : survivors) {
      TableLookup::PrefetchBlockTail(*s.table, pair_block[s.pair]);
    }
    for (const Survivor& s : survivors) {
      TableLookup::PrefetchSearch(*s.table, pair_block[s.pair], view_hashes[s.pair]);
    }

    // 4. Each key's survivors, newest first. A key every filter ruled out
    // keeps its result as made (not found) unless its probes are counted.
    // Where blocks come from storage, in rounds whose reads are in flight
    // together.
    if (v->any_unmapped) {
      searches.clear();
      for (size_t i = 0; i < n; ++i) {
        const KeyPlan& plan = plans[i];
        if (!plan.any_maybe && counts == nullptr) continue;
        internal::KeySearch ks;
        ks.files = plan.files;
        ks.maybe = pair_maybe + plan.first;
        ks.blocks = pair_block + plan.first;
        ks.count = plan.count;
        ks.key = keys[start + i];
        ks.hash = hashes[i];
        ks.result = &*results[start + i];
        searches.push_back(ks);
        search_key.push_back(i);
      }
      internal::SearchInRounds(absl::MakeSpan(searches),
                               options_.multiget_reads == LookupOptions::StorageReads::kInFlight
                                   ? internal::BatchReadEngine::kAuto
                                   : internal::BatchReadEngine::kSerial,
                               counts);
      for (size_t k = 0; k < searches.size(); ++k) {
        const size_t i = search_key[k];
        if (v->any_modular && SampleAccesses()) {
          CountAccesses(searches[k].files, std::min(searches[k].answered, searches[k].count));
        }
        if (!searches[k].status.ok()) results[start + i] = std::move(searches[k].status);
        if (counts != nullptr) counts->AddRangeSkips(plans[i].skips, searches[k].stopped_at);
      }
      search_key.clear();
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      const KeyPlan& plan = plans[i];
      const bool sampled = v->any_modular && SampleAccesses();
      if (!plan.any_maybe && counts == nullptr) {
        if (sampled) CountAccesses(plan.files, plan.count);
        continue;
      }
      int stopped_at = kNumLevels - 1;
      size_t answered = plan.count;
      absl::Status s =
          SearchCandidates(plan.files, pair_maybe + plan.first, pair_block + plan.first, plan.count,
                           keys[start + i], hashes[i], counts, &stopped_at, &answered,
                           &*results[start + i]);
      if (sampled) CountAccesses(plan.files, answered);
      if (!s.ok()) results[start + i] = std::move(s);
      if (counts != nullptr) counts->AddRangeSkips(plan.skips, stopped_at);
    }
  }
  if (counts != nullptr) Flush(*counts);
  return results;
}

LookupStats TableSet::Impl::stats() const {
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
    l.expected_false_positives =
        static_cast<double>(c.expected_false_positives.load(std::memory_order_relaxed)) /
        kExpectedFalsePositiveUnits;
    l.data_block_reads = c.data_block_reads.load(std::memory_order_relaxed);
    l.files_range_skipped = c.range_skipped.load(std::memory_order_relaxed);
    l.block_cache_hits = c.cache_hits.load(std::memory_order_relaxed);
    l.block_cache_misses = c.cache_misses.load(std::memory_order_relaxed);
    l.file_reads = c.file_reads.load(std::memory_order_relaxed);
    l.file_read_bytes = c.file_bytes.load(std::memory_order_relaxed);
    l.shared_reads = c.shared_reads.load(std::memory_order_relaxed);
    double fpr_sum = 0, filter_bits = 0;
    uint64_t filtered_entries = 0;
    for (const TableFile& f : v->levels[level]) {
      ++l.files;
      l.entries += f.table->num_entries();
      l.filter_bytes += f.table->filter_memory();
      if (const FilterReader* r = f.table->whole_key_filter()) {
        double fpr = r->predicted_fpr(), bits = r->bits_per_key();
        auto held = v->held.find(f.file_number);
        if (held != v->held.end()) {
          fpr *= held->second->fpr;
          bits += held->second->bits_per_key;
        }
        fpr_sum += fpr;
        filter_bits += bits * static_cast<double>(f.table->num_entries());
        filtered_entries += f.table->num_entries();
      }
    }
    l.predicted_fpr = l.files == 0 ? 0 : fpr_sum / l.files;
    l.bits_per_key = filtered_entries == 0 ? 0 : filter_bits / filtered_entries;
  }
  residency_.AddStats(*v, &s);
  for (LevelStats& l : s.levels) {
    l.filter_bytes += l.filter_module_bytes;
    s.total_filter_bytes += l.filter_bytes;
  }
  return s;
}

void TableSet::Impl::ResetStats() {
  residency_.ResetStats();
  lookups_.store(0);
  for (LevelCounters& c : counters_) {
    c.checked.store(0);
    c.ruled_out.store(0);
    c.positive.store(0);
    c.true_positive.store(0);
    c.expected_false_positives.store(0);
    c.data_block_reads.store(0);
    c.range_skipped.store(0);
    c.cache_hits.store(0);
    c.cache_misses.store(0);
    c.file_reads.store(0);
    c.file_bytes.store(0);
    c.shared_reads.store(0);
  }
}

std::vector<std::vector<TableFile>> TableSet::Impl::files() const {
  const std::shared_ptr<const Version> v = current();
  return std::vector<std::vector<TableFile>>(v->levels.begin(), v->levels.end());
}

}  // namespace lsmbloom
