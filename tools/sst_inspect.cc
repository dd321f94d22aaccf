// sst_inspect: looks inside lsmbloom SSTables, filter included, as RocksDB's
// sst_dump and LevelDB's leveldbutil do. This file is the command line:
// flags, help, files, exit status; each command is sst_inspect_<name>.cc.
//
// Text for people by default, one JSON document with --json (the schema is
// in docs/SST_INSPECT.md). Exit status: 0 fine, 1 a file could not be read
// or has a problem (or get found no value), 2 the command line is wrong.
// Errors are one line on stderr: "sst_inspect: <file>: <reason>".

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/simd.h"
#include "tools/sst_inspect_commands.h"

ABSL_FLAG(bool, json, false,
          "print one JSON document (schema: docs/SST_INSPECT.md) instead of text");
ABSL_FLAG(bool, hex, false,
          "write keys and values as hex digits, and read KEY, --from, --to and --keys-from so");
ABSL_FLAG(bool, quiet, false, "no progress lines on stderr during long passes");
ABSL_FLAG(uint64_t, probes, 100000,
          "generated keys outside the key range to measure the FPR with; 0 skips them");
ABSL_FLAG(uint64_t, range_probes, 10000,
          "keys inside the key range (a table key, a 0 byte, 8 hex digits) to measure the "
          "FPR with; 0 skips them");
ABSL_FLAG(std::string, keys_from, "",
          "also measure the FPR on the keys of this file, one a line (\\xNN escapes, or hex "
          "with --hex); keys the table holds are excluded");
ABSL_FLAG(std::string, from, "", "first key to show (inclusive; \\xNN escapes)");
ABSL_FLAG(std::string, to, "", "key to stop before (exclusive; \\xNN escapes)");
ABSL_FLAG(int64_t, limit, -1, "show at most this many entries; negative: all");
ABSL_FLAG(bool, keys_only, false, "entries without their values");
ABSL_FLAG(bool, count_only, false, "only the number of entries in the range");
ABSL_FLAG(bool, skip_damaged, false,
          "report each damaged data block on stderr and go on past it, instead of stopping "
          "(salvage; the exit status is still 1)");

