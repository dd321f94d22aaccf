#include "tools/lsm_demo.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"
#include "tools/lsm_fixture.h"
#include "tools/memory_demo.h"
#include "tools/storage_demo.h"

namespace lsmbloom {
namespace demo {
namespace {

using Clock = std::chrono::steady_clock;

using fixture::KeyOf;

double NanosPer(Clock::time_point start, uint64_t n) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
}

struct Timing {
  double get_present, get_absent, multiget_present, multiget_absent;
};

absl::Status TimeLookups(const TableSet& set, const std::vector<std::string>& present,
                         const std::vector<std::string>& absent, bool with_multiget, Timing* t) {
  auto run_gets = [&](const std::vector<std::string>& keys, double* ns) -> absl::Status {
    const Clock::time_point start = Clock::now();
    for (const std::string& k : keys) {
      absl::StatusOr<LookupResult> r = set.Get(k);
      if (!r.ok()) return r.status();
    }
    *ns = NanosPer(start, keys.size());
    return absl::OkStatus();
  };
  auto run_multigets = [&](const std::vector<std::string>& keys, double* ns) -> absl::Status {
    std::vector<std::string_view> views(keys.begin(), keys.end());
    const Clock::time_point start = Clock::now();
    for (size_t i = 0; i < views.size(); i += 256) {
      const size_t n = std::min<size_t>(256, views.size() - i);
      for (const auto& r : set.MultiGet(absl::MakeConstSpan(&views[i], n))) {
        if (!r.ok()) return r.status();
      }
    }
    *ns = NanosPer(start, keys.size());
    return absl::OkStatus();
  };
  absl::Status s = run_gets(present, &t->get_present);
  if (s.ok()) s = run_gets(absent, &t->get_absent);
  if (s.ok() && with_multiget) s = run_multigets(present, &t->multiget_present);
  if (s.ok() && with_multiget) s = run_multigets(absent, &t->multiget_absent);
  return s;
}

}  // namespace

absl::Status RunLsmDemo(const LsmDemoOptions& options) {
  std::string dir = options.dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/lsmbloom-demo-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return absl::InternalError("cannot create a temp dir");
    dir = tmpl;
  } else if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InvalidArgumentError(absl::StrCat("cannot create ", dir));
  }
  if (options.ribbon && options.filter_budget) {
    return absl::InvalidArgumentError(
        "--filter_budget sizes blocked Bloom filters (its model is theirs): use it with "
        "--filter=bloom");
  }
  const uint64_t n = options.num_keys;
  std::printf("== An LSM tree: %llu keys in 4 levels of table files under %s ==\n",
              static_cast<unsigned long long>(n), dir.c_str());

  absl::StatusOr<std::shared_ptr<const FilterPolicy>> uniform_policy;
  if (options.ribbon) {
    RibbonOptions ribbon_options;
    ribbon_options.bits_per_key = options.bits_per_key;
    uniform_policy = NewRibbonPolicy(ribbon_options);
  } else {
    BlockedBloomOptions filter_options;
    filter_options.bits_per_key = options.bits_per_key;
    uniform_policy = NewBlockedBloomPolicy(filter_options);
  }
  TableOptions uniform_options;
  if (!uniform_policy.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --bits_per_key: ", uniform_policy.status().message()));
  }
  if (options.ribbon) {
    std::printf("Ribbon filters at %.1f bits/key in every level (--filter=ribbon)\n",
                options.bits_per_key);
  }
  uniform_options.filter_policy = *std::move(uniform_policy);

  TableSet with_filters, without_filters(LookupOptions{/*use_filters=*/false, false});
  const std::vector<fixture::FileSpec> layout = fixture::MakeLayout(n, 20261202);
  std::array<TableOptions, kNumLevels> table_options;
  table_options.fill(uniform_options);
  if (options.filter_budget) {
    absl::StatusOr<std::array<TableOptions, kNumLevels>> budgeted =
        fixture::BudgetedTableOptions(layout, options.bits_per_key, nullptr);
    if (!budgeted.ok()) return budgeted.status();
    table_options = *std::move(budgeted);
    std::printf(
        "filter memory of %.1f bits/key split across the levels "
        "(--filter_budget)\n",
        options.bits_per_key);
  }
  VersionEdit edit;
  const Clock::time_point build_start = Clock::now();
  Clock::time_point last_report = build_start;
  absl::Status s =
      fixture::WriteTables(layout, dir, table_options, &edit, [&](uint64_t done, uint64_t total) {
        if (Clock::now() - last_report > std::chrono::seconds(1) || done == total) {
          std::fprintf(stderr, "\r  writing tables: %3.0f%%%s", 100.0 * done / total,
                       done == total ? "\n" : "");
          last_report = Clock::now();
        }
      });
  if (!s.ok()) return s;
  const double build_s = std::chrono::duration<double>(Clock::now() - build_start).count();
  s = with_filters.Apply(edit);
  if (s.ok()) s = without_filters.Apply(edit);
  if (!s.ok()) return s;
  const uint64_t num_files = edit.added.size();
  std::printf(
      "built %llu files (%zu entries) in %.1f s\n", static_cast<unsigned long long>(num_files),
      [&] {
        size_t e = 0;
        for (const auto& f : layout) e += f.entries.size();
        return e;
      }(),
      build_s);

  std::mt19937_64 rng(7);
  std::vector<std::string> present, absent;
  for (uint64_t i = 0; i < options.lookups; ++i) {
    present.push_back(KeyOf(2 * (rng() % n)));
    absent.push_back(KeyOf(2 * (rng() % n) + 1));
  }
  std::shuffle(present.begin(), present.end(), rng);

  // Counters from single lookups with filters on.
  Timing on{}, off{};
  s = TimeLookups(with_filters, present, absent, /*with_multiget=*/false, &on);
  if (!s.ok()) return s;
  const LookupStats stats = with_filters.stats();
  // Absent keys alone, for the false-positive reads an absent lookup pays.
  with_filters.ResetStats();
  for (const std::string& k : absent) {
    absl::StatusOr<LookupResult> r = with_filters.Get(k);
    if (!r.ok()) return r.status();
  }
  const LookupStats absent_stats = with_filters.stats();
  s = TimeLookups(with_filters, present, absent, /*with_multiget=*/true, &on);
  if (s.ok()) s = TimeLookups(without_filters, present, absent, false, &off);
  if (!s.ok()) return s;
  const LookupStats no_filter_stats = without_filters.stats();

  std::printf("\n%llu lookups of present keys, then %llu of absent keys (filters on):\n",
              static_cast<unsigned long long>(options.lookups),
              static_cast<unsigned long long>(options.lookups));
  std::printf("%-5s %5s %9s %6s %9s %11s %9s %9s %10s %10s %10s\n", "level", "files", "filter",
              "bits/k", "checked", "ruled out", "maybe", "had key", "FPR seen", "predicted",
              "blk reads");
  uint64_t saved = 0, reads = 0;
  for (int level = 0; level < kNumLevels; ++level) {
    const LevelStats& l = stats.levels[level];
    if (l.files == 0) continue;
    saved += l.filters_ruled_out;
    reads += l.data_block_reads;
    std::printf("L%-4d %5llu %7.2fMB %6.2f %9llu %11llu %9llu %9llu %9.3f%% %9.3f%% %10llu\n",
                level, static_cast<unsigned long long>(l.files), l.filter_bytes / 1e6,
                l.bits_per_key, static_cast<unsigned long long>(l.filters_checked),
                static_cast<unsigned long long>(l.filters_ruled_out),
                static_cast<unsigned long long>(l.filters_positive),
                static_cast<unsigned long long>(l.filters_true_positive), 100 * l.observed_fpr(),
                100 * l.predicted_fpr_of_checks(),
                static_cast<unsigned long long>(l.data_block_reads));
  }
  uint64_t reads_off = 0;
  for (const LevelStats& l : no_filter_stats.levels) reads_off += l.data_block_reads;
  std::printf(
      "file reads the filters saved: %llu (%.2f per lookup); data-block reads "
      "with filters %llu, without %llu\n",
      static_cast<unsigned long long>(saved), static_cast<double>(saved) / (2 * options.lookups),
      static_cast<unsigned long long>(reads), static_cast<unsigned long long>(reads_off / 1));
  std::printf("filter memory: %.2f MB in total\n", stats.total_filter_bytes / 1e6);
  // What the same memory would buy spread uniformly, by the same model.
  const std::vector<LevelFilterShape> shapes = FilterShapesOf(absent_stats);
  double keys = 0;
  for (const LevelFilterShape& l : shapes) keys += l.checks > 0 ? l.num_keys : 0;
  const double uniform_bits =
      std::min(30.0, std::round(800.0 * stats.total_filter_bytes / keys) / 100.0);
  absl::StatusOr<FilterAllocation> uniform = UniformFilterAllocation(shapes, uniform_bits);
  absl::StatusOr<FilterAllocation> best =
      AllocateFilterMemory(shapes, static_cast<double>(stats.total_filter_bytes));
  // The budget models blocked filters: with Ribbon ones, what blocked ones
  // would do in the same memory.
  std::printf(
      options.ribbon
          ? "false-positive block reads per absent lookup: %.4f seen, %.4f predicted;\n"
            "  blocked Bloom filters in the same memory (%.2f bits/key) uniform: %.4f "
            "predicted, budgeted: %.4f predicted\n"
          : "false-positive block reads per absent lookup: %.4f seen, %.4f predicted;\n"
            "  the same memory (%.2f bits/key) uniform: %.4f predicted, budgeted: %.4f "
            "predicted\n",
      absent_stats.false_positives_per_lookup(), absent_stats.PredictedFalsePositiveReads(),
      uniform_bits, uniform.ok() ? uniform->expected_cost : -1.0,
      best.ok() ? best->expected_cost : -1.0);
  std::printf("\nlookup speed          present key   absent key\n");
  std::printf("Get, filters on       %8.0f ns  %8.0f ns\n", on.get_present, on.get_absent);
  std::printf("Get, filters off      %8.0f ns  %8.0f ns\n", off.get_present, off.get_absent);
  std::printf("MultiGet(256), on     %8.0f ns  %8.0f ns\n", on.multiget_present,
              on.multiget_absent);
  std::printf(
      "(files are mmap'd and stay in the page cache; without filters every "
      "file whose key range holds the key is searched)\n");
  if (options.storage_lookups > 0) {
    s = RunStorageDemo(dir, edit, present, absent, options.storage_lookups);
    if (!s.ok()) return s;
  }
  if (options.memory_lookups > 0) {
    s = RunMemoryDemo(dir, layout, options.memory_lookups);
    if (!s.ok()) return s;
  }
  if (options.dir.empty()) {
    for (uint64_t f = 1; f <= num_files; ++f) {
      ::unlink(absl::StrCat(dir, "/", f, ".sst").c_str());
    }
    ::rmdir(dir.c_str());
  }
  return absl::OkStatus();
}

}  // namespace demo
}  // namespace lsmbloom
