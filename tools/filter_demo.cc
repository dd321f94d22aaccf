#include "tools/filter_demo.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/simd.h"
#include "src/util/random.h"

namespace lsmbloom {
namespace demo {
namespace {

using Clock = std::chrono::steady_clock;

double NanosPer(Clock::time_point start, uint64_t n) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
}

// 16-byte keys; the last byte names the set, so present and absent keys can
// never coincide and every "maybe" for an absent key is a false positive.
std::unique_ptr<char[]> MakeKeys(uint64_t n, char set) {
  std::unique_ptr<char[]> keys(new char[n * 16]);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t a = internal::SplitMix64(i * 4 + set), b = internal::SplitMix64(a);
    std::memcpy(&keys[i * 16], &a, 8);
    std::memcpy(&keys[i * 16 + 8], &b, 8);
    keys[i * 16 + 15] = set;
  }
  return keys;
}

// The options' error (it names the field), with the flags that set them.
absl::Status BadFlags(const char* kind, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat("bad --bits_per_key or --target_fpr for --filter=",
                                                 kind, ": ", status.message()));
}

// The filter's shape, and what its model predicts, one kind at a time.
void PrintShape(const BlockedBloomReader& reader) {
  const BlockedBloomGeometry& g = reader.geometry();
  std::printf("filter size          %llu bytes (%.2f MiB), %llu blocks of 64 bytes\n",
              static_cast<unsigned long long>(g.serialized_size()), g.serialized_size() / 1048576.0,
              static_cast<unsigned long long>(g.num_blocks));
  std::printf("bits per key         %.3f (k = %d probes per key)\n", g.bits_per_key(),
              g.num_probes);
}

void PrintPrediction(const BlockedBloomReader& reader) {
  const BlockedBloomGeometry& g = reader.geometry();
  std::printf(
      "  predicted          %.4f%% blocked model; %.4f%% mean-fill bound; "
      "%.4f%% standard Bloom formula\n",
      100 * g.predicted_fpr(), 100 * BlockedBloomFprMeanFill(g.bits_per_key(), g.num_probes),
      100 * StandardBloomFpr(g.bits_per_key(), g.num_probes));
}

void PrintShape(const RibbonReader& reader) {
  const RibbonGeometry& g = reader.geometry();
  std::printf("filter size          %llu bytes (%.2f MiB), %llu segments of 64 slots\n",
              static_cast<unsigned long long>(g.serialized_size()), g.serialized_size() / 1048576.0,
              static_cast<unsigned long long>(g.num_segments));
  std::printf("bits per key         %.3f (r = %d result bits per slot, %d from segment %llu)\n",
              g.bits_per_key(), g.num_columns, g.num_columns + 1,
              static_cast<unsigned long long>(g.upper_start));
}

void PrintPrediction(const RibbonReader& reader) {
  const RibbonGeometry& g = reader.geometry();
  std::printf(
      "  predicted          %.4f%% Ribbon model (dependent keys included); "
      "%.4f%% bound for this memory (2^-bits/key)\n",
      100 * g.predicted_fpr(), 100 * std::exp2(-g.bits_per_key()));
}

// Two lines: the target each kernel family runs, and what the families this
// kind uses measured on each target when the library timed them.
void PrintKernelChoices(bool ribbon) {
  const std::vector<KernelChoice> choices = SimdKernelChoices();
  std::string targets, timings;
  double timing_us = 0;
  bool all_alike = true;
  for (const KernelChoice& c : choices) {
    absl::StrAppend(&targets, targets.empty() ? "" : ", ", c.family, " ", c.target);
    all_alike = all_alike && c.target == choices[0].target;
    timing_us += c.timing_us;
    const bool shown = ribbon ? (c.family == "ribbon_probe_one" || c.family == "ribbon_probe_batch")
                              : (c.family == "blocked_build" || c.family == "blocked_probe_one");
    if (!shown || c.ns_per_op.empty()) continue;
    absl::StrAppend(&timings, timings.empty() ? "" : "; ", c.family, ":");
    for (const auto& [target, ns] : c.ns_per_op) {
      absl::StrAppend(&timings, " ", target, " ", absl::StrFormat("%.3g", ns));
    }
  }
  if (all_alike) targets = "every family " + choices[0].target;
  std::printf("kernels          %s (%s%s)\n", targets.c_str(), choices[0].how.c_str(),
              timing_us > 0 ? absl::StrFormat(", timing took %.0f us", timing_us).c_str() : "");
  if (!timings.empty()) std::printf("kernel ns/key    %s\n", timings.c_str());
}

