// kvstore: the command line of Store.
//
//   bazel run //:kvstore -- --dir=/tmp/x put KEY VALUE
//
// Every invocation opens the store from its MANIFEST and flushes what it
// wrote before exiting, so state carries over to the next one. Commands
// that only read open it read-only. Exit status: 0 success, 1 key not
// found (get), 2 any error, usage errors included.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "escape.h"
#include "ldb.h"
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
          "false-positive reads (lsmbloom/lookup/filter_budget.h); 0: 10 bits/key "
          "in every level.");

ABSL_FLAG(size_t, memtable_bytes, kvstore::StoreOptions().memtable_max_bytes,
          "Flush the memtable to a level-0 table once it holds about this many "
          "bytes of keys, values and per-entry overhead.");

ABSL_FLAG(std::vector<std::string>, bits_per_key, {},
          "Filter bits/key for new tables, per level: '10' for every level, "
          "'14,12,10' for level 0, level 1, and 10 for all deeper levels; 0 "
          "writes no filter. Default: 10 everywhere. Ignored when "
          "--filter_budget_bits_per_key is set.");

ABSL_FLAG(std::string, filter, "",
          "Filter kind for new tables: 'bloom' (blocked Bloom) or 'ribbon' (Ribbon "
          "filters of the FPR the bits/key gives a blocked one, in ~30% less memory). "
          "Recorded in the store; empty: as recorded (bloom for a new store).");

ABSL_FLAG(int, ribbon_from_level, -1,
          "Ribbon filters for new tables of this level and deeper ones, blocked Bloom "
          "filters above (RocksDB's bloom_before_level); recorded as --filter is. -1: "
          "as --filter says.");

ABSL_FLAG(std::string, sync, "interval:100",
          "When the write-ahead log is synced to disk: 'always' (before each "
          "write is acknowledged), 'interval:MS' (by a background thread at "
          "most MS milliseconds after a write) or 'never' (left to the OS). A "
          "killed process loses no acknowledged write under any of them; a "
          "power failure loses what was not synced.");

ABSL_FLAG(std::string, from, "",
          "scan: the first key (inclusive; escaped, \\xNN); default: the start.");
ABSL_FLAG(std::string, to, "",
          "scan: the key to stop before (exclusive; escaped); default: the end. "
          "--from after --to is an error; --from equal to --to, the empty range.");
ABSL_FLAG(size_t, limit, 0, "scan: print at most this many keys; 0: all.");
ABSL_FLAG(bool, skip_damaged, false,
          "scan: instead of stopping at the first damaged data block, report each on "
          "stderr (file, offset, reason), list the rest, and exit 2 at the end.");
ABSL_FLAG(int, level, -1,
          "compact: merge this level into the next one; -1 (default): every "
          "level into the deepest.");
ABSL_FLAG(bool, read_only, false,
          "Open the store read-only (get, scan, stats and lookup always do): no "
          "lock beyond a shared one, nothing in the directory changed, so a "
          "read-only directory will do; writes fail.");

namespace kvstore {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitNotFound = 1;
constexpr int kExitError = 2;

constexpr char kUsage[] = R"(a key-value store on lsmbloom's Bloom-filtered tables.

usage: kvstore --dir=DIR COMMAND [ARGS]     kvstore COMMAND --help: one command

commands:
  put KEY VALUE   store VALUE under KEY
  get KEY         print KEY's value; if it has none, print "not found" to
                  stderr and exit with status 1
  delete KEY      remove KEY
  scan            print KEY<TAB>VALUE for each live key in [--from, --to),
                  in key order, newest value of each, at most --limit keys;
                  stops at the first damaged block (--skip_damaged: goes on)
  compact         merge every level into the deepest non-empty one; with
                  --level=N, merge level N into level N+1
  load FILE       put each line KEY<TAB>VALUE of FILE, as scan prints them
                  (checked whole first: a bad line, named by number, writes
                  nothing); progress on stderr. put-file is the same command
  shell           read commands from stdin, one per line, and answer each
                  on one line (put, get, delete, scan, batch FILE, flush,
                  compact, stats, help, quit): one process for many writes
  bulk-load N     put keys key000000000000 .. key(N-1) with generated values,
                  flushing and compacting as it goes (progress on stderr)
  stats           files, entries and filter memory per level, and each
                  level's filter counters over 10000 lookups of absent keys
  manifest        the MANIFEST: counters, and each level's files with size,
                  unique id, key range, entries and sequence numbers
  wal [FILE]      the write-ahead logs the next open replays (or FILE),
                  record by record: offset, sequence, each put and delete
  lookup KEY      the places a get of KEY searches, in order, and whether
                  the key range or the filter rules each file out
  help            this text (also --help)

Keys and values, in arguments and in output, are text in which a byte
that is not printable ASCII, or a backslash, is written \xNN (a backslash
itself is \x5c): scan prints one line per key whatever the bytes, and
load reads it back exactly. A key may not be empty; a value may (put KEY
""). get, scan, stats, lookup, manifest and wal only read: they work on a
read-only directory and beside other readers (--read_only makes any
command read-only).

Exit status: 0 success (and --help), 1 key not found (get), 2 any error,
usage errors included. A KEY or VALUE that starts with '-' goes after
"--": kvstore --dir=DIR -- put k -1)";