namespace lsmbloom {
namespace inspect {
namespace {

struct Command {
  const char* name;
  const char* args;                // As the usage line shows them.
  const char* summary;             // One line for the command list.
  const char* details;             // The rest of the command's --help.
  std::vector<std::string> flags;  // Besides --json and --hex.
  size_t min_args, max_args;
};

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"props",
       "PATH...",
       "footer, layout, counts, filter parameters, every property",
       "Prints, per table: size, format version and unique id, creation time, entry\n"
       "and key counts, key range, where each block is, the filter (policy, size,\n"
       "whether it is trusted and if not why, bits/key, k, blocks, hash, predicted FPR)\n"
       "and every property as recorded. Reads no data blocks. Over several files, a\n"
       "total follows.",
       {},
       1,
       SIZE_MAX},
      {"blocks",
       "PATH...",
       "every data block, the index and the meta-index",
       "Prints, per data block: number, offset, stored and raw size, compression,\n"
       "entries, restart points, first and last key; then each index entry (separator\n"
       "and block) and each meta-index entry (name and block). Each data block is read\n"
       "and checked on its own: a damaged one is named and the rest still listed.\n"
       "Exits 1 if any is damaged.",
       {},
       1,
       SIZE_MAX},
      {"sizes",
       "PATH...",
       "key and value sizes, entries per block, recompression",
       "Prints key and value sizes (count, min, mean, max, total, and a histogram by\n"
       "powers of two), entries and raw bytes per data block, and what the data blocks\n"
       "would take stored with no compression, snappy and zstd, as the table builder\n"
       "stores them (compressed only when that saves 1/8).",
       {},
       1,
       SIZE_MAX},
      {"filter",
       "PATH...",
       "filter kind, bits/key, health, predicted and measured FPR",
       "Prints the filter's kind (blocked bloom, ribbon, classic bloom) and bits/key;\n"
       "reads every entry to recompute the keys the filter was built from and counts\n"
       "those it rules out; for a blocked Bloom filter places each in its filter block,\n"
       "and prints the fraction of bits set, the spread of keys per block (with a\n"
       "histogram next to a Poisson spread of the same mean); then false-positive\n"
       "rates: the model's (Bloom or Ribbon), the one a blocked filter's fill predicts,\n"
       "and ones measured on --probes generated keys outside the key range,\n"
       "--range-probes keys inside it, and the keys of --keys-from; every probe is first\n"
       "verified absent by an unfiltered lookup. Exits 1 if the filter is corrupt or\n"
       "rules out a key the table holds.",
       {"probes", "range_probes", "keys_from"},
       1,
       SIZE_MAX},
      {"verify",
       "PATH...",
       "checksums, order, lookups and filter of every key",
       "Opens each table (verifying the footer, index, meta-index, properties and\n"
       "filter checksums), checks every data block on its own, reads every entry and\n"
       "checks order and properties, looks every key up, and asks the filter about\n"
       "every key and prefix: one it rules out is a false negative. Exits 1 on any\n"
       "problem, naming the block or key. Over several files, a total follows.",
       {},
       1,
       SIZE_MAX},
      {"scan",
       "PATH...",
       "entries in LSM order, between --from and --to",
       "Prints entries one a line: key, @sequence, type, and value. Several files (or a\n"
       "directory) are merged: keys ascending, and for one key the newest entry (highest\n"
       "sequence number) first; each line then starts with its file. Keys and values are\n"
       "quoted, with \\xNN for bytes that are not printable ASCII and for '\"' and '\\'\n"
       "(or hex with --hex). --from and --to take the same form; --from after --to is\n"
       "a usage error. A damaged block stops the scan with an error naming the file and\n"
       "offset (exit 1): the listing is then partial. --skip-damaged reports each damaged\n"
       "block and goes on. Two files holding different entries for one key at one\n"
       "sequence number are reported (exit 1): their order cannot be known.",
       {"from", "to", "limit", "keys_only", "count_only", "skip_damaged"},
       1,
       SIZE_MAX},
      {"get",
       "PATH... KEY",
       "the newest entry for KEY, and what each filter says",
       "Looks KEY up without the filter in every file and prints the newest entry: the\n"
       "one with the highest sequence number (never decided by file names or times), or\n"
       "\"not found\"; then, per file, what it holds and what its filter answers: maybe,\n"
       "no, none, untrusted, or prefixes_only. KEY takes \\xNN escapes (hex with --hex).\n"
       "Exits 1 when the key has no value (not found or deleted), as kvstore's get does,\n"
       "when a filter rules out a key its table holds, when a file cannot be read (a\n"
       "newer entry may be in it), or when two files hold different entries at the\n"
       "newest sequence number (\"ambiguous\": their order cannot be known).",
       {},
       2,
       SIZE_MAX},
      {"dump",
       "PATH OFFSET",
       "the raw bytes of one whole block, as a hex dump",
       "Prints the block that starts at OFFSET (as blocks lists them: data, index,\n"
       "meta-index, properties or filter) with its 9-byte trailer, as a hex dump with\n"
       "file offsets, read as stored and unchecked, then says whether the block passes\n"
       "its checks. For salvage: a damaged block's bytes are still shown (exit 1). An\n"
       "OFFSET where no block starts is a usage error that names the block around it.",
       {},
       2,
       2},
  };
  return *commands;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: sst_inspect COMMAND [flags] ARGS...\n"
               "Looks inside lsmbloom SSTables, filter included. PATH is a table or a\n"
               "directory of *.sst tables; relative paths work under `bazel run`.\n\n"
               "commands:\n");
  for (const Command& c : Commands()) {
    std::fprintf(out, "  %-6s %-11s  %s\n", c.name, c.args, c.summary);
  }
  std::fprintf(out,
               "  help   [COMMAND]    this text, or a command's\n\n"
               "Every command takes --json (one JSON document, docs/SST_INSPECT.md), --hex,\n"
               "--quiet and --help; --version prints the version. Exit status: 0 fine, 1 a\n"
               "file is unreadable or has a problem (or get found no value), 2 a usage error.\n");
}

void PrintFlagHelp(const std::string& name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  std::string shown = name;
  std::replace(shown.begin(), shown.end(), '_', '-');
  std::printf("  --%-13s %s (default: %s)\n", shown.c_str(), flag->Help().c_str(),
              flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue().c_str());
}

void PrintCommandHelp(const Command& c) {
  std::printf("usage: sst_inspect %s [flags] %s\n%s\n\nflags:\n", c.name, c.args, c.details);
  for (const std::string& flag : c.flags) PrintFlagHelp(flag);
  PrintFlagHelp("json");
  PrintFlagHelp("hex");
  PrintFlagHelp("quiet");
  std::printf("  --help          this text\n");
}

// ---------------------------------------------------------------- arguments

struct FlagArg {
  std::string name, value;
};