// Builds with `builder` (three times), then measures the reader of type
// Reader on present and absent keys and prints the report.
template <typename Reader, typename Builder>
absl::Status BuildAndMeasure(Builder& builder, const FilterDemoOptions& options) {
  const uint64_t n = options.num_keys, absent_n = options.num_absent;
  std::printf("== One filter: %llu random 16-byte keys, SIMD target %s ==\n",
              static_cast<unsigned long long>(n), ActiveSimdTarget().c_str());
  PrintKernelChoices(std::is_same<Reader, RibbonReader>::value);
  const auto present = MakeKeys(n, 'P');
  const auto absent = MakeKeys(absent_n, 'A');
  auto key = [](const std::unique_ptr<char[]>& keys, uint64_t i) {
    return std::string_view(&keys[i * 16], 16);
  };

  // Built three times: the first builds write memory the process has never
  // touched (malloc maps the hash buffer, then grows its heap for it), and on
  // a VM a first-touch page fault can cost more than the keys' whole share of
  // the build; the third reuses that memory, as a table builder's steady state
  // does. All three must write the same bytes.
  constexpr int kBuilds = 3;
  double build_ns[kBuilds];
  absl::StatusOr<std::string> filter;
  for (int round = 0; round < kBuilds; ++round) {
    const Clock::time_point start = Clock::now();
    for (uint64_t i = 0; i < n; ++i) builder.AddKey(key(present, i));
    absl::StatusOr<std::string> built = builder.Finish();
    build_ns[round] = NanosPer(start, n);
    if (!built.ok()) return built.status();
    if (round > 0 && *built != *filter) {
      return absl::InternalError("two builds from the same keys wrote different filters");
    }
    filter = std::move(built);
  }

  absl::StatusOr<Reader> reader = Reader::Open(*filter);
  if (!reader.ok()) return reader.status();
  const HashSpec spec = reader->geometry().hash;

  uint64_t present_misses = 0;
  Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < n; ++i) present_misses += !reader->MayMatch(key(present, i));
  const double present_ns = NanosPer(start, n);

  uint64_t false_positives = 0;
  start = Clock::now();
  for (uint64_t i = 0; i < absent_n; ++i) {
    false_positives += reader->MayMatch(key(absent, i));
  }
  const double absent_ns = NanosPer(start, absent_n);

  // Batched: hash first (once per key, as a multi-file lookup would), then
  // probe 128 hashes per call.
  std::vector<uint64_t> hashes(absent_n);
  for (uint64_t i = 0; i < absent_n; ++i) hashes[i] = KeyHash(key(absent, i), spec);
  std::unique_ptr<bool[]> answers(new bool[absent_n]);
  start = Clock::now();
  for (uint64_t i = 0; i < absent_n; i += 128) {
    const size_t m = std::min<uint64_t>(128, absent_n - i);
    reader->MayMatchBatch(absl::MakeConstSpan(&hashes[i], m), absl::MakeSpan(&answers[i], m));
  }
  const double batch_ns = NanosPer(start, absent_n);
  uint64_t batch_fp = 0;
  for (uint64_t i = 0; i < absent_n; ++i) batch_fp += answers[i];

  const double measured = static_cast<double>(false_positives) / absent_n;
  PrintShape(*reader);
  std::printf(
      "false positives      %.4f%% measured on %llu absent keys "
      "(%llu hits; +-%.4f%% at 2 sigma)\n",
      100 * measured, static_cast<unsigned long long>(absent_n),
      static_cast<unsigned long long>(false_positives),
      200 * std::sqrt(measured * (1 - measured) / absent_n));
  PrintPrediction(*reader);
  std::printf("present keys missed  %llu of %llu (must be 0)\n",
              static_cast<unsigned long long>(present_misses), static_cast<unsigned long long>(n));
  std::printf(
      "build                %.1f ns/key (hashing included; the same build first took %.1f\n"
      "                     and then %.1f, paying page faults on memory new to the process)\n",
      build_ns[kBuilds - 1], build_ns[0], build_ns[1]);
  std::printf("query, present key   %.1f ns/key (hashing included)\n", present_ns);
  std::printf("query, absent key    %.1f ns/key (hashing included)\n", absent_ns);
  std::printf("query, batch of 128  %.1f ns/key (precomputed hashes)\n", batch_ns);
  std::printf("(one run, wall clock: for comparable numbers use tools/run_bench.sh)\n\n");
  if (present_misses != 0 || batch_fp != false_positives) {
    return absl::InternalError(
        "the filter rejected a present key, or batched "
        "and single answers differ");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FilterKind> ParseFilterKind(std::string_view name) {
  if (name == "bloom") return FilterKind::kBloom;
  if (name == "ribbon") return FilterKind::kRibbon;
  return absl::InvalidArgumentError(
      absl::StrCat("--filter must be bloom or ribbon, got '", std::string(name), "'"));
}

absl::Status RunFilterDemo(const FilterDemoOptions& options) {
  if (options.kind == FilterKind::kRibbon) {
    RibbonOptions filter_options;
    filter_options.bits_per_key = options.bits_per_key;
    filter_options.target_fpr = options.target_fpr;
    absl::StatusOr<RibbonBuilder> builder = RibbonBuilder::Create(filter_options);
    if (!builder.ok()) return BadFlags("ribbon", builder.status());
    return BuildAndMeasure<RibbonReader>(*builder, options);
  }
  BlockedBloomOptions filter_options;
  filter_options.bits_per_key = options.bits_per_key;
  filter_options.target_fpr = options.target_fpr;
  absl::StatusOr<BlockedBloomBuilder> builder = BlockedBloomBuilder::Create(filter_options);
  if (!builder.ok()) return BadFlags("bloom", builder.status());
  return BuildAndMeasure<BlockedBloomReader>(*builder, options);
}

}  // namespace demo
}  // namespace lsmbloom
