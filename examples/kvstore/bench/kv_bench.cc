// kv_bench: db_bench-style workloads on kvstore, RocksDB and LevelDB, in
// one run, on the same keys and values.
//
//   kv_bench --num=1000000 --value_size=100 --out=results.csv
//
// Workloads (each engine in a fresh directory):
//   fillseq           num puts in key order, into an empty store
//   fillrandom        num puts in a random order, into an empty store
//   readrandom        num gets of present keys, random order, on the store
//                     fillrandom made, once flushed and compacted
//   readmissing       num gets of absent keys that fall between present
//                     ones (the key plus "."), so only filters spare reads
//   readwhilewriting  readrandom while a second thread overwrites random
//                     keys as fast as it can; the readers' rate is reported
//                     (and the writer's, as readwhilewriting_writes)
// Fills do not sync the write-ahead log (all three). Keys are 16 digits.
// Output: one CSV line per engine and workload.
//
// Fills run one engine after another. The reads run on all three stores
// open side by side, in --chunks slices that the engines take in turn
// (the first engine rotating), so a neighbour's load on a shared machine
// falls on all three alike rather than on whichever ran at that moment.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "engine.h"

ABSL_FLAG(int64_t, num, 1000000, "Keys in the store; also the operations per workload.");
ABSL_FLAG(int, value_size, 100, "Bytes per value.");
ABSL_FLAG(std::string, engines, "kvstore,rocksdb,leveldb", "Comma-separated engines.");
ABSL_FLAG(std::string, workloads, "fillseq,fillrandom,readrandom,readmissing,readwhilewriting",
          "Comma-separated workloads, in this order of dependence: the reads use the "
          "store fillrandom made.");
ABSL_FLAG(std::string, db, "/tmp/kv_bench", "Directory for the stores (replaced).");
ABSL_FLAG(std::string, out, "", "Also write the CSV here.");
ABSL_FLAG(double, bits_per_key, 10, "Bloom filter bits per key, all engines.");
ABSL_FLAG(int64_t, cache_mb, 64,
          "Block cache of RocksDB and LevelDB (and kvstore's, with --direct_reads), MiB.");
ABSL_FLAG(bool, direct_reads, false,
          "On storage: kvstore and RocksDB read tables with O_DIRECT through a block cache of "
          "--cache_mb each (LevelDB, which has no direct reads, through the page cache).");
ABSL_FLAG(int64_t, memtable_mb, 64, "Memtable size of all engines, MiB.");
ABSL_FLAG(uint64_t, seed, 301, "Seed of the key orders and values.");
ABSL_FLAG(int, chunks, 20, "Slices of each read workload that the engines take in turn.");

namespace kvstore_bench {
namespace {

namespace fs = std::filesystem;

std::string KeyOf(uint64_t i) { return absl::StrFormat("%016d", i); }

// Deterministic, incompressible-looking values of `size` bytes.
class Values {
 public:
  Values(int size, uint64_t seed) : size_(size), pool_(size_t{1} << 20, '\0') {
    std::mt19937_64 rng(seed);
    for (char& c : pool_) c = static_cast<char>(' ' + rng() % 95);
  }
  std::string_view For(uint64_t i) const {
    return std::string_view(pool_).substr((i * 7919) % (pool_.size() - size_), size_);
  }

