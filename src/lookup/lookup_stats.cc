// What LookupStats derives from its counters: FPRs and false-positive
// reads per lookup (out of line: floating point in a public header would
// compile differently under a caller's target flags).

#include <cstddef>
#include <cstdint>

#include "lsmbloom/lookup/lookup.h"

namespace lsmbloom {

LevelStats::LevelStats() = default;

double LevelStats::observed_fpr() const {
  const uint64_t negatives = negative_checks();
  return negatives == 0 ? 0.0 : static_cast<double>(false_positives()) / negatives;
}

double LevelStats::predicted_fpr_of_checks() const {
  const uint64_t negatives = negative_checks();
  return negatives == 0 ? predicted_fpr : expected_false_positives / negatives;
}

double LookupStats::false_positives_per_lookup() const {
  uint64_t fp = 0;
  for (const LevelStats& l : levels) fp += l.false_positives();
  return lookups == 0 ? 0.0 : static_cast<double>(fp) / lookups;
}

double LookupStats::expected_false_positives_per_lookup() const {
  double expected = 0;
  for (const LevelStats& l : levels) expected += l.expected_false_positives;
  return lookups == 0 ? 0.0 : expected / lookups;
}

double LookupStats::PredictedFalsePositiveReads() const {
  double cost = 0;
  for (size_t level = 0; level < levels.size(); ++level) {
    const LevelStats& l = levels[level];
    if (l.files == 0) continue;
    cost += (level == 0 ? static_cast<double>(l.files) : 1.0) * l.predicted_fpr;
  }
  return cost;
}

double LookupStats::file_reads_per_lookup() const {
  uint64_t reads = 0;
  for (const LevelStats& l : levels) reads += l.file_reads;
  return lookups == 0 ? 0.0 : static_cast<double>(reads) / lookups;
}

double LookupStats::block_cache_hit_rate() const {
  uint64_t hits = 0, asked = 0;
  for (const LevelStats& l : levels) {
    hits += l.block_cache_hits;
    asked += l.block_cache_hits + l.block_cache_misses;
  }
  return asked == 0 ? 0.0 : static_cast<double>(hits) / asked;
}

}  // namespace lsmbloom
