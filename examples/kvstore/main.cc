// kvstore: the command line of Store.
//
//   bazel run //:kvstore -- --dir=/tmp/x put KEY VALUE
//
// Every invocation opens the store from its MANIFEST and flushes what it
// wrote before exiting, so state carries over to the next one.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "load.h"
#include "lsmbloom/lookup/lookup.h"
#include "shell.h"
#include "stats_report.h"
#include "store.h"

ABSL_FLAG(std::string, dir, "",
          "The store directory. put, delete and bulk-load create it (not its "
          "parents) if missing.");

ABSL_FLAG(double, filter_budget_bits_per_key, 0,
          "If > 0, new tables get the bits/key per level that split this many "
          "filter bits per entry of the store across the levels to minimise "
          "false-positive reads (lsmbloom/filter_budget.h); 0: 10 bits/key "
          "in every level.");

ABSL_FLAG(size_t, memtable_bytes, kvstore::StoreOptions().memtable_max_bytes,
          "Flush the memtable to a level-0 table once it holds about this many "
          "bytes of keys, values and per-entry overhead.");

ABSL_FLAG(std::vector<std::string>, bits_per_key, {},
          "Filter bits/key for new tables, per level: '10' for every level, "
          "'14,12,10' for level 0, level 1, and 10 for all deeper levels; 0 "
          "writes no filter. Default: 10 everywhere. Ignored when "
          "--filter_budget_bits_per_key is set.");

ABSL_FLAG(std::string, sync, "interval:100",
          "When the write-ahead log is synced to disk: 'always' (before each "
          "write is acknowledged), 'interval:MS' (by a background thread at "
          "most MS milliseconds after a write) or 'never' (left to the OS). A "
          "killed process loses no acknowledged write under any of them; a "
          "power failure loses what was not synced.");

ABSL_FLAG(std::string, from, "", "scan: the first key (inclusive); default: the start.");
ABSL_FLAG(std::string, to, "", "scan: the key to stop before (exclusive); default: the end.");
ABSL_FLAG(size_t, limit, 0, "scan: print at most this many keys; 0: all.");
ABSL_FLAG(int, level, -1,
          "compact: merge this level into the next one; -1 (default): every "
          "level into the deepest.");

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
  scan            print KEY<TAB>VALUE for each live key in [--from, --to),
                  in key order, newest value of each, at most --limit keys
  compact         merge every level into the deepest non-empty one; with
                  --level=N, merge level N into level N+1
  load FILE       put each line KEY<TAB>VALUE of FILE (checked whole first: a
                  bad line, named by number, writes nothing); progress on
                  stderr. put-file is the same command
  shell           read commands from stdin, one per line, and answer each
                  on one line (put, get, delete, scan, batch FILE, flush,
                  compact, stats, help, quit): one process for many writes
  bulk-load N     put keys key000000000000 .. key(N-1) with generated values,
                  flushing and compacting as it goes (progress on stderr)
  stats           files, entries and filter memory per level, and each
                  level's filter counters over 10000 lookups of absent keys
  help            this text (also --help)

Exit status: 0 success (and --help), 1 key not found (get), 2 error. A KEY
or VALUE that starts with '-' goes after "--": kvstore --dir=DIR -- put k -1)";

constexpr int64_t kBulkLoadProgressEvery = 100000;

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
    return absl::InvalidArgumentError(absl::StrCat("bulk-load: N must be a whole number from 0 to ",
                                                   kMaxBulkLoad, ", not '", word, "'"));
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
    absl::Status s = store.Put(absl::StrFormat("key%012d", i), absl::StrFormat("value%012d", i));
    if (!s.ok()) return Fail(s);
    if ((i + 1) % kBulkLoadProgressEvery == 0 || i + 1 == n) {
      std::fprintf(stderr, "bulk-load: %lld/%lld keys, %.1f s, files: %s\n",
                   static_cast<long long>(i + 1), static_cast<long long>(n),
                   absl::ToDoubleSeconds(absl::Now() - start), FilesPerLevel(store).c_str());
    }
  }
  return kExitOk;
}

int RunLoad(Store& store, const std::vector<std::string>& args) {
  absl::StatusOr<uint64_t> n = LoadTsv(store, args[0], stderr);
  return n.ok() ? kExitOk : Fail(n.status());
}

int RunShellCommand(Store& store, const std::vector<std::string>&) {
  RunShell(store, stdin, stdout);
  return kExitOk;
}

