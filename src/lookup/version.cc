#include "src/lookup/version.h"

#include <algorithm>

#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "src/table/table_lookup.h"
#include "src/util/coding.h"
#include "src/util/search.h"

namespace lsmbloom {
namespace internal {
namespace {

// One block with every bit set: probed with k = 1, any hash may match.
struct alignas(64) MatchAllBlock {
  uint8_t bytes[64];
  constexpr MatchAllBlock() : bytes() {
    for (uint8_t& b : bytes) b = 0xFF;
  }
};
constexpr MatchAllBlock kMatchAllBlock;
constexpr BlockedBloomView kMatchAllView{kMatchAllBlock.bytes, 1, 1};

// a < b for a key and a bound, by prefix first.
bool Less(uint64_t a_prefix, std::string_view a, uint64_t b_prefix, std::string_view b) {
  return a_prefix != b_prefix ? a_prefix < b_prefix : a < b;
}

}  // namespace

void Version::Index(const LookupOptions& options) {
  common_prefix.clear();
  bool first = true;
  for (const auto& level : levels) {
    for (const TableFile& f : level) {
      for (std::string_view bound : {f.table->smallest_user_key(), f.table->largest_user_key()}) {
        if (first) {
          common_prefix.assign(bound.data(), bound.size());
          first = false;
        } else {
          common_prefix.resize(CommonPrefixLength(common_prefix, bound));
        }
      }
    }
  }
  const size_t from = common_prefix.size();
  any_other_batched = false;
  any_own_filter = false;
  any_unmapped = false;
  any_modular = false;
  any_held_modules = false;
  size_t num_files = 0;
  for (const auto& level : levels) num_files += level.size();
  accesses.reset(new std::atomic<uint64_t>[num_files]());
  size_t ordinal = 0;
  for (int level = 0; level < kNumLevels; ++level) {
    const bool allowed =
        options.use_filters && !(options.skip_last_level_filters && level == last_nonempty_level);
    meta[level].clear();
    smallest_prefix[level].clear();
    largest_prefix[level].clear();
    for (const TableFile& f : levels[level]) {
      const Table& t = *f.table;
      if (!TableLookup::Mapped(t)) any_unmapped = true;
      FileMeta m;
      m.smallest = t.smallest_user_key();
      m.largest = t.largest_user_key();
      m.smallest_prefix = OrderedPrefix8(m.smallest, from);
      m.largest_prefix = OrderedPrefix8(m.largest, from);
      const FilterProbe& probe = TableLookup::Probe(t);
      const bool consulted = allowed && probe.kind != FilterKind::kNone;
      m.kind = consulted ? probe.kind : FilterKind::kNone;
      m.batched = consulted && probe.batched();
      const bool batched_blocked = m.batched && m.kind == FilterKind::kBlockedBloom;
      if (consulted && !batched_blocked) m.own = &probe;
      if (m.batched && m.kind != FilterKind::kBlockedBloom) any_other_batched = true;
      if (consulted && !m.batched) any_own_filter = true;
      m.predicted_fpr = consulted ? probe.reader->predicted_fpr() : 0;
      m.filter = batched_blocked ? probe.blocked : kMatchAllView;
      m.level = level;
      m.table = f.table.get();
      m.file_number = f.file_number;
      if (batched_blocked && probe.modular) {
        any_modular = true;
        m.accesses = &accesses[ordinal];
        auto it = held.find(f.file_number);
        if (it != held.end() && it->second->count() != 0 && it->second->table == &t) {
          any_held_modules = true;
          m.held = it->second.get();
          m.predicted_fpr *= it->second->fpr;
        }
      }
      ++ordinal;
      meta[level].push_back(m);
      smallest_prefix[level].push_back(m.smallest_prefix);
      largest_prefix[level].push_back(m.largest_prefix);
    }
  }
  MapIntervals();
}

void Version::MapIntervals() {
  bound_prefixes = BucketedLowerBound();
  interval_first.clear();
  interval_files.clear();
  interval_skips.clear();
  size_t files = 0;
  for (const auto& level : meta) files += level.size();
  if (files == 0 || files > kMaxMappedFiles) return;
  std::vector<uint64_t> bounds;
  for (int level = 0; level < kNumLevels; ++level) {
    bounds.insert(bounds.end(), smallest_prefix[level].begin(), smallest_prefix[level].end());
    bounds.insert(bounds.end(), largest_prefix[level].begin(), largest_prefix[level].end());
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  bound_prefixes = BucketedLowerBound(bounds);
  // A prefix strictly inside interval i (i > 0) is above every bound up to
  // bound_prefixes[i - 1] and below every bound from bound_prefixes[i] on:
  // a file holds such keys when its smallest prefix is at most the first
  // and its largest at least the second. Interval 0 is below every bound.
  const size_t m = bound_prefixes.size();
  for (size_t i = 0; i <= m; ++i) {
    interval_first.push_back(static_cast<uint32_t>(interval_files.size()));
    RangeSkips skips;
    for (int level = 0; level < kNumLevels; ++level) {
      bool found = false;
      for (const FileMeta& f : meta[level]) {
        if (i > 0 && i < m && f.smallest_prefix <= bound_prefixes[i - 1] &&
            f.largest_prefix >= bound_prefixes[i]) {
          interval_files.push_back(&f);
          found = true;
        } else if (level == 0) {
          ++skips.level0;
        }
      }
      if (level > 0 && !meta[level].empty() && !found) skips.level_mask |= 1u << level;
    }
    interval_skips.push_back(skips);
    if (interval_files.size() > kMaxMappedEntries) {  // Many overlapping level-0 files.
      bound_prefixes = BucketedLowerBound();
      interval_first.clear();
      interval_files.clear();
      interval_skips.clear();
      return;
    }
  }
  interval_first.push_back(static_cast<uint32_t>(interval_files.size()));
}

absl::Span<const FileMeta* const> Version::FindCandidates(std::string_view key,
                                                          const FileMeta** scratch,
                                                          RangeSkips* skips) const {
  if (!StartsWith(key, common_prefix)) {
    // Outside every file's range: every level-0 file and one file of
    // each other level passed over.
    skips->level0 = static_cast<uint32_t>(meta[0].size());
    for (int level = 1; level < kNumLevels; ++level) {
      if (!meta[level].empty()) skips->level_mask |= 1u << level;
    }
    return {};
  }
  const uint64_t key_prefix = OrderedPrefix8(key, common_prefix.size());
  if (!bound_prefixes.empty()) {
    const size_t i = bound_prefixes.Find(key_prefix);
    if (i == bound_prefixes.size() || bound_prefixes[i] != key_prefix) {
      const uint32_t first = interval_first[i], end = interval_first[i + 1];
      *skips = interval_skips[i];
      return absl::MakeConstSpan(interval_files.data() + first, end - first);
    }
  }
  return absl::MakeConstSpan(scratch, SearchLevels(key, key_prefix, scratch, skips));
}

size_t Version::SearchLevels(std::string_view key, uint64_t key_prefix, const FileMeta** out,
                             RangeSkips* skips) const {
  size_t n = 0;
  // Level-0 files overlap in no predictable way: append without branching.
  const uint64_t* smallest0 = smallest_prefix[0].data();
  const uint64_t* largest0 = largest_prefix[0].data();
  for (size_t i = 0; i < meta[0].size(); ++i) {
    const FileMeta& m = meta[0][i];
    out[n] = &m;
    n += !Less(key_prefix, key, smallest0[i], m.smallest) &&
         !Less(largest0[i], m.largest, key_prefix, key);
  }
  skips->level0 = static_cast<uint32_t>(meta[0].size() - n);
  for (int level = 1; level < kNumLevels; ++level) {
    const std::vector<FileMeta>& files = meta[level];
    if (files.empty()) continue;
    const uint64_t* largest = largest_prefix[level].data();
    // The first file whose largest key is >= key.
    size_t i = BranchlessLowerBound(largest, files.size(), key_prefix);
    while (i < files.size() && largest[i] == key_prefix && files[i].largest < key) {
      ++i;  // Equal prefixes: the full keys decide.
    }
    if (i < files.size() && !Less(key_prefix, key, smallest_prefix[level][i], files[i].smallest)) {
      out[n++] = &files[i];
    } else {
      skips->level_mask |= 1u << level;
    }
  }
  return n;
}

}  // namespace internal
}  // namespace lsmbloom