struct Arguments {
  std::vector<std::string> positional;  // The command first.
  std::vector<FlagArg> flags;
  bool help = false;
  bool version = false;
};

// The flag "--name" stands for: its own, or for "--noname" a boolean's.
const absl::CommandLineFlag* LookUpFlag(const std::string& name, bool* negated) {
  *negated = false;
  if (const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name)) return f;
  if (!absl::StartsWith(name, "no")) return nullptr;
  const absl::CommandLineFlag* f = absl::FindCommandLineFlag(name.substr(2));
  if (f == nullptr || !f->IsOfType<bool>()) return nullptr;
  *negated = true;
  return f;
}

// Splits argv into flags (-x, --x, --x=v, --x v, --nox) and positional
// arguments; "--" ends the flags.
absl::StatusOr<Arguments> SplitArguments(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      a.positional.insert(a.positional.end(), argv + i + 1, argv + argc);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      a.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
    if (name == "help" || name == "h") {
      a.help = true;
      continue;
    }
    if (name == "version") {
      a.version = true;
      continue;
    }
    const size_t eq = name.find('=');
    std::string value = eq == std::string::npos ? "" : name.substr(eq + 1);
    name = name.substr(0, eq);
    // --keys-only and --keys_only alike.
    std::replace(name.begin(), name.end(), '-', '_');
    bool negated;
    const absl::CommandLineFlag* flag = LookUpFlag(name, &negated);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag ", arg.substr(0, arg.find('='))));
    }
    if (negated) {
      if (eq != std::string::npos) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      }
      value = "false";
    } else if (eq == std::string::npos) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::InvalidArgumentError("--" + name + " needs a value");
      }
    }
    a.flags.push_back(FlagArg{std::string(flag->Name()), value});
  }
  return a;
}

// Sets the flags `command` accepts; anything else is a usage error.
absl::Status ApplyFlags(const Command& command, const std::vector<FlagArg>& flags) {
  for (const FlagArg& f : flags) {
    const bool allowed =
        f.name == "json" || f.name == "hex" || f.name == "quiet" ||
        std::find(command.flags.begin(), command.flags.end(), f.name) != command.flags.end();
    if (!allowed) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", f.name, " does not apply to ", command.name));
    }
    std::string error;
    if (!absl::FindCommandLineFlag(f.name)->ParseFrom(f.value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--", f.name, ": ", error));
    }
  }
  return absl::OkStatus();
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "sst_inspect: %s\n", message.c_str());
  return kExitUsage;
}

// `help`, `help COMMAND`, `--help`, `COMMAND --help`.
int Help(const Arguments& a) {
  std::vector<std::string> words = a.positional;
  if (!words.empty() && words[0] == "help") words.erase(words.begin());
  if (words.empty()) {
    PrintUsage(stdout);
    return kExitOk;
  }
  const Command* c = FindCommand(words[0]);
  if (c == nullptr) return UsageError(absl::StrCat("unknown command '", words[0], "'"));
  PrintCommandHelp(*c);
  return kExitOk;
}

absl::StatusOr<std::string> ParseArg(const Style& style, const std::string& what,
                                     const std::string& text) {
  absl::StatusOr<std::string> bytes = ParseBytes(style, text);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", bytes.status().message()));
  }
  return bytes;
}

// The options from the flags, with KEY, --from and --to decoded.
absl::StatusOr<Options> MakeOptions(const Command& command, std::vector<std::string>* args,
                                    std::string* key) {
  Options o;
  o.style.json = absl::GetFlag(FLAGS_json);
  o.style.hex = absl::GetFlag(FLAGS_hex);
  o.style.progress = !absl::GetFlag(FLAGS_quiet) && isatty(STDERR_FILENO);
  o.probes = absl::GetFlag(FLAGS_probes);
  o.range_probes = absl::GetFlag(FLAGS_range_probes);
  if (!absl::GetFlag(FLAGS_keys_from).empty()) {
    o.keys_from = ResolvePath(absl::GetFlag(FLAGS_keys_from));
  }
  o.limit = absl::GetFlag(FLAGS_limit);
  o.keys_only = absl::GetFlag(FLAGS_keys_only);
  o.count_only = absl::GetFlag(FLAGS_count_only);
  o.skip_damaged = absl::GetFlag(FLAGS_skip_damaged);
  if (std::string_view(command.name) == "get") {
    absl::StatusOr<std::string> k = ParseArg(o.style, "KEY", args->back());
    if (!k.ok()) return k.status();
    *key = *k;
    args->pop_back();
  }
  absl::StatusOr<std::string> from = ParseArg(o.style, "--from", absl::GetFlag(FLAGS_from));
  if (!from.ok()) return from.status();
  absl::StatusOr<std::string> to = ParseArg(o.style, "--to", absl::GetFlag(FLAGS_to));
  if (!to.ok()) return to.status();
  o.from = *from;
  o.to = *to;
  if (!o.from.empty() && !o.to.empty() && o.from > o.to) {
    return absl::InvalidArgumentError(absl::StrCat("--from ", Quoted(o.style, o.from),
                                                   " is after --to ", Quoted(o.style, o.to),
                                                   ": the range is empty"));
  }
  return o;
}