 private:
  size_t size_;
  std::string pool_;
};

struct Result {
  double seconds = 0;
  int64_t ops = 0;
  int64_t found = 0;
};

std::vector<uint64_t> Permutation(int64_t n, uint64_t seed) {
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

absl::StatusOr<Result> Fill(Engine& engine, const std::vector<uint64_t>& order,
                            const Values& values) {
  Result r;
  const absl::Time start = absl::Now();
  for (uint64_t i : order) {
    absl::Status s = engine.Put(KeyOf(i), values.For(i));
    if (!s.ok()) return s;
  }
  r.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  r.ops = order.size();
  r.found = order.size();
  return r;
}

// Reads keys order[begin, end); adds to *r.
absl::Status Read(Engine& engine, const std::vector<uint64_t>& order, size_t begin, size_t end,
                  bool missing, Result* r) {
  std::string value;
  const absl::Time start = absl::Now();
  for (size_t j = begin; j < end; ++j) {
    const uint64_t i = order[j];
    std::string key = KeyOf(i);
    if (missing) key.push_back('.');
    absl::StatusOr<bool> found = engine.Get(key, &value);
    if (!found.ok()) return found.status();
    r->found += *found;
    ++r->ops;
  }
  r->seconds += absl::ToDoubleSeconds(absl::Now() - start);
  return absl::OkStatus();
}

// Read, with a second thread overwriting keys of `write_order` from
// *next_write on until the reads are done; adds its writes to *writes.
absl::Status ReadWhileWriting(Engine& engine, const std::vector<uint64_t>& read_order, size_t begin,
                              size_t end, const std::vector<uint64_t>& write_order,
                              size_t* next_write, const Values& values, Result* reads,
                              Result* writes) {
  std::atomic<bool> stop{false};
  std::atomic<size_t> written{0};
  absl::Status write_status;
  const size_t first = *next_write;
  std::thread writer([&] {
    for (size_t i = first; !stop.load(std::memory_order_relaxed); ++i) {
      const uint64_t k = write_order[i % write_order.size()];
      absl::Status s = engine.Put(KeyOf(k), values.For(k + 1));
      if (!s.ok()) {
        write_status = s;
        return;
      }
      written.fetch_add(1, std::memory_order_relaxed);
    }
  });
  const double before = reads->seconds;
  absl::Status s = Read(engine, read_order, begin, end, /*missing=*/false, reads);
  stop.store(true);
  writer.join();
  *next_write += written.load();
  writes->ops += written.load();
  writes->seconds += reads->seconds - before;
  return s.ok() ? write_status : s;
}

absl::StatusOr<std::unique_ptr<Engine>> Fresh(const std::string& engine, const std::string& dir,
                                              const EngineConfig& config) {
  fs::remove_all(dir);
  fs::create_directories(fs::path(dir).parent_path());
  return OpenEngine(engine, dir, config);
}

int Main() {
  const int64_t n = absl::GetFlag(FLAGS_num);
  const Values values(absl::GetFlag(FLAGS_value_size), absl::GetFlag(FLAGS_seed));
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  std::vector<uint64_t> sequential(n);
  std::iota(sequential.begin(), sequential.end(), 0);
  const std::vector<uint64_t> fill_order = Permutation(n, seed + 1);
  const std::vector<uint64_t> read_order = Permutation(n, seed + 2);
  const std::vector<uint64_t> write_order = Permutation(n, seed + 3);
  EngineConfig config;
  config.bits_per_key = absl::GetFlag(FLAGS_bits_per_key);
  config.cache_bytes = absl::GetFlag(FLAGS_cache_mb) << 20;
  config.memtable_bytes = absl::GetFlag(FLAGS_memtable_mb) << 20;
  config.direct_reads = absl::GetFlag(FLAGS_direct_reads);
  const std::vector<std::string> workloads =
      absl::StrSplit(absl::GetFlag(FLAGS_workloads), ',', absl::SkipEmpty());
  auto wants = [&](const char* w) {
    return std::find(workloads.begin(), workloads.end(), w) != workloads.end();
  };

  std::FILE* out = nullptr;
  if (!absl::GetFlag(FLAGS_out).empty()) {
    out = std::fopen(absl::GetFlag(FLAGS_out).c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "kv_bench: cannot write %s\n", absl::GetFlag(FLAGS_out).c_str());
      return 2;
    }
  }
  const std::string header = "engine,workload,num,value_size,ops,seconds,ops_per_sec,found\n";
  std::fputs(header.c_str(), stdout);
  if (out) std::fputs(header.c_str(), out);
  auto report = [&](const std::string& engine, const char* workload, const Result& r) {
    const std::string line = absl::StrFormat("%s,%s,%d,%d,%d,%.3f,%.0f,%d\n", engine, workload, n,
                                             absl::GetFlag(FLAGS_value_size), r.ops, r.seconds,
                                             r.ops / r.seconds, r.found);
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
    if (out) std::fputs(line.c_str(), out);
  };
  auto fail = [](const absl::Status& s) {
    std::fprintf(stderr, "kv_bench: %s\n", std::string(s.message()).c_str());
    return 1;
  };

  const std::vector<std::string> engines =
      absl::StrSplit(absl::GetFlag(FLAGS_engines), ',', absl::SkipEmpty());
  std::vector<std::unique_ptr<Engine>> open;
  for (const std::string& engine : engines) {
    const std::string dir = absl::GetFlag(FLAGS_db) + "/" + engine;
    if (wants("fillseq")) {
      absl::StatusOr<std::unique_ptr<Engine>> e = Fresh(engine, dir + "-seq", config);
      if (!e.ok()) return fail(e.status());
      absl::StatusOr<Result> r = Fill(**e, sequential, values);
      if (!r.ok()) return fail(r.status());
      report(engine, "fillseq", *r);
      e->reset();
      fs::remove_all(dir + "-seq");
    }
    absl::StatusOr<std::unique_ptr<Engine>> e = Fresh(engine, dir, config);
    if (!e.ok()) return fail(e.status());
    absl::StatusOr<Result> r = Fill(**e, fill_order, values);
    if (!r.ok()) return fail(r.status());
    if (wants("fillrandom")) report(engine, "fillrandom", *r);
    absl::Status s = (*e)->Settle();
    if (!s.ok()) return fail(s);
    open.push_back(*std::move(e));
  }

  const size_t chunks = std::max(1, absl::GetFlag(FLAGS_chunks));
  for (const char* workload : {"readrandom", "readmissing", "readwhilewriting"}) {
    if (!wants(workload)) continue;
    std::vector<Result> reads(open.size()), writes(open.size());
    std::vector<size_t> next_write(open.size(), 0);
    for (size_t c = 0; c < chunks; ++c) {
      const size_t begin = read_order.size() * c / chunks;
      const size_t end = read_order.size() * (c + 1) / chunks;
      for (size_t turn = 0; turn < open.size(); ++turn) {
        const size_t e = (c + turn) % open.size();
        absl::Status s = std::string_view(workload) == "readwhilewriting"
                             ? ReadWhileWriting(*open[e], read_order, begin, end, write_order,
                                                &next_write[e], values, &reads[e], &writes[e])
                             : Read(*open[e], read_order, begin, end,
                                    std::string_view(workload) == "readmissing", &reads[e]);
        if (!s.ok()) return fail(s);
      }
    }
    for (size_t e = 0; e < open.size(); ++e) {
      report(engines[e], workload, reads[e]);
      if (std::string_view(workload) == "readwhilewriting") {
        report(engines[e], "readwhilewriting_writes", writes[e]);
      }
    }
  }
  open.clear();
  for (const std::string& engine : engines) fs::remove_all(absl::GetFlag(FLAGS_db) + "/" + engine);
  if (out) std::fclose(out);
  return 0;
}

}  // namespace
}  // namespace kvstore_bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return kvstore_bench::Main();
}