int RunScan(Store& store, const std::vector<std::string>&) {
  Store::ScanRange range;
  range.from = absl::GetFlag(FLAGS_from);
  range.to = absl::GetFlag(FLAGS_to);
  range.limit = absl::GetFlag(FLAGS_limit);
  absl::Status s = store.Scan(range, [](std::string_view key, std::string_view value) {
    std::fwrite(key.data(), 1, key.size(), stdout);
    std::fputc('\t', stdout);
    std::fwrite(value.data(), 1, value.size(), stdout);
    std::fputc('\n', stdout);
    return true;
  });
  return s.ok() ? kExitOk : Fail(s);
}

absl::Status CheckCompact(const std::vector<std::string>&) {
  const int level = absl::GetFlag(FLAGS_level);
  if (level < -1 || level >= lsmbloom::kNumLevels - 1) {
    return absl::InvalidArgumentError(absl::StrCat("compact: --level must be from 0 to ",
                                                   lsmbloom::kNumLevels - 2, ", or -1 for all"));
  }
  return absl::OkStatus();
}

int RunCompact(Store& store, const std::vector<std::string>&) {
  const int level = absl::GetFlag(FLAGS_level);
  absl::Status s = level < 0 ? store.CompactAll() : store.CompactLevel(level);
  if (!s.ok()) return Fail(s);
  std::fprintf(stderr, "compact: files: %s\n", FilesPerLevel(store).c_str());
  return kExitOk;
}

int RunStats(Store& store, const std::vector<std::string>&) {
  absl::Status s = PrintStats(store, stdout);
  return s.ok() ? kExitOk : Fail(s);
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
    {"load", "FILE", 1, true, nullptr, RunLoad},
    {"put-file", "FILE", 1, true, nullptr, RunLoad},
    {"shell", "", 0, true, nullptr, RunShellCommand},
    {"bulk-load", "N", 1, true, CheckBulkLoad, RunBulkLoad},
    {"scan", "[--from=KEY] [--to=KEY] [--limit=N]", 0, false, nullptr, RunScan},
    {"compact", "[--level=N]", 0, false, CheckCompact, RunCompact},
    {"stats", "", 0, false, nullptr, RunStats},
};

// The usage text, then each of this program's flags with its default.
void PrintHelp() {
  std::printf("%s\n\nflags:\n", kUsage);
  std::vector<absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::EndsWith(flag->Filename(), "main.cc")) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  for (const absl::CommandLineFlag* flag : flags) {
    std::printf("  --%s (default '%s')\n      %s\n", std::string(flag->Name()).c_str(),
                flag->DefaultValue().c_str(), flag->Help().c_str());
  }
}

// Store options from the flags.
absl::StatusOr<StoreOptions> OptionsFromFlags() {
  StoreOptions options;
  options.memtable_max_bytes = absl::GetFlag(FLAGS_memtable_bytes);
  options.filter_budget_bits_per_key = absl::GetFlag(FLAGS_filter_budget_bits_per_key);
  absl::StatusOr<WalSync> sync = ParseWalSync(absl::GetFlag(FLAGS_sync));
  if (!sync.ok()) return sync.status();
  options.wal_sync = *sync;
  for (const std::string& word : absl::GetFlag(FLAGS_bits_per_key)) {
    double bits = 0;
    if (!absl::SimpleAtod(word, &bits)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--bits_per_key: '", word, "' is not a number"));
    }
    options.level_bits_per_key.push_back(bits);
  }
  return options;
}

// `bazel run` starts the binary in its runfiles; a relative --dir means
// the directory it was run from.
std::string ResolveDir(const std::string& dir) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (dir.empty() || dir[0] == '/' || cwd == nullptr) return dir;
  return absl::StrCat(cwd, "/", dir);
}

int Run(const std::vector<std::string>& words) {
  if (words.empty()) return UsageError("no command given");
  if (words[0] == "help") {
    PrintHelp();
    return kExitOk;
  }
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

  absl::StatusOr<StoreOptions> options = OptionsFromFlags();
  if (!options.ok()) return Fail(options.status());
  options->create_if_missing = command->writes;
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(dir, *options);
  if (!store.ok()) return Fail(store.status());
  for (const std::string& note : (*store)->recovery_notes()) {
    std::fprintf(stderr, "kvstore: recovery: %s\n", note.c_str());
  }
  const int code = command->run(**store, args);
  absl::Status s = (*store)->Close();  // Flushes: the next invocation sees it all.
  if (!s.ok()) return Fail(s);
  return code;
}

}  // namespace
}  // namespace kvstore

// True if the command line asks for help: Abseil's own --help exits with
// status 1, which this program keeps for "not found".
bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "-h" || arg == "-help" || arg == "--help" || arg == "-helpfull" ||
        arg == "--helpfull" || arg == "--helpshort") {
      return true;
    }
  }
  return false;
}

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kvstore::kUsage);
  if (WantsHelp(argc, argv)) {
    kvstore::PrintHelp();
    return kvstore::kExitOk;
  }
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
