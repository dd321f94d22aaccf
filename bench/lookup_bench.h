// What bench/lookup_bench.cc and bench/lookup_filter_bench.cc share: the
// generated data, the probe keys, and RocksDB loaded with the same files.

#ifndef LSMBLOOM_BENCH_LOOKUP_BENCH_H_
#define LSMBLOOM_BENCH_LOOKUP_BENCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "tools/lsm_fixture.h"

namespace lsmbloom {
namespace bench {

inline constexpr size_t kProbes = 1 << 16;

struct Data {
  std::string dir;  // Removed at exit.
  std::vector<fixture::FileSpec> layout;
  std::vector<std::string> present, absent;
};

// Keys: 10^6 unless LSMBLOOM_LOOKUP_KEYS says otherwise.
uint64_t NumKeys();
const Data& TheData();
[[noreturn]] void Die(const std::string& what);

enum class RocksFilter { kBloom10, kRibbon10 };

// RocksDB with the layout's files ingested, filters built by
// NewBloomFilterPolicy(10) or NewRibbonFilterPolicy(10, 1) (files written
// with SstFileWriter have no level, and RocksDB gives such files Ribbon).
rocksdb::DB* Rocks(RocksFilter filter = RocksFilter::kBloom10);

// Registers bench/lookup_filter_bench.cc's benchmarks.
void RegisterFilterMemory();

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_LOOKUP_BENCH_H_
