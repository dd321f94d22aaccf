// kvstore: the command line of Store.
//
//   bazel run //:kvstore -- --dir=/tmp/x put KEY VALUE
//
// Every invocation opens the store from its MANIFEST and flushes what it
// wrote before exiting, so state carries over to the next one.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "store.h"

ABSL_FLAG(std::string, dir, "",
          "The store directory. put, delete and bulk-load create it (not its "
          "parents) if missing.");

ABSL_FLAG(double, filter_budget_bits_per_key, 0,
          "If > 0, new tables get the bits/key per level that split this many "
          "filter bits per entry of the store across the levels to minimise "
          "false-positive reads (lsmbloom/lookup/filter_budget.h); 0: 10 bits/key "
          "in every level.");

namespace kvstore {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitNotFound = 1;
constexpr int kExitError = 2;

constexpr char kUsage[] = R"(a key-value store on lsmbloom's Bloom-filtered tables.

usage: kvstore --dir=DIR COMMAND [ARGS]

commands:
  put KEY VALUE   store VALUE under KEY
  get KEY         print KEY's value; if it has none, print "not found" to
                  stderr and exit with status 1
  delete KEY      remove KEY
  bulk-load N     put keys key000000000000 .. key(N-1) with generated values,
                  flushing and compacting as it goes (progress on stderr)
  stats           files, entries and filter memory per level, and each
                  level's filter counters over 10000 lookups of absent keys

Exit status: 0 success, 1 key not found (get), 2 error. A KEY or VALUE that
starts with '-' goes after "--": kvstore --dir=DIR -- put k -1)";

constexpr int64_t kBulkLoadProgressEvery = 100000;
constexpr int kStatsProbes = 10000;

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "kvstore: %s\n", std::string(status.message()).c_str());
  return kExitError;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "kvstore: %s (see --help)\n", message.c_str());
  return kExitError;
}

// "L0 2, L1 5": the non-empty levels.
std::string FilesPerLevel(const Store& store) {
  std::string out;
  const auto levels = store.files();
  for (size_t level = 0; level < levels.size(); ++level) {
    if (levels[level].empty()) continue;
    absl::StrAppend(&out, out.empty() ? "" : ", ", "L", level, " ", levels[level].size());
  }
  return out.empty() ? "none" : out;
}

int RunPut(Store& store, const std::vector<std::string>& args) {
  absl::Status s = store.Put(args[0], args[1]);
  return s.ok() ? kExitOk : Fail(s);
}

int RunGet(Store& store, const std::vector<std::string>& args) {
  absl::StatusOr<std::optional<std::string>> value = store.Get(args[0]);
  if (!value.ok()) return Fail(value.status());
  if (!value->has_value()) {
    std::fprintf(stderr, "not found\n");
    return kExitNotFound;
  }
  std::fwrite((*value)->data(), 1, (*value)->size(), stdout);
  std::fputc('\n', stdout);
  return kExitOk;
}

int RunDelete(Store& store, const std::vector<std::string>& args) {
  absl::Status s = store.Delete(args[0]);
  return s.ok() ? kExitOk : Fail(s);
}

// The key numbers have 12 digits.
constexpr int64_t kMaxBulkLoad = 1000000000000;

absl::StatusOr<int64_t> ParseBulkLoadCount(const std::string& word) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(word, &n) || n < 0 || n > kMaxBulkLoad) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bulk-load: N must be a whole number from 0 to ", kMaxBulkLoad, ", not '", word,
        "'"));
  }
  return n;
}

absl::Status CheckBulkLoad(const std::vector<std::string>& args) {
  return ParseBulkLoadCount(args[0]).status();
}

int RunBulkLoad(Store& store, const std::vector<std::string>& args) {
  absl::StatusOr<int64_t> count = ParseBulkLoadCount(args[0]);
  if (!count.ok()) return Fail(count.status());
  const int64_t n = *count;
  const absl::Time start = absl::Now();
  for (int64_t i = 0; i < n; ++i) {
    // The store flushes every memtable_max_entries keys and compacts then.
    absl::Status s =
        store.Put(absl::StrFormat("key%012d", i), absl::StrFormat("value%012d", i));
    if (!s.ok()) return Fail(s);
    if ((i + 1) % kBulkLoadProgressEvery == 0 || i + 1 == n) {
      std::fprintf(stderr, "bulk-load: %lld/%lld keys, %.1f s, files: %s\n",
                   static_cast<long long>(i + 1), static_cast<long long>(n),
                   absl::ToDoubleSeconds(absl::Now() - start), FilesPerLevel(store).c_str());
    }
  }
  return kExitOk;
}

