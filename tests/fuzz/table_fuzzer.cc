// Fuzz target: table open, get and iterate on arbitrary file bytes. Any
// outcome but a crash, an out-of-bounds read or a wrong answer from a
// version 2 table is acceptable. "Wrong" is what can be told without an
// oracle: a scan that ends OK must yield keys in order, and a Get of a key
// the scan yielded must find that entry or fail. (Version 1 tables do not
// bind blocks to their place, so a swap there can answer wrongly; only
// crashes count for them.) Answer correctness under byte damage is checked
// by table_corruption_test.
//
// Besides libFuzzer's byte mutations, the mutator does what byte flips
// almost never do: swap two same-size blocks of a table, or copy a block
// over another; the cross-over copies a block from a second table at the
// same offset.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "lsmbloom/table/table.h"
#include "tests/table_surgery.h"

// libFuzzer's own mutator; absent (null) when the corpus is only replayed.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));

namespace {

using lsmbloom::testutil::Region;

// Aborts: libFuzzer reports it, the replay test fails on it.
void Wrong(const char* what) {
  std::fprintf(stderr, "table_fuzzer: wrong answer: %s\n", what);
  std::abort();
}

void CheckAnswers(const lsmbloom::Table& table) {
  auto it = table.NewIterator();
  std::string prev_key;
  uint64_t prev_seq = 0;
  bool first = true;
  int steps = 0;
  struct Newest {
    std::string key, value;
    uint64_t seq;
    lsmbloom::EntryType type;
  };
  std::vector<Newest> newest;
  for (it->SeekToFirst(); it->Valid() && steps < 10000; it->Next(), ++steps) {
    const lsmbloom::TableEntry e = it->entry();
    const std::string key(e.user_key);
    if (!first && (key < prev_key || (key == prev_key && e.sequence >= prev_seq))) {
      Wrong("a scan that did not fail yielded keys out of order");
    }
    if (first || key != prev_key) {
      newest.push_back({key, std::string(e.value), e.sequence, e.type});
    }
    prev_key = key;
    prev_seq = e.sequence;
    first = false;
  }
  for (const Newest& n : newest) {
    absl::StatusOr<lsmbloom::LookupResult> got = table.Get(n.key);
    if (!got.ok()) continue;  // A clear error.
    const bool deleted = n.type == lsmbloom::EntryType::kDeletion;
    const auto want =
        deleted ? lsmbloom::LookupResult::Kind::kDeleted : lsmbloom::LookupResult::Kind::kFound;
    if (got->kind != want || got->sequence != n.seq || (!deleted && got->value != n.value)) {
      Wrong("Get disagrees with the scan");
    }
  }
}

// Regions with trailers (blocks), or nothing if `bytes` is not a table.
std::vector<Region> Blocks(std::string_view bytes) {
  std::vector<Region> regions, blocks;
  if (!lsmbloom::testutil::FindRegions(bytes, &regions)) return blocks;
  for (const Region& r : regions) {
    if (r.has_trailer) blocks.push_back(r);
  }
  return blocks;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto table = lsmbloom::Table::Open(lsmbloom::NewMemRandomAccessFile(bytes));
  if (!table.ok()) return 0;
  (void)(*table)->Get("key");
  (void)(*table)->Get(std::string(bytes.data(), size % 17));
  if ((*table)->format_version() >= 2) {
    CheckAnswers(**table);
  } else {
    auto it = (*table)->NewIterator();
    int steps = 0;
    for (it->SeekToFirst(); it->Valid() && steps < 10000; it->Next(), ++steps) {
      (void)(*table)->Get(it->entry().user_key);
    }
  }
  auto it = (*table)->NewIterator();
  it->Seek("m");
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937 rng(seed);
  if (rng() % 4 == 0) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    const std::vector<Region> blocks = Blocks(bytes);
    if (blocks.size() >= 2) {
      const Region& a = blocks[rng() % blocks.size()];
      const Region& b = blocks[rng() % blocks.size()];
      if (a.begin != b.begin && a.end - a.begin == b.end - b.begin) {
        if (rng() % 2 == 0) {
          lsmbloom::testutil::SwapRegions(&bytes, a, b);
        } else {
          lsmbloom::testutil::CopyRegion(&bytes, b, bytes, a.begin);  // Move a over b.
        }
        std::memcpy(data, bytes.data(), size);
        return size;
      }
    }
  }
  return LLVMFuzzerMutate != nullptr ? LLVMFuzzerMutate(data, size, max_size) : size;
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  std::mt19937 rng(seed);
  std::string mine(reinterpret_cast<const char*>(data1), size1);
  const std::string_view other(reinterpret_cast<const char*>(data2), size2);
  const std::vector<Region> blocks = Blocks(mine);
  if (!blocks.empty()) {
    // A block of the second input at the offset of one of ours: a foreign
    // block in a table of the same shape, when the shapes match.
    const Region& r = blocks[rng() % blocks.size()];
    if (r.end <= other.size() && size1 <= max_out_size) {
      lsmbloom::testutil::CopyRegion(&mine, r, other, r.begin);
      std::memcpy(out, mine.data(), size1);
      return size1;
    }
  }
  // Otherwise a plain splice: the head of one, the tail of the other.
  const size_t head = size1 == 0 ? 0 : rng() % size1;
  const size_t tail = size2 == 0 ? 0 : rng() % size2;
  const size_t n = std::min(max_out_size, head + (size2 - tail));
  std::memcpy(out, data1, std::min(head, n));
  if (n > head) std::memcpy(out + head, data2 + tail, n - head);
  return n;
}
