// Fuzz target: tables on arbitrary bytes, read through every path. Each
// input is read twice: as written, and forged, with every block trailer,
// a modular filter's header checksums and the footer's checksum recomputed
// (table_surgery.h's FixAllTrailers), as a crafted file's would be, so that
// mutations reach what the checksums guard: handles, restart arrays,
// properties, filter headers. Each is opened mapped (in memory) and read by
// a scan and Get; then from a file, through pread, and through a block cache
// filled by direct reads (one input in eight, where the temporary directory
// allows O_DIRECT) or by pread, and read by Get and a TableSet's Get and
// MultiGet (its batch reads, in flight).
//
// Any outcome but a crash, an out-of-bounds read or a wrong answer is
// acceptable. The oracle, for a table of version 2 or later as written
// (its checksums bind each block to its place, so bytes that pass them are
// bytes the builder wrote): a scan that ends OK yields keys in order, and
// every path's Get and MultiGet of a key the scan yielded find that entry
// or fail; never "not found" or another version. A forged table can lie, so
// only crashes count for it, as for version 1 (whose checksums do not bind
// a block to its place).
//
// Besides libFuzzer's byte mutations, the mutator swaps two same-size
// blocks, copies a block over another, or rewrites a handle (of a data
// block, the filter, the properties, the index or meta-index) to one that
// does not fit: a huge size, a sum that wraps, an offset past the end. It
// binds the result to a fresh unique id and leaves the footer's checksum
// wrong, so that only the forged reading trusts it. The cross-over copies a
// block from a second table at the same offset. (Seeds of different tables
// have different unique ids: two tables never share one, and a block of
// one in the other would pass its checksum.)

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/block_cache.h"
#include "lsmbloom/table/table.h"
#include "tests/table_surgery.h"

// libFuzzer's own mutator; absent (null) when the corpus is only replayed.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));

namespace {

using lsmbloom::LookupResult;
using lsmbloom::Table;
using lsmbloom::testutil::Region;

// Aborts: libFuzzer reports it, the replay test fails on it.
void Wrong(const char* what) {
  std::fprintf(stderr, "table_fuzzer: wrong answer: %s\n", what);
  std::abort();
}

struct Newest {
  std::string key, value;
  uint64_t seq;
  lsmbloom::EntryType type;
};

void CheckAnswer(const absl::StatusOr<LookupResult>& got, const Newest& n, const char* path) {
  if (!got.ok()) return;  // A clear error.
  const bool deleted = n.type == lsmbloom::EntryType::kDeletion;
  const auto want = deleted ? LookupResult::Kind::kDeleted : LookupResult::Kind::kFound;
  if (got->kind != want || got->sequence != n.seq || (!deleted && got->value != n.value)) {
    std::fprintf(stderr, "table_fuzzer: key '%s': kind %d sequence %llu, the scan's %d %llu\n",
                 n.key.c_str(), static_cast<int>(got->kind),
                 static_cast<unsigned long long>(got->sequence), static_cast<int>(want),
                 static_cast<unsigned long long>(n.seq));
    Wrong(path);
  }
}

// The newest entry of each key a scan yields (at most 10,000 steps; those
// before an error too). Traps on keys out of order when `oracle`.
void Scan(const Table& table, bool oracle, std::vector<Newest>* newest) {
  auto it = table.NewIterator();
  std::string prev_key;
  uint64_t prev_seq = 0;
  int steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < 10000; it->Next(), ++steps) {
    const lsmbloom::TableEntry e = it->entry();
    const std::string key(e.user_key);
    if (oracle && steps > 0 && (key < prev_key || (key == prev_key && e.sequence >= prev_seq))) {
      Wrong("a scan that did not fail yielded keys out of order");
    }
    if (steps == 0 || key != prev_key) {
      newest->push_back({key, std::string(e.value), e.sequence, e.type});
    }
    prev_key = key;
    prev_seq = e.sequence;
  }
}

// Keys to look up: up to 16 the scan yielded, spread over the table, and
// two that are likely absent.
std::vector<const Newest*> Sample(const std::vector<Newest>& newest) {
  std::vector<const Newest*> out;
  const size_t step = std::max<size_t>(1, newest.size() / 16);
  for (size_t i = 0; i < newest.size(); i += step) out.push_back(&newest[i]);
  return out;
}

// Reads `table` by Get and by a TableSet's Get and MultiGet, checking the
// sampled keys' answers when `oracle`; then whatever else reads a length
// from the file: the filter's modules.
void ReadStored(std::shared_ptr<const Table> table, const std::vector<Newest>& newest,
                bool oracle) {
  const std::vector<const Newest*> sample = Sample(newest);
  std::vector<std::string_view> keys = {"key", "k00042~"};
  for (const Newest* n : sample) {
    keys.push_back(n->key);
    const absl::StatusOr<LookupResult> got = table->Get(n->key);
    if (oracle) CheckAnswer(got, *n, "Get from storage disagrees with the scan");
  }
  (void)table->Get("key");
  lsmbloom::TableSet set;
  lsmbloom::VersionEdit edit;
  edit.added.push_back({0, 1, table});
  if (!set.Apply(edit).ok()) return;
  const auto results = set.MultiGet(keys);
  for (size_t i = 0; i < sample.size(); ++i) {
    if (oracle) CheckAnswer(results[i + 2], *sample[i], "MultiGet disagrees with the scan");
  }
  if (!sample.empty()) {
    const absl::StatusOr<LookupResult> got = set.Get(sample.back()->key);
    if (oracle) CheckAnswer(got, *sample.back(), "TableSet::Get disagrees with the scan");
  }
  if (const lsmbloom::ModularBloomHeader* h = table->filter_modules()) {
    for (int m = 1; m < static_cast<int>(h->modules.size()); ++m) (void)table->ReadFilterModule(m);
  }
}

