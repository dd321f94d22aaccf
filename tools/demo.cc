// The lsmbloom demo: builds filters from generated keys and shows what they
// save. Run with --help for the knobs.

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "lsmbloom/filter/simd.h"
#include "tools/filter_demo.h"
#include "tools/lsm_demo.h"

ABSL_FLAG(uint64_t, keys, 2000000, "keys in the single-filter demo");
ABSL_FLAG(uint64_t, lsm_keys, 3000000, "keys in the bottom level of the LSM demo");
ABSL_FLAG(uint64_t, lookups, 200000,
          "LSM demo lookups of present keys, and as many of absent keys");
ABSL_FLAG(std::string, dir, "",
          "directory for the LSM demo's table files (default: a temp dir, removed after)");
ABSL_FLAG(uint64_t, absent, 4000000, "absent keys probed to measure the FPR");
ABSL_FLAG(double, bits_per_key, 10.0, "filter bits per key");
ABSL_FLAG(std::string, filter, "bloom",
          "filter kind: bloom (the cache-line-blocked Bloom filter) or ribbon (a Ribbon "
          "filter: about 30% fewer bits for the same FPR, slower to build); both demos");
ABSL_FLAG(bool, filter_budget, false,
          "LSM demo: split the filter memory --bits_per_key would take uniformly "
          "across the levels to minimise false-positive reads (filter_budget.h; "
          "--filter=bloom only)");
ABSL_FLAG(uint64_t, storage_lookups, 2000,
          "lookups of each kind with the tables read from storage (direct reads and a block "
          "cache); 0 skips that part");
ABSL_FLAG(uint64_t, memory_lookups, 200000,
          "lookups of each pass of the filter-memory part: modular filters under a cap of 5 "
          "bits/key following a skewed workload (0 skips it)");
ABSL_FLAG(double, target_fpr, 0.0, "if set, pick bits/key for this false-positive rate instead");
ABSL_FLAG(std::string, simd, "",
          "pin the SIMD target (scalar, sse4, avx2, avx512, ..., best); "
          "default: LSMBLOOM_SIMD or the best the CPU has");

namespace {

constexpr char kUsage[] =
    "Builds a filter (a blocked Bloom filter, or a Ribbon filter with --filter=ribbon) "
    "from generated keys and reports its size, accuracy "
    "(measured next to predicted) and speed; then builds an LSM tree of table "
    "files in several levels and shows, per level, how many file reads the "
    "filters saved and the lookup speed with filters on and off; then reads the same "
    "files from storage (direct reads, a block cache) and shows what a lookup costs there.\n"
    "Usage: demo [flags]";

// Abseil's own --help ends with status 1; asking for help is no error.
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

// The usage and this file's flags, by name.
void PrintHelp() {
  std::printf("%s\n\nflags:\n", kUsage);
  std::vector<absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (absl::EndsWith(flag->Filename(), "tools/demo.cc")) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  for (const absl::CommandLineFlag* flag : flags) {
    std::printf("  --%s (default '%s')\n      %s\n", std::string(flag->Name()).c_str(),
                flag->DefaultValue().c_str(), flag->Help().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  if (WantsHelp(argc, argv)) {
    PrintHelp();
    return 0;
  }
  absl::ParseCommandLine(argc, argv);
  // Flags that only the LSM demo reads are checked before the filter demo
  // runs, so a mistake costs no wait.
  const absl::StatusOr<lsmbloom::demo::FilterKind> kind =
      lsmbloom::demo::ParseFilterKind(absl::GetFlag(FLAGS_filter));
  absl::Status status = kind.status();
  if (status.ok() && *kind == lsmbloom::demo::FilterKind::kRibbon &&
      absl::GetFlag(FLAGS_filter_budget)) {
    status = absl::InvalidArgumentError(
        "--filter_budget sizes blocked Bloom filters (its model is theirs): use it with "
        "--filter=bloom");
  }
  if (status.ok()) {
    status = absl::GetFlag(FLAGS_simd).empty()
                 ? lsmbloom::PinSimdTargetFromEnvironment()
                 : lsmbloom::PinSimdTarget(absl::GetFlag(FLAGS_simd));
  }
  if (status.ok()) {
    lsmbloom::demo::FilterDemoOptions options;
    options.kind = *kind;
    options.num_keys = absl::GetFlag(FLAGS_keys);
    options.num_absent = absl::GetFlag(FLAGS_absent);
    options.bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
    options.target_fpr = absl::GetFlag(FLAGS_target_fpr);
    if (options.num_keys == 0 || options.num_absent == 0) {
      status = absl::InvalidArgumentError("--keys and --absent must be positive");
    } else {
      status = lsmbloom::demo::RunFilterDemo(options);
    }
  }
  if (status.ok()) {
    lsmbloom::demo::LsmDemoOptions lsm;
    lsm.num_keys = absl::GetFlag(FLAGS_lsm_keys);
    lsm.memory_lookups = absl::GetFlag(FLAGS_memory_lookups);
    lsm.lookups = absl::GetFlag(FLAGS_lookups);
    lsm.bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
    lsm.filter_budget = absl::GetFlag(FLAGS_filter_budget);
    lsm.ribbon = *kind == lsmbloom::demo::FilterKind::kRibbon;
    lsm.dir = absl::GetFlag(FLAGS_dir);
    lsm.storage_lookups = absl::GetFlag(FLAGS_storage_lookups);
    if (lsm.num_keys == 0 || lsm.lookups == 0) {
      status = absl::InvalidArgumentError("--lsm_keys and --lookups must be positive");
    } else {
      status = lsmbloom::demo::RunLsmDemo(lsm);
    }
  }
  if (!status.ok()) {
    std::fprintf(stderr, "demo: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