constexpr int64_t kBulkLoadProgressEvery = 100000;

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "kvstore: %s\n", std::string(status.message()).c_str());
  return kExitError;
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "kvstore: %s (see --help)\n", message.c_str());
  return kExitError;
}

void PrintLine(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
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

// What a command gets: its arguments, KEY and VALUE ones unescaped.
struct Args {
  std::string dir;
  std::vector<std::string> words;
};

int RunPut(Store& store, const Args& args) {
  absl::Status s = store.Put(args.words[0], args.words[1]);
  return s.ok() ? kExitOk : Fail(s);
}

int RunGet(Store& store, const Args& args) {
  absl::StatusOr<std::optional<std::string>> value = store.Get(args.words[0]);
  if (!value.ok()) return Fail(value.status());
  if (!value->has_value()) {
    std::fprintf(stderr, "not found\n");
    return kExitNotFound;
  }
  PrintLine(Escape(**value));
  return kExitOk;
}

int RunDelete(Store& store, const Args& args) {
  absl::Status s = store.Delete(args.words[0]);
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

int RunBulkLoad(Store& store, const Args& args) {
  absl::StatusOr<int64_t> count = ParseBulkLoadCount(args.words[0]);
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

int RunLoad(Store& store, const Args& args) {
  absl::StatusOr<uint64_t> n = LoadTsv(store, args.words[0], stderr);
  return n.ok() ? kExitOk : Fail(n.status());
}

int RunShellCommand(Store& store, const Args&) {
  RunShell(store, stdin, stdout);
  return kExitOk;
}

// --from and --to, unescaped and in order.
absl::StatusOr<Store::ScanRange> ScanRangeFromFlags() {
  Store::ScanRange range;
  absl::StatusOr<std::string> from = Unescape(absl::GetFlag(FLAGS_from));
  if (!from.ok()) return absl::InvalidArgumentError(absl::StrCat("--from: ", from.status().message()));
  absl::StatusOr<std::string> to = Unescape(absl::GetFlag(FLAGS_to));
  if (!to.ok()) return absl::InvalidArgumentError(absl::StrCat("--to: ", to.status().message()));
  if (!to->empty() && *from > *to) {
    return absl::InvalidArgumentError(
        absl::StrCat("scan: --from '", Escape(*from), "' is after --to '", Escape(*to),
                     "' (--from equal to --to is the empty range)"));
  }
  range.from = *std::move(from);
  range.to = *std::move(to);
  range.limit = absl::GetFlag(FLAGS_limit);
  return range;
}

absl::Status CheckScan(const std::vector<std::string>&) { return ScanRangeFromFlags().status(); }

int RunScan(Store& store, const Args&) {
  absl::StatusOr<Store::ScanRange> range = ScanRangeFromFlags();
  if (!range.ok()) return Fail(range.status());
  if (absl::GetFlag(FLAGS_skip_damaged)) {
    range->on_damaged_block = [](const absl::Status& damage) {
      std::fprintf(stderr, "kvstore: scan: skipped a damaged block: %s\n",
                   std::string(damage.message()).c_str());
    };
  }
  absl::Status s = store.Scan(*range, [](std::string_view key, std::string_view value) {
    const std::string line = TsvLine(key, value);
    std::fwrite(line.data(), 1, line.size(), stdout);
    return true;
  });
  if (!s.ok()) {
    std::fflush(stdout);  // What was listed comes before the error that ends it.
    return Fail(absl::Status(s.code(), absl::StrCat("scan stopped: ", s.message())));
  }
  return kExitOk;
}

absl::Status CheckCompact(const std::vector<std::string>&) {
  const int level = absl::GetFlag(FLAGS_level);
  if (level < -1 || level >= lsmbloom::kNumLevels - 1) {
    return absl::InvalidArgumentError(absl::StrCat("compact: --level must be from 0 to ",
                                                   lsmbloom::kNumLevels - 2, ", or -1 for all"));
  }
  return absl::OkStatus();
}

int RunCompact(Store& store, const Args&) {
  const int level = absl::GetFlag(FLAGS_level);
  absl::Status s = level < 0 ? store.CompactAll() : store.CompactLevel(level);
  if (!s.ok()) return Fail(s);
  std::fprintf(stderr, "compact: files: %s\n", FilesPerLevel(store).c_str());
  return kExitOk;
}

int RunStats(Store& store, const Args&) {
  absl::Status s = PrintStats(store, stdout);
  return s.ok() ? kExitOk : Fail(s);
}

int RunLookup(Store& store, const Args& args) {
  absl::Status s = ExplainLookup(store, args.words[0], stdout);
  return s.ok() ? kExitOk : Fail(s);
}

// Commands that read files themselves, without opening the store.
int RunManifest(const Args& args) {
  absl::Status s = DumpManifest(args.dir, stdout);
  return s.ok() ? kExitOk : Fail(s);
}

int RunWal(const Args& args) {
  absl::Status s = args.words.empty() ? DumpWals(args.dir, stdout)
                                      : DumpWal(args.words[0], stdout);
  return s.ok() ? kExitOk : Fail(s);
}

enum class Access {
  kCreate,  // Opens the store to write, creating it if missing.
  kWrite,   // Opens an existing store to write.
  kRead,   // Opens the store read-only.
  kFiles,  // Reads the directory's files; opens no store.
};

struct Command {
  const char* name;
  const char* args;  // For usage lines.
  size_t min_args, max_args;
  size_t escaped_args;  // The first ones are keys or values: unescaped.
  Access access;
  const char* flags;  // This command's own flags, for its --help.
  const char* help;
  absl::Status (*check)(const std::vector<std::string>& args);  // Or null.
  int (*run)(Store& store, const Args& args);                  // kWrite, kRead.
  int (*run_files)(const Args& args);                          // kFiles.
};

constexpr char kStoreFlags[] =
    "memtable_bytes bits_per_key filter_budget_bits_per_key filter ribbon_from_level sync "
    "read_only";

constexpr Command kCommands[] = {
    {"put", "KEY VALUE", 2, 2, 2, Access::kCreate, kStoreFlags,
     "Stores VALUE under KEY (both escaped: \\xNN; VALUE may be \"\").", nullptr, RunPut, nullptr},
    {"get", "KEY", 1, 1, 1, Access::kRead, "read_only",
     "Prints KEY's value, escaped. A key without one: \"not found\" on stderr, status 1.",
     nullptr, RunGet, nullptr},
    {"delete", "KEY", 1, 1, 1, Access::kCreate, kStoreFlags, "Removes KEY.", nullptr, RunDelete,
     nullptr},
    {"load", "FILE", 1, 1, 0, Access::kCreate, kStoreFlags,
     "Puts each line KEY<TAB>VALUE of FILE (escaped, as scan prints them). The file is "
     "checked whole first: a bad line, named by number, writes nothing.",
     nullptr, RunLoad, nullptr},
    {"put-file", "FILE", 1, 1, 0, Access::kCreate, kStoreFlags, "The same as load.", nullptr,
     RunLoad, nullptr},
    {"shell", "", 0, 0, 0, Access::kCreate, kStoreFlags,
     "Reads commands from stdin, one a line, and answers each on one line; 'help' lists them.",
     nullptr, RunShellCommand, nullptr},
    {"bulk-load", "N", 1, 1, 0, Access::kCreate, kStoreFlags,
     "Puts N generated keys, flushing and compacting as it goes.", CheckBulkLoad, RunBulkLoad,
     nullptr},
    {"scan", "[--from=KEY] [--to=KEY] [--limit=N] [--skip_damaged]", 0, 0, 0, Access::kRead,
     "from to limit skip_damaged read_only",
     "Prints KEY<TAB>VALUE (escaped) for each live key in [--from, --to) in key order. Stops "
     "at the first damaged data block with status 2, naming the file and offset, after the "
     "keys before it; with --skip_damaged, reports each damaged block on stderr, lists the "
     "rest, and still exits 2.",
     CheckScan, RunScan, nullptr},
    {"compact", "[--level=N]", 0, 0, 0, Access::kWrite,
     "level memtable_bytes bits_per_key filter ribbon_from_level",
     "Merges every level into the deepest non-empty one; with --level=N, level N into N+1.",
     CheckCompact, RunCompact, nullptr},
    {"stats", "", 0, 0, 0, Access::kRead, "read_only",
     "Files, entries and filter memory per level, and how the filters answer 10000 lookups of "
     "absent keys.",
     nullptr, RunStats, nullptr},
    {"lookup", "KEY", 1, 1, 1, Access::kRead, "read_only",
     "Shows how a get of KEY searches: the memtable, then per level in search order each file "
     "with whether its key range or its filter rules the key out and what reading it found, "
     "until one answers.",
     nullptr, RunLookup, nullptr},
    {"manifest", "", 0, 0, 0, Access::kFiles, "",
     "Prints the MANIFEST: counters, then each level's files with the size and unique id "
     "recorded and found, key range, entries, and sequence numbers (read from each table). "
     "Status 2 if a table is missing, damaged or not the one recorded. Opens no store.",
     nullptr, nullptr, RunManifest},
    {"wal", "[FILE]", 0, 1, 0, Access::kFiles, "",
     "Prints each record of the write-ahead logs the next open would replay (or of FILE): "
     "offset, sequence number, and each put and delete, escaped; then any torn tail. Status "
     "2 for damage in the middle of a log. Opens no store.",
     nullptr, nullptr, RunWal},
};

const Command* FindCommand(std::string_view name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string UsageLine(const Command& c) {
  return absl::StrCat("kvstore --dir=DIR ", c.name, *c.args ? " " : "", c.args);
}

// This program's flags (those defined in this file), by name.
std::vector<absl::CommandLineFlag*> OwnFlags() {
  std::vector<absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::EndsWith(flag->Filename(), "main.cc")) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  return flags;
}

void PrintFlag(const absl::CommandLineFlag& flag) {
  std::printf("  --%s (default '%s')\n      %s\n", std::string(flag.Name()).c_str(),
              flag.DefaultValue().c_str(), flag.Help().c_str());
}

// The usage text, then each of this program's flags with its default; or,
// for one command, its usage, what it does and its flags.
void PrintHelp(const Command* command) {
  if (command == nullptr) {
    std::printf("%s\n\nflags:\n", kUsage);
    for (const absl::CommandLineFlag* flag : OwnFlags()) PrintFlag(*flag);
    return;
  }
  std::printf("usage: %s\n\n%s\n", UsageLine(*command).c_str(), command->help);
  const std::string flags = absl::StrCat("dir ", command->flags);
  std::printf("\nflags:\n");
  for (const absl::CommandLineFlag* flag : OwnFlags()) {
    if (absl::StrContains(absl::StrCat(" ", flags, " "), absl::StrCat(" ", flag->Name(), " "))) {
      PrintFlag(*flag);
    }
  }
  std::printf("\nExit status: 0 success, %s2 any error (usage errors too).\n",
              std::string_view(command->name) == "get" ? "1 not found, " : "");
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
  const std::string filter = absl::GetFlag(FLAGS_filter);
  const int from = absl::GetFlag(FLAGS_ribbon_from_level);
  if (filter != "" && filter != "bloom" && filter != "ribbon") {
    return absl::InvalidArgumentError(
        absl::StrCat("--filter must be bloom or ribbon, got '", filter, "'"));
  }
  if (from != -1 && filter != "") {
    return absl::InvalidArgumentError("give --filter or --ribbon_from_level, not both");
  }
  if (from != -1) options.ribbon_from_level = from;  // Store::Open checks the range.
  if (filter != "") options.ribbon_from_level = filter == "ribbon" ? 0 : -1;
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
    PrintHelp(words.size() > 1 ? FindCommand(words[1]) : nullptr);
    return kExitOk;
  }
  const Command* command = FindCommand(words[0]);
  if (command == nullptr) return UsageError(absl::StrCat("unknown command '", words[0], "'"));
  Args args;
  args.words.assign(words.begin() + 1, words.end());
  if (args.words.size() < command->min_args || args.words.size() > command->max_args) {
    return UsageError(absl::StrCat("usage: ", UsageLine(*command)));
  }
  for (size_t i = 0; i < command->escaped_args; ++i) {
    absl::StatusOr<std::string> bytes = Unescape(args.words[i]);
    if (!bytes.ok()) return UsageError(std::string(bytes.status().message()));
    args.words[i] = *std::move(bytes);
  }
  if (command->escaped_args > 0 && args.words[0].empty()) {
    return UsageError("a key may not be empty");
  }
  args.dir = ResolveDir(absl::GetFlag(FLAGS_dir));
  if (args.dir.empty()) return UsageError("--dir is required");
  if (command->check != nullptr) {
    absl::Status s = command->check(args.words);
    if (!s.ok()) return Fail(s);
  }
  if (command->access == Access::kFiles) return command->run_files(args);

  absl::StatusOr<StoreOptions> options = OptionsFromFlags();
  if (!options.ok()) return Fail(options.status());
  options->read_only = command->access == Access::kRead || absl::GetFlag(FLAGS_read_only);
  options->create_if_missing = command->access == Access::kCreate;
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(args.dir, *options);
  if (!store.ok()) return Fail(store.status());
  for (const std::string& note : (*store)->recovery_notes()) {
    std::fprintf(stderr, "kvstore: recovery: %s\n", note.c_str());
  }
  const int code = command->run(**store, args);
  absl::Status s = (*store)->Close();  // Flushes: the next invocation sees it all.
  if (!s.ok()) return Fail(s);
  return code;
}

// Parses the command line into the flags and the positional words.
// Abseil's own parser exits with status 1, this program's "not found", on
// an unknown flag or a bad value; here those are usage errors (status 2).
// Flag names take '-' for '_' (--skip-damaged); "--" ends the flags.
absl::Status ParseCommandLine(int argc, char** argv, std::vector<std::string>* words, bool* help) {
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      words->emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    arg.remove_prefix(arg[1] == '-' ? 2 : 1);
    const size_t eq = arg.find('=');
    std::string name(arg.substr(0, eq));
    std::replace(name.begin(), name.end(), '-', '_');
    if (name == "help" || name == "h" || name == "helpfull" || name == "helpshort") {
      *help = true;
      continue;
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    bool negated = false;
    if ((flag == nullptr || !absl::EndsWith(flag->Filename(), "main.cc")) &&
        absl::StartsWith(name, "no")) {
      flag = absl::FindCommandLineFlag(name.substr(2));
      negated = true;
    }
    if (flag == nullptr || !absl::EndsWith(flag->Filename(), "main.cc") ||
        (negated && !flag->IsOfType<bool>())) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", argv[i], "'"));
    }
    std::string value;
    if (eq != std::string_view::npos) {
      if (negated) {
        return absl::InvalidArgumentError(absl::StrCat("'", argv[i], "' takes no value"));
      }
      value = std::string(arg.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      value = negated ? "false" : "true";
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("flag '", argv[i], "' needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag->Name(), "='", value, "': ", error));
    }
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace kvstore

int main(int argc, char** argv) {
  std::vector<std::string> words;
  bool help = false;
  const absl::Status parsed = kvstore::ParseCommandLine(argc, argv, &words, &help);
  if (help) {
    // "kvstore scan --help": that command's; otherwise all of it.
    const kvstore::Command* command = nullptr;
    for (const std::string& word : words) {
      if (command == nullptr) command = kvstore::FindCommand(word);
    }
    kvstore::PrintHelp(command);
    return kvstore::kExitOk;
  }
  if (!parsed.ok()) return kvstore::UsageError(std::string(parsed.message()));
  return kvstore::Run(words);
}