// Where the tables go, and whether direct reads work there.
struct Storage {
  std::string path;
  bool direct = false;

  Storage() {
    const char* dir = std::getenv("TEST_TMPDIR");
    path = std::string(dir != nullptr ? dir : "/tmp") + "/table_fuzzer." +
           std::to_string(getpid()) + ".sst";
    direct = Write(std::string(8192, 'x')) &&
             lsmbloom::OpenPosixFile(path, lsmbloom::FileAccess::kDirect).ok();
  }

  bool Write(const std::string& bytes) const {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return false;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok;
  }
};

Storage& TheStorage() {
  // Never destroyed (libFuzzer may exit from any thread); the file is
  // removed at exit.
  static Storage* storage = [] {
    std::atexit([] { std::remove(TheStorage().path.c_str()); });
    return new Storage();
  }();
  return *storage;
}

void Exercise(const std::string& bytes, bool written) {
  auto table = Table::Open(lsmbloom::NewMemRandomAccessFile(bytes));
  if (!table.ok()) return;  // The stored paths open the same blocks the same way.
  const bool oracle = written && (*table)->format_version() >= 2;
  (void)(*table)->Get("key");
  (void)(*table)->Get(std::string(bytes.data(), bytes.size() % 17));
  std::vector<Newest> newest;
  Scan(**table, oracle, &newest);
  for (const Newest& n : newest) {
    const absl::StatusOr<LookupResult> got = (*table)->Get(n.key);
    if (oracle) CheckAnswer(got, n, "Get disagrees with the scan");
  }
  (*table)->NewIterator()->Seek("m");
  Storage& storage = TheStorage();
  if (!storage.Write(bytes)) return;
  // A direct read of a file just written waits for the disk: one input in
  // eight takes that path, the others pread with the cache. (A cache made
  // per input: one kept across inputs looks to libFuzzer like a leak.)
  const bool direct = storage.direct && XXH3_64bits(bytes.data(), bytes.size()) % 8 == 0;
  for (bool cached : {false, true}) {
    const lsmbloom::FileAccess access =
        cached && direct ? lsmbloom::FileAccess::kDirect : lsmbloom::FileAccess::kPread;
    auto file = lsmbloom::OpenPosixFile(storage.path, access);
    if (!file.ok()) continue;
    lsmbloom::TableReadOptions options;
    if (cached) options.block_cache = *lsmbloom::BlockCache::Create({64 << 10, 0});
    auto stored = Table::Open(std::move(*file), options);
    if (!stored.ok()) continue;
    ReadStored(std::shared_ptr<const Table>(std::move(*stored)), newest, oracle);
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

// A handle that does not fit a file of `size` bytes, or one near `offset`.
std::string CraftedHandle(std::mt19937& rng, uint64_t offset, uint64_t size) {
  using lsmbloom::testutil::EncodeHandle;
  switch (rng() % 6) {
    case 0:
      return EncodeHandle(offset, uint64_t{1} << (20 + rng() % 44));  // Huge.
    case 1:
      return EncodeHandle(offset, ~uint64_t{0} - rng() % 16);  // size + trailer wraps.
    case 2:
      return EncodeHandle(size + rng() % 4096, rng() % 256);  // Past the end.
    case 3:
      return EncodeHandle(~uint64_t{0} - rng() % 256, rng() % 512);  // offset + size wraps.
    case 4:
      return EncodeHandle(offset + rng() % 16, rng() % (size + 1));
    default:
      return EncodeHandle(offset > 16 ? offset - rng() % 16 : 0, rng() % (size + 1));
  }
}

// Rewrites one handle of a version 2 or 3 table; false if it is not one.
bool RewriteHandle(std::string* bytes, std::mt19937& rng) {
  lsmbloom::testutil::TableTail tail;
  if (!lsmbloom::testutil::SplitTable(*bytes, &tail)) return false;
  const std::string crafted = CraftedHandle(rng, rng() % (bytes->size() + 1), bytes->size());
  switch (rng() % 4) {
    case 0:
      if (tail.index.empty()) return false;
      tail.index[rng() % tail.index.size()].second = crafted;
      break;
    case 1:
      if (tail.metaindex.empty()) return false;
      tail.metaindex[rng() % tail.metaindex.size()].second = crafted;
      break;
    case 2:
      tail.properties_handle = crafted;
      break;
    default:
      (rng() % 2 == 0 ? tail.index_handle : tail.metaindex_handle) = crafted;
  }
  // A fresh unique id, every block bound to it: the blocks assembled here
  // (from bytes libFuzzer may have changed) pass their checksums in this
  // input alone, never in a table that a cross-over copies them into.
  tail.unique_id = (uint64_t{rng()} << 32 | rng()) | 1;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(tail.unique_id));
  for (auto& [name, value] : tail.properties) {
    if (name == "lsmbloom.unique_id") value = hex;
  }
  *bytes = lsmbloom::testutil::AssembleTable(tail);
  lsmbloom::testutil::FixAllTrailers(bytes);
  // The footer's checksum off by a bit: the table as written is refused,
  // the forged reading reads what the handle crafted.
  (*bytes)[bytes->size() - lsmbloom::testutil::kFooterSize + 48] ^= 1;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Exercise(bytes, /*written=*/true);
  std::string forged = bytes;
  lsmbloom::testutil::FixAllTrailers(&forged);
  if (forged != bytes) Exercise(forged, /*written=*/false);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937 rng(seed);
  const unsigned choice = rng() % 8;
  if (choice < 2) {
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
  } else if (choice == 2) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (RewriteHandle(&bytes, rng) && bytes.size() <= max_size) {
      std::memcpy(data, bytes.data(), bytes.size());
      return bytes.size();
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
