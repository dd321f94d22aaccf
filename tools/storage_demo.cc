#include "tools/storage_demo.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/table/block_cache.h"
#include "lsmbloom/table/table.h"

namespace lsmbloom {
namespace demo {
namespace {

using Clock = std::chrono::steady_clock;

struct Pass {
  double ns_per_key = 0;
  double file_reads_per_key = 0;
  double hit_rate = 0;
};

// Looks up keys[0, n) with Get (batch == 0) or MultiGet of `batch` keys.
absl::StatusOr<Pass> Measure(TableSet& set, const std::vector<std::string>& keys, uint64_t n,
                             size_t batch) {
  n = std::min<uint64_t>(n, keys.size());
  set.ResetStats();
  const Clock::time_point start = Clock::now();
  if (batch == 0) {
    LookupResult r;
    for (uint64_t i = 0; i < n; ++i) {
      absl::Status s = set.Get(keys[i], &r);
      if (!s.ok()) return s;
    }
  } else {
    std::vector<std::string_view> views(keys.begin(), keys.begin() + n);
    for (size_t i = 0; i < views.size(); i += batch) {
      const size_t m = std::min(batch, views.size() - i);
      for (const auto& r : set.MultiGet(absl::MakeConstSpan(&views[i], m))) {
        if (!r.ok()) return r.status();
      }
    }
  }
  Pass p;
  p.ns_per_key = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
  const LookupStats stats = set.stats();
  p.file_reads_per_key = stats.file_reads_per_lookup();
  p.hit_rate = stats.block_cache_hit_rate();
  return p;
}

}  // namespace

absl::Status RunStorageDemo(const std::string& dir, const VersionEdit& edit,
                            const std::vector<std::string>& present,
                            const std::vector<std::string>& absent, uint64_t lookups) {
  FileAccess access = FileAccess::kDirect;
  uint64_t data_bytes = 0;
  VersionEdit on_storage;
  std::shared_ptr<BlockCache> cache;
  for (const TableFile& f : edit.added) data_bytes += f.table->file_size();
  BlockCacheOptions cache_options;
  cache_options.capacity_bytes = data_bytes / 20;
  absl::StatusOr<std::shared_ptr<BlockCache>> made = BlockCache::Create(cache_options);
  if (!made.ok()) return made.status();
  cache = *made;
  for (const TableFile& f : edit.added) {
    const std::string path = absl::StrCat(dir, "/", f.file_number, ".sst");
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenPosixFile(path, access);
    if (!file.ok() && access == FileAccess::kDirect && absl::IsInvalidArgument(file.status())) {
      std::printf("(%s: reading through pread instead)\n",
                  std::string(file.status().message()).c_str());
      access = FileAccess::kPread;
      file = OpenPosixFile(path, access);
    }
    if (!file.ok()) return file.status();
    TableReadOptions read_options;
    read_options.block_cache = cache;
    absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file), read_options);
    if (!table.ok()) return table.status();
    on_storage.added.push_back(TableFile{f.level, f.file_number, std::move(*table)});
  }
  TableSet set;
  absl::Status s = set.Apply(on_storage);
  if (!s.ok()) return s;
  // The device's read time, from the bottom level's largest file.
  const TableFile* bottom = &on_storage.added.front();
  for (const TableFile& f : on_storage.added) {
    if (f.table->file_size() > bottom->table->file_size()) bottom = &f;
  }
  absl::StatusOr<double> read_ns = MeasureFalsePositiveReadNanos(*bottom->table);
  if (!read_ns.ok()) return read_ns.status();

  std::printf(
      "\n== The same files on storage: %s, a block cache of %.1f MB (5%% of %.1f MB) ==\n",
      access == FileAccess::kDirect ? "direct reads (O_DIRECT)" : "pread", data_bytes / 20 / 1e6,
      data_bytes / 1e6);
  std::printf("one data-block read from the device: %.1f us (median of 64)\n", *read_ns / 1000);
  std::printf("%-28s %12s %16s %10s\n", "", "per key", "device reads/key", "cache hits");
  // MultiGet's keys are others than the Gets', which the cache now holds.
  const std::vector<std::string> others(
      present.begin() + std::min<size_t>(present.size(), lookups), present.end());
  // A working set that fits the cache: 100 present keys, over and over.
  std::vector<std::string> hot;
  const size_t num_hot = std::min<size_t>(100, present.size());
  for (uint64_t i = 0; i < lookups && num_hot > 0; ++i) hot.push_back(present[i % num_hot]);
  const struct {
    const char* name;
    const std::vector<std::string>* keys;
    size_t batch;
  } passes[] = {{"Get, absent keys", &absent, 0},
                {"Get, present keys", &present, 0},
                {"MultiGet(32), present keys", others.empty() ? &present : &others, 32},
                {"Get, 100 hot present keys", &hot, 0}};
  for (const auto& pass : passes) {
    absl::StatusOr<Pass> p = Measure(set, *pass.keys, lookups, pass.batch);
    if (!p.ok()) return p.status();
    std::printf("%-28s %9.1f us %16.3f %9.1f%%\n", pass.name, p->ns_per_key / 1000,
                p->file_reads_per_key, 100 * p->hit_rate);
  }
  std::printf(
      "(an absent key costs what its false-positive reads cost: the filters' job; the budget "
      "weighs a read at the time measured above, FilterBudgetOptions::false_positive_read_ns)\n");
  return absl::OkStatus();
}

}  // namespace demo
}  // namespace lsmbloom
