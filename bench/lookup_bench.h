// What bench/lookup_bench.cc and bench/lookup_filter_bench.cc share: the
// generated data, the probe keys, and RocksDB loaded with the same files.

#ifndef LSMBLOOM_BENCH_LOOKUP_BENCH_H_
#define LSMBLOOM_BENCH_LOOKUP_BENCH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/cache.h"
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

// What Rocks() opens with: the filter, a hash index in each data block, no
// compression, no compactions, `cache` as the block cache.
rocksdb::Options RocksOptions(RocksFilter filter, std::shared_ptr<rocksdb::Cache> cache,
                              bool block_align = false);
// A new DB in `dir` opened with `options`, the layout's files ingested.
rocksdb::DB* OpenRocksWithLayout(const rocksdb::Options& options, const std::string& dir);

// Registers bench/lookup_filter_bench.cc's benchmarks.
void RegisterFilterMemory();
// Registers bench/storage_bench.cc's (Storage_*).
void RegisterStorage();

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_LOOKUP_BENCH_H_
