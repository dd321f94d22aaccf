#include "stats_report.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/lookup/filter_budget.h"

namespace kvstore {
namespace {

constexpr int kStatsProbes = 10000;

}  // namespace

absl::Status PrintStats(Store& store, std::FILE* out) {
  const auto levels = store.files();
  std::fprintf(out, "store %s: last sequence %llu, memtable %zu entries\n\n", store.dir().c_str(),
               static_cast<unsigned long long>(store.last_sequence()), store.memtable_entries());
  if (const absl::Status error = store.write_error(); !error.ok()) {
    std::fprintf(out, "writes refused: %s\n\n", std::string(error.message()).c_str());
  }
  // bits/entry: filter memory (headers included) per table entry; the
  // filters' own bits per distinct key are in the table of counters below.
  std::fprintf(out, "%-6s %6s %12s %11s %10s %11s %10s\n", "level", "files", "entries", "tombstones",
               "data MiB", "filter KiB", "bits/entry");
  uint64_t total_files = 0, total_entries = 0, total_tombstones = 0;
  uint64_t total_bytes = 0, total_filter = 0, unfiltered = 0;
  std::string unfiltered_reason;
  for (size_t level = 0; level < levels.size(); ++level) {
    uint64_t entries = 0, tombstones = 0, bytes = 0, filter = 0;
    for (const lsmbloom::TableFile& f : levels[level]) {
      entries += f.table->num_entries();
      tombstones += f.table->properties().num_deletions;
      bytes += f.table->file_size();
      filter += f.table->filter_memory();
      if (!f.table->filter_status().ok()) {
        ++unfiltered;
        unfiltered_reason = std::string(f.table->filter_status().message());
      }
    }
    total_files += levels[level].size();
    total_entries += entries;
    total_tombstones += tombstones;
    total_bytes += bytes;
    total_filter += filter;
    if (levels[level].empty()) continue;
    std::fprintf(out, "L%-5zu %6zu %12llu %11llu %10.2f %11.1f %10.2f\n", level,
                 levels[level].size(), static_cast<unsigned long long>(entries),
                 static_cast<unsigned long long>(tombstones), bytes / 1048576.0, filter / 1024.0,
                 entries == 0 ? 0.0 : 8.0 * filter / entries);
  }
  std::fprintf(
      out, "%-6s %6llu %12llu %11llu %10.2f %11.1f %10.2f\n", "total",
      static_cast<unsigned long long>(total_files), static_cast<unsigned long long>(total_entries),
      static_cast<unsigned long long>(total_tombstones), total_bytes / 1048576.0,
      total_filter / 1024.0, total_entries == 0 ? 0.0 : 8.0 * total_filter / total_entries);
  if (unfiltered > 0) {
    std::fprintf(out, "%llu tables have no usable filter (%s)\n",
                 static_cast<unsigned long long>(unfiltered), unfiltered_reason.c_str());
  }
  if (total_files == 0) return absl::OkStatus();

  // Each probe sits just above some file's smallest key ("\0" sorts
  // first), so it is inside that file's key range and its filter must
  // answer; the probes are distinct, so each is an independent trial. The
  // files take turns.
  std::vector<std::string> smallest_keys;
  for (const auto& level : levels) {
    for (const lsmbloom::TableFile& f : level) {
      smallest_keys.emplace_back(f.table->smallest_user_key());
    }
  }
  store.ResetLookupStats();
  int found = 0;
  for (int i = 0; i < kStatsProbes; ++i) {
    std::string probe = smallest_keys[i % smallest_keys.size()];
    probe.push_back('\0');
    absl::StrAppend(&probe, "absent-", i);
    absl::StatusOr<std::optional<std::string>> value = store.Get(probe);
    if (!value.ok()) return value.status();
    found += value->has_value();
  }
  const lsmbloom::LookupStats stats = store.lookup_stats();
  std::fprintf(out, "\nfilters over %d lookups of absent keys:\n", kStatsProbes);
  std::fprintf(out, "%-6s %8s %9s %10s %10s %13s %14s %12s\n", "level", "bits/key", "checked",
               "ruled out", "false pos", "observed FPR", "predicted FPR", "block reads");
  for (size_t level = 0; level < levels.size(); ++level) {
    const lsmbloom::LevelStats& l = stats.levels[level];
    if (l.files == 0) continue;
    std::fprintf(out, "L%-5zu %8.2f %9llu %10llu %10llu %12.3f%% %13.3f%% %12llu\n", level,
                 l.bits_per_key, static_cast<unsigned long long>(l.filters_checked),
                 static_cast<unsigned long long>(l.filters_ruled_out),
                 static_cast<unsigned long long>(l.false_positives()),
                 100 * l.observed_fpr(),
                 100 * l.predicted_fpr_of_checks(),
                 static_cast<unsigned long long>(l.data_block_reads));
  }
  std::fprintf(out, "filter memory: %.1f KiB in all\n", stats.total_filter_bytes / 1024.0);
  // The same filter bits spread evenly, by the same model, for comparison.
  const std::vector<lsmbloom::LevelFilterShape> shapes = lsmbloom::FilterShapesOf(stats);
  double entries = 0, bits = 0;
  for (size_t level = 0; level < levels.size(); ++level) {
    entries += stats.levels[level].entries;
    bits += stats.levels[level].bits_per_key * stats.levels[level].entries;
  }
  const double even = entries > 0 ? std::round(100 * bits / entries) / 100 : 0;
  absl::StatusOr<lsmbloom::FilterAllocation> uniform =
      lsmbloom::UniformFilterAllocation(shapes, std::min(30.0, even));
  // Predicted for the filters these lookups checked; then by the model's
  // shape (every L0 file and one file of each deeper level in a key's
  // range), which overestimates when files' ranges do not overlap.
  std::fprintf(out,
               "false-positive reads per absent lookup: %.4f observed, %.4f predicted for the "
               "filters checked\n"
               "by the model (every L0 file and one file per deeper level): %.4f, or %.4f with "
               "%.2f bits/key in every level\n",
               stats.false_positives_per_lookup(), stats.expected_false_positives_per_lookup(),
               stats.PredictedFalsePositiveReads(), uniform.ok() ? uniform->expected_cost : 0.0,
               even);
  if (found > 0) {
    std::fprintf(out,
                 "(%d probes were keys the store has; the counters leave them out of the FPR)\n",
                 found);
  }
  return absl::OkStatus();
}

}  // namespace kvstore