int Run(const Command& command, const Options& o, std::vector<std::string> args,
        const std::string& key) {
  uint64_t offset = 0;
  if (std::string_view(command.name) == "dump") {
    if (!absl::SimpleAtoi(args.back(), &offset)) {
      return UsageError(absl::StrCat("dump: OFFSET '", args.back(), "' is not a number"));
    }
    args.pop_back();
    std::error_code ec;
    if (std::filesystem::is_directory(ResolvePath(args[0]), ec)) {
      return UsageError("dump: PATH must be one table file, not a directory");
    }
  }
  Json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["command"] = command.name;
  doc["files"] = Json::array();
  const std::string name = command.name;
  std::vector<std::pair<std::string, absl::Status>> errors;
  const std::vector<InputFile> files =
      ExpandFiles(args, /*lsm_order=*/name == "scan" || name == "get", &errors);
  for (const auto& [path, status] : errors) doc["files"].push_back(FileError(path, status));
  int code = kExitOk;
  if (name == "props") code = RunProps(o, files, &doc);
  if (name == "blocks") code = RunBlocks(o, files, &doc);
  if (name == "sizes") code = RunSizes(o, files, &doc);
  if (name == "filter") code = RunFilter(o, files, &doc);
  if (name == "verify") code = RunVerify(o, files, &doc);
  if (name == "scan") code = RunScan(o, files, &doc);
  if (name == "get") code = RunGet(o, files, key, &doc);
  if (name == "dump") code = RunDump(o, files.front(), offset, &doc);
  if (code == kExitUsage) return code;
  if (!errors.empty()) code = kExitProblem;
  if (o.style.json) {
    doc["ok"] = code == kExitOk;
    std::printf("%s\n", doc.dump(2).c_str());
  }
  std::fflush(stdout);
  return code;
}

int Main(int argc, char** argv) {
  // LSMBLOOM_SIMD pins the kernels, as in every tool (answers do not change).
  const absl::Status pinned = PinSimdTargetFromEnvironment();
  if (!pinned.ok()) return UsageError(std::string(pinned.message()));
  absl::StatusOr<Arguments> a = SplitArguments(argc, argv);
  if (!a.ok()) return UsageError(std::string(a.status().message()));
  if (a->version) {
    std::printf(
        "sst_inspect (lsmbloom): reads table format versions 1 to 3; "
        "JSON schema_version %d\n",
        kSchemaVersion);
    return kExitOk;
  }
  if (a->help || (!a->positional.empty() && a->positional[0] == "help")) return Help(*a);
  if (a->positional.empty()) {
    PrintUsage(stderr);
    return kExitUsage;
  }
  const Command* command = FindCommand(a->positional[0]);
  if (command == nullptr) {
    return UsageError(absl::StrCat("unknown command '", a->positional[0],
                                   "'; commands: props, blocks, sizes, filter, verify, scan, "
                                   "get, dump, help"));
  }
  std::vector<std::string> args(a->positional.begin() + 1, a->positional.end());
  if (args.size() < command->min_args || args.size() > command->max_args) {
    return UsageError(
        absl::StrCat(command->name, ": ", args.size() < command->min_args ? "missing" : "too many",
                     " arguments; usage: sst_inspect ", command->name, " [flags] ", command->args));
  }
  absl::Status s = ApplyFlags(*command, a->flags);
  if (!s.ok()) return UsageError(std::string(s.message()));
  std::string key;
  absl::StatusOr<Options> o = MakeOptions(*command, &args, &key);
  if (!o.ok()) return UsageError(std::string(o.status().message()));
  return Run(*command, *o, args, key);
}

}  // namespace
}  // namespace inspect
}  // namespace lsmbloom

int main(int argc, char** argv) { return lsmbloom::inspect::Main(argc, argv); }
