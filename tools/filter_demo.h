// The filter part of the demo: one filter from generated keys, measured.

#ifndef LSMBLOOM_TOOLS_FILTER_DEMO_H_
#define LSMBLOOM_TOOLS_FILTER_DEMO_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lsmbloom {
namespace demo {

// Which filter the demo builds (--filter).
enum class FilterKind { kBloom, kRibbon };

// "bloom" or "ribbon"; InvalidArgument naming the flag for anything else.
absl::StatusOr<FilterKind> ParseFilterKind(std::string_view name);

struct FilterDemoOptions {
  FilterKind kind = FilterKind::kBloom;
  uint64_t num_keys = 2000000;
  uint64_t num_absent = 4000000;
  double bits_per_key = 10.0;
  double target_fpr = 0.0;
};

// Builds a filter, probes present and absent keys, prints a report.
absl::Status RunFilterDemo(const FilterDemoOptions& options);

}  // namespace demo
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_FILTER_DEMO_H_
