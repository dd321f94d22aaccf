#include "engine.h"

#include <chrono>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "leveldb/cache.h"
#include "lsmbloom/table/block_cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/options.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "store.h"

namespace kvstore_bench {
namespace {

// kvstore is single-threaded: a mutex lets readwhilewriting share it (the
// others are thread-safe and run their reader and writer concurrently).
class KvstoreEngine : public Engine {
 public:
  static absl::StatusOr<std::unique_ptr<Engine>> Open(const std::string& dir,
                                                      const EngineConfig& config) {
    kvstore::StoreOptions options;
    options.wal_sync.mode = kvstore::WalSync::Mode::kNever;
    options.memtable_max_bytes = config.memtable_bytes;
    options.level_bits_per_key = {config.bits_per_key};
    options.lookup_options.count_stats = false;
    options.use_mmap = !config.kvstore_pread;
    if (config.direct_reads) {
      options.direct_reads = true;
      lsmbloom::BlockCacheOptions cache;
      cache.capacity_bytes = config.cache_bytes;
      absl::StatusOr<std::shared_ptr<lsmbloom::BlockCache>> made =
          lsmbloom::BlockCache::Create(cache);
      if (!made.ok()) return made.status();
      options.block_cache = *std::move(made);
    }
    auto engine = std::make_unique<KvstoreEngine>();
    absl::StatusOr<std::unique_ptr<kvstore::Store>> store = kvstore::Store::Open(dir, options);
    if (!store.ok()) return store.status();
    engine->store_ = *std::move(store);
    return std::unique_ptr<Engine>(std::move(engine));
  }
  ~KvstoreEngine() override {
    if (store_ != nullptr) store_->Close().IgnoreError();
  }

  absl::Status Put(std::string_view key, std::string_view value) override {
    std::lock_guard<std::mutex> lock(mu_);
    return store_->Put(key, value);
  }
  absl::StatusOr<bool> Get(std::string_view key, std::string* value) override {
    std::lock_guard<std::mutex> lock(mu_);
    absl::StatusOr<std::optional<std::string>> got = store_->Get(key);
    if (!got.ok()) return got.status();
    if (!got->has_value()) return false;
    *value = **std::move(got);
    return true;
  }
  absl::Status Settle() override {
    std::lock_guard<std::mutex> lock(mu_);
    return store_->Flush();  // Compactions run inside it.
  }

 private:
  std::mutex mu_;
  std::unique_ptr<kvstore::Store> store_;
};

absl::Status FromRocks(const rocksdb::Status& s) {
  return s.ok() ? absl::OkStatus() : absl::InternalError(s.ToString());
}

class RocksdbEngine : public Engine {
 public:
  static absl::StatusOr<std::unique_ptr<Engine>> Open(const std::string& dir,
                                                      const EngineConfig& config) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.compression = rocksdb::kNoCompression;
    options.write_buffer_size = config.memtable_bytes;
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(config.bits_per_key));
    table.block_cache = rocksdb::NewLRUCache(config.cache_bytes);
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    options.use_direct_reads = config.direct_reads;
    rocksdb::DB* db = nullptr;
    absl::Status s = FromRocks(rocksdb::DB::Open(options, dir, &db));
    if (!s.ok()) return s;
    auto engine = std::make_unique<RocksdbEngine>();
    engine->db_.reset(db);
    return std::unique_ptr<Engine>(std::move(engine));
  }

  absl::Status Put(std::string_view key, std::string_view value) override {
    return FromRocks(db_->Put(write_options_, rocksdb::Slice(key.data(), key.size()),
                              rocksdb::Slice(value.data(), value.size())));
  }
  absl::StatusOr<bool> Get(std::string_view key, std::string* value) override {
    rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), value);
    if (s.IsNotFound()) return false;
    if (!s.ok()) return FromRocks(s);
    return true;
  }
  absl::Status Settle() override {
    absl::Status s = FromRocks(db_->Flush(rocksdb::FlushOptions()));
    if (!s.ok()) return s;
    // Until no compaction is due or running.
    for (;;) {
      uint64_t pending = 0, running = 0;
      db_->GetIntProperty("rocksdb.compaction-pending", &pending);
      db_->GetIntProperty("rocksdb.num-running-compactions", &running);
      if (pending == 0 && running == 0) return absl::OkStatus();
      db_->GetEnv()->SleepForMicroseconds(10000);
    }
  }

 private:
  rocksdb::WriteOptions write_options_;  // sync = false.
  std::unique_ptr<rocksdb::DB> db_;
};

absl::Status FromLevel(const leveldb::Status& s) {
  return s.ok() ? absl::OkStatus() : absl::InternalError(s.ToString());
}

class LeveldbEngine : public Engine {
 public:
  static absl::StatusOr<std::unique_ptr<Engine>> Open(const std::string& dir,
                                                      const EngineConfig& config) {
    auto engine = std::make_unique<LeveldbEngine>();
    engine->filter_.reset(leveldb::NewBloomFilterPolicy(static_cast<int>(config.bits_per_key)));
    engine->cache_.reset(leveldb::NewLRUCache(config.cache_bytes));
    leveldb::Options options;
    options.create_if_missing = true;
    options.compression = leveldb::kNoCompression;
    options.write_buffer_size = config.memtable_bytes;
    options.filter_policy = engine->filter_.get();
    options.block_cache = engine->cache_.get();
    leveldb::DB* db = nullptr;
    absl::Status s = FromLevel(leveldb::DB::Open(options, dir, &db));
    if (!s.ok()) return s;
    engine->db_.reset(db);
    return std::unique_ptr<Engine>(std::move(engine));
  }
  ~LeveldbEngine() override { db_.reset(); }  // Before the cache and filter.

  absl::Status Put(std::string_view key, std::string_view value) override {
    return FromLevel(db_->Put(leveldb::WriteOptions(), leveldb::Slice(key.data(), key.size()),
                              leveldb::Slice(value.data(), value.size())));
  }
  absl::StatusOr<bool> Get(std::string_view key, std::string* value) override {
    leveldb::Status s =
        db_->Get(leveldb::ReadOptions(), leveldb::Slice(key.data(), key.size()), value);
    if (s.IsNotFound()) return false;
    if (!s.ok()) return FromLevel(s);
    return true;
  }
  absl::Status Settle() override {
    // LevelDB has no public flush; compacting an empty range below every
    // key flushes the memtable and waits for the compactions it forces.
    const std::string below;  // Empty: sorts before every key.
    leveldb::Slice begin(below), end(below);
    db_->CompactRange(&begin, &end);
    // Compactions that flush made due run in the background, and LevelDB
    // cannot say whether any is pending: wait until the table list has
    // stayed the same for half a second.
    std::string tables, before;
    do {
      before = tables;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      db_->GetProperty("leveldb.sstables", &tables);
    } while (tables != before);
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<leveldb::DB> db_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Engine>> OpenEngine(const std::string& name, const std::string& dir,
                                                   const EngineConfig& config) {
  if (name == "kvstore") return KvstoreEngine::Open(dir, config);
  if (name == "rocksdb") return RocksdbEngine::Open(dir, config);
  if (name == "leveldb") return LeveldbEngine::Open(dir, config);
  return absl::InvalidArgumentError(absl::StrCat("unknown engine '", name, "'"));
}

}  // namespace kvstore_bench
