// MultiGet's searches where tables are read from storage: each round takes,
// for every key still unanswered, its next candidate file whose filter said
// "maybe", reads all their data blocks in flight together
// (src/io/batch_read.h) and searches them. A key stops at its first answer
// or error, as Get stops, so it reads the blocks Get would, no more: rounds
// buy overlap across keys, never speculative reads.
// Blocks held: within a round at most one per key (its cached block or
// the read it shares), and none across rounds: a round's blocks are let go
// before the next round reads, so evicted ones are freed.

#ifndef LSMBLOOM_SRC_LOOKUP_STORAGE_SEARCH_H_
#define LSMBLOOM_SRC_LOOKUP_STORAGE_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "lsmbloom/table/table.h"
#include "src/io/batch_read.h"
#include "src/lookup/lookup_counts.h"
#include "src/lookup/version.h"

namespace lsmbloom {
namespace internal {

// One key's search: its candidates newest first, their filters' answers
// (true where a file has none or it is not consulted) and, for those that
// said "maybe", the data block the index names.
struct KeySearch {
  const FileMeta* const* files = nullptr;
  const bool* maybe = nullptr;
  const size_t* blocks = nullptr;
  size_t count = 0;
  std::string_view key;
  uint64_t hash = 0;
  // Out: the answer (kNotFound if no file has the key), or the error that
  // ended the search, naming the file; and the level of the file that
  // answered, or the last level.
  LookupResult* result = nullptr;
  absl::Status status;
  int stopped_at = kNumLevels - 1;
  // Out: the index of the file that answered (or whose search failed);
  // `count` when none did.
  size_t answered = SIZE_MAX;
};

// Runs every search; counts into *counts as Get does, if given.
void SearchInRounds(absl::Span<KeySearch> searches, BatchReadEngine engine, LocalCounts* counts);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_STORAGE_SEARCH_H_
