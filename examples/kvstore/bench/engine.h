// One interface over the three stores the benchmark compares: kvstore,
// RocksDB and LevelDB, each opened with the same budget (engine.cc says
// how each setting maps).

#ifndef KVSTORE_BENCH_ENGINE_H_
#define KVSTORE_BENCH_ENGINE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kvstore_bench {

struct EngineConfig {
  double bits_per_key = 10;
  // Memtable (write buffer) size, the same for all three.
  size_t memtable_bytes = 64 << 20;
  // Block cache for RocksDB and LevelDB. kvstore has none: it reads its
  // tables through mmap, i.e. the OS page cache, which the other two read
  // through as well (buffered I/O).
  size_t cache_bytes = 64 << 20;
  // Use kvstore's pread path instead of mmap.
  bool kvstore_pread = false;
  // On storage: kvstore and RocksDB read their tables with direct reads
  // through a block cache of cache_bytes each (LevelDB has no direct reads:
  // it reads through the page cache as before).
  bool direct_reads = false;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Without syncing the write-ahead log (all three).
  virtual absl::Status Put(std::string_view key, std::string_view value) = 0;
  // True and *value if present.
  virtual absl::StatusOr<bool> Get(std::string_view key, std::string* value) = 0;
  // Makes everything written so far reach tables and lets background
  // compactions finish, so reads see a settled tree.
  virtual absl::Status Settle() = 0;
};

// name: "kvstore", "rocksdb" or "leveldb". Creates `dir` (must not hold
// another engine's files).
absl::StatusOr<std::unique_ptr<Engine>> OpenEngine(const std::string& name, const std::string& dir,
                                                   const EngineConfig& config);

}  // namespace kvstore_bench

#endif  // KVSTORE_BENCH_ENGINE_H_
