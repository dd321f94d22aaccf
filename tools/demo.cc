// The lsmbloom demo: builds filters from generated keys and shows what they
// save. Run with --help for the knobs.

#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "lsmbloom/simd.h"
#include "tools/filter_demo.h"

ABSL_FLAG(uint64_t, keys, 2000000, "keys in the single-filter demo");
ABSL_FLAG(uint64_t, absent, 4000000, "absent keys probed to measure the FPR");
ABSL_FLAG(double, bits_per_key, 10.0, "filter bits per key");
ABSL_FLAG(double, target_fpr, 0.0,
          "if set, pick bits/key for this false-positive rate instead");
ABSL_FLAG(std::string, simd, "",
          "pin the SIMD target (scalar, sse4, avx2, avx512, ..., best); "
          "default: LSMBLOOM_SIMD or the best the CPU has");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Builds Bloom filters from generated keys and reports size, accuracy "
      "(measured next to predicted) and speed.\nUsage: demo [flags]");
  absl::ParseCommandLine(argc, argv);
  absl::Status status = absl::GetFlag(FLAGS_simd).empty()
                            ? lsmbloom::PinSimdTargetFromEnvironment()
                            : lsmbloom::PinSimdTarget(absl::GetFlag(FLAGS_simd));
  if (status.ok()) {
    lsmbloom::demo::FilterDemoOptions options;
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
  if (!status.ok()) {
    std::fprintf(stderr, "demo: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
