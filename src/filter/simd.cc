#include "lsmbloom/filter/simd.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hwy/targets.h"
#include "src/filter/kernel_choice.h"
#include "src/filter/simd_dispatch.h"

namespace lsmbloom {
namespace {

struct NamedTarget {
  const char* name;
  int64_t bit;
};

// Best first, as Highway orders its target bits.
constexpr NamedTarget kTargets[] = {
#if HWY_ARCH_X86
    {"avx512_dl", HWY_AVX3_DL}, {"avx512", HWY_AVX3},   {"avx2", HWY_AVX2},
    {"sse4", HWY_SSE4},         {"ssse3", HWY_SSSE3},
#elif HWY_ARCH_ARM
    {"sve2", HWY_SVE2},     {"sve", HWY_SVE},       {"neon", HWY_NEON},
#endif
    {"emu128", HWY_EMU128},     {"scalar", HWY_SCALAR},
};

int64_t AvailableBits() { return internal::AvailableTargetBits(); }

std::string TargetName(int64_t bit) {
  for (const NamedTarget& t : kTargets) {
    if (t.bit == bit) return t.name;
  }
  return absl::StrCat("target bit ", bit);
}

}  // namespace

std::vector<std::string> AvailableSimdTargets() {
  std::vector<std::string> names;
  for (const NamedTarget& t : kTargets) {
    if (AvailableBits() & t.bit) names.push_back(t.name);
  }
  return names;
}

absl::Status PinSimdTarget(std::string_view name) {
  const int64_t available = AvailableBits();
  int64_t chosen = 0;  // 0 lifts the pin.
  if (name != "best") {
    for (const NamedTarget& t : kTargets) {
      if (name == t.name) chosen = t.bit;
    }
    if (chosen == 0 || (available & chosen) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("SIMD target '", std::string(name), "' is ",
                       chosen == 0 ? "unknown" : "not supported by this CPU or build",
                       "; available: best, ", absl::StrJoin(AvailableSimdTargets(), ", ")));
    }
  }
  // Highway's own choice follows the pin too, for any HWY_DYNAMIC_DISPATCH.
  hwy::SetSupportedTargetsForTest(chosen);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  internal::PinKernelTarget(chosen);
  return absl::OkStatus();
}

absl::Status PinSimdTargetFromEnvironment() {
  const char* value = std::getenv("LSMBLOOM_SIMD");
  if (value == nullptr || *value == '\0') return absl::OkStatus();
  absl::Status status = PinSimdTarget(value);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("LSMBLOOM_SIMD: ", status.message()));
  }
  return status;
}

namespace internal {

// Prefetching costs more than it saves while most of the filter is in the
// L2 cache: there the probes' own loads, many in flight in the core's
// window, fetch as well: prefetching slows batches in cache, speeds them
// up several-fold in DRAM, and is about even a little above twice the L2
// (docs/PERFORMANCE.md has the measurements behind the threshold).
uint64_t BatchPrefetchAboveBytes() {
  static const uint64_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return 2 * (l2 > 0 ? static_cast<uint64_t>(l2) : uint64_t{1} << 20);
  }();
  return bytes;
}

}  // namespace internal

std::string ActiveSimdTarget() { return TargetName(internal::ActiveTargetBit()); }

void SetSimdChoice(SimdChoice choice) {
  internal::SetChooseByMeasurement(choice == SimdChoice::kFastestMeasured);
}

std::vector<KernelChoice> SimdKernelChoices() {
  std::vector<KernelChoice> choices;
  for (const internal::FamilyChoice& f : internal::KernelChoices()) {
    KernelChoice c;
    c.family = internal::KernelFamilyName(f.family);
    c.target = TargetName(f.target_bit);
    c.how = f.how == internal::FamilyChoice::How::kPinned     ? "pinned"
            : f.how == internal::FamilyChoice::How::kMeasured ? "measured"
                                                              : "widest";
    for (const auto& [bit, ns] : f.ns_per_op) c.ns_per_op.emplace_back(TargetName(bit), ns);
    c.timing_us = f.timing_us;
    choices.push_back(std::move(c));
  }
  return choices;
}

}  // namespace lsmbloom
