// The parts of TableSet that Get and MultiGet (lookup.cc, multi_get.cc)
// share: the version a lookup reads, and how it counts. Private to
// src/lookup.

#ifndef LSMBLOOM_SRC_LOOKUP_VERSION_H_
#define LSMBLOOM_SRC_LOOKUP_VERSION_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lsmbloom/blocked_bloom.h"
#include "lsmbloom/lookup.h"

namespace lsmbloom {

// An immutable snapshot of the files. Level 0 newest first; levels >= 1 by
// smallest key.
struct TableSet::Version {
  std::array<std::vector<TableFile>, kNumLevels> levels;
  int last_nonempty_level = -1;
  // What a lookup reads of each file, in the same order, side by side:
  // choosing candidates touches these arrays, not the tables.
  std::array<std::vector<FileMeta>, kNumLevels> meta;
  // Sorted levels: 8 bytes of each file's largest key (after the common
  // prefix), for the binary search; a full compare only when these are equal.
  std::array<std::vector<uint64_t>, kNumLevels> largest_prefix;
  // The longest prefix every file's bounds share ("user0000" of
  // "user000012345678"). A key without it is outside every file; with it,
  // the 8 bytes after it tell most keys and bounds apart.
  std::string common_prefix;
};

// One file as a lookup sees it.
struct TableSet::FileMeta {
  // The 8 bytes after the version's common prefix, big-endian, zero-padded.
  uint64_t smallest_prefix;
  uint64_t largest_prefix;
  std::string_view smallest, largest;
  // The file's blocked filter when the key's one hash serves it; null when
  // it has no filter or one that needs its own hash (SearchFile's path).
  const BlockedBloomView* filter;
  const TableFile* file;
};

namespace internal {

inline void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
  c.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_VERSION_H_