int RunStats(Store& store, const std::vector<std::string>&) {
  const auto levels = store.files();
  std::printf("store %s: last sequence %llu, memtable %zu entries\n\n", store.dir().c_str(),
              static_cast<unsigned long long>(store.last_sequence()),
              store.memtable_entries());
  std::printf("%-6s %6s %12s %11s %10s %11s %9s\n", "level", "files", "entries",
              "tombstones", "data MiB", "filter KiB", "bits/key");
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
    std::printf("L%-5zu %6zu %12llu %11llu %10.2f %11.1f %9.2f\n", level,
                levels[level].size(), static_cast<unsigned long long>(entries),
                static_cast<unsigned long long>(tombstones), bytes / 1048576.0,
                filter / 1024.0, entries == 0 ? 0.0 : 8.0 * filter / entries);
  }
  std::printf("%-6s %6llu %12llu %11llu %10.2f %11.1f %9.2f\n", "total",
              static_cast<unsigned long long>(total_files),
              static_cast<unsigned long long>(total_entries),
              static_cast<unsigned long long>(total_tombstones), total_bytes / 1048576.0,
              total_filter / 1024.0,
              total_entries == 0 ? 0.0 : 8.0 * total_filter / total_entries);
  if (unfiltered > 0) {
    std::printf("%llu tables have no usable filter (%s)\n",
                static_cast<unsigned long long>(unfiltered), unfiltered_reason.c_str());
  }
  if (total_files == 0) return kExitOk;

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
    if (!value.ok()) return Fail(value.status());
    found += value->has_value();
  }
  const lsmbloom::LookupStats stats = store.lookup_stats();
  std::printf("\nfilters over %d lookups of absent keys:\n", kStatsProbes);
  std::printf("%-6s %7s %9s %10s %10s %13s %14s %12s\n", "level", "bits/k", "checked",
              "ruled out", "false pos", "observed FPR", "predicted FPR", "block reads");
  for (size_t level = 0; level < levels.size(); ++level) {
    const lsmbloom::LevelStats& l = stats.levels[level];
    if (l.files == 0) continue;
    std::printf("L%-5zu %7.2f %9llu %10llu %10llu %12.3f%% %13.3f%% %12llu\n", level,
                l.bits_per_key, static_cast<unsigned long long>(l.filters_checked),
                static_cast<unsigned long long>(l.filters_ruled_out),
                static_cast<unsigned long long>(l.filters_positive - l.filters_true_positive),
                100 * l.observed_fpr(), 100 * l.predicted_fpr,
                static_cast<unsigned long long>(l.data_block_reads));
  }
  std::printf("filter memory: %.1f KiB in all\n", stats.total_filter_bytes / 1024.0);
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
  std::printf("false-positive reads per absent lookup: %.4f observed, %.4f predicted; "
              "%.4f predicted for %.2f bits/key in every level\n",
              stats.false_positives_per_lookup(), stats.PredictedFalsePositiveReads(),
              uniform.ok() ? uniform->expected_cost : 0.0, even);
  if (found > 0) {
    std::printf("(%d probes were keys the store has; the counters leave them out of the FPR)\n",
                found);
  }
  return kExitOk;
}

struct Command {
  const char* name;
  const char* args;  // For usage errors.
  size_t num_args;
  bool writes;  // Creates the store if there is none.
  absl::Status (*check)(const std::vector<std::string>& args);  // Or null.
  int (*run)(Store& store, const std::vector<std::string>& args);
};

constexpr Command kCommands[] = {
    {"put", "KEY VALUE", 2, true, nullptr, RunPut},
    {"get", "KEY", 1, false, nullptr, RunGet},
    {"delete", "KEY", 1, true, nullptr, RunDelete},
    {"bulk-load", "N", 1, true, CheckBulkLoad, RunBulkLoad},
    {"stats", "", 0, false, nullptr, RunStats},
};

// `bazel run` starts the binary in its runfiles; a relative --dir means
// the directory it was run from.
std::string ResolveDir(const std::string& dir) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (dir.empty() || dir[0] == '/' || cwd == nullptr) return dir;
  return absl::StrCat(cwd, "/", dir);
}

int Run(const std::vector<std::string>& words) {
  if (words.empty()) return UsageError("no command given");
  const Command* command = nullptr;
  for (const Command& c : kCommands) {
    if (words[0] == c.name) command = &c;
  }
  if (command == nullptr) return UsageError(absl::StrCat("unknown command '", words[0], "'"));
  const std::vector<std::string> args(words.begin() + 1, words.end());
  if (args.size() != command->num_args) {
    return UsageError(absl::StrCat("usage: kvstore --dir=DIR ", command->name,
                                   *command->args ? " " : "", command->args));
  }
  const std::string dir = ResolveDir(absl::GetFlag(FLAGS_dir));
  if (dir.empty()) return UsageError("--dir is required");
  if (command->check != nullptr) {
    absl::Status s = command->check(args);
    if (!s.ok()) return Fail(s);
  }

  StoreOptions options;
  options.create_if_missing = command->writes;
  options.filter_budget_bits_per_key = absl::GetFlag(FLAGS_filter_budget_bits_per_key);
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, options);
  if (!store.ok()) return Fail(store.status());
  const int code = command->run(**store, args);
  absl::Status s = (*store)->Close();  // Flushes: the next invocation sees it all.
  if (!s.ok()) return Fail(s);
  return code;
}

}  // namespace
}  // namespace kvstore

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kvstore::kUsage);
  // --help lists the flags of this file (by default Abseil looks for a file
  // named after the binary).
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "main.cc");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
  const std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  return kvstore::Run(std::vector<std::string>(positional.begin() + 1, positional.end()));
}
