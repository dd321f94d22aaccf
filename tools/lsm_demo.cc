#include "tools/lsm_demo.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lsmbloom/lookup.h"
#include "lsmbloom/table.h"
#include "lsmbloom/table_builder.h"

namespace lsmbloom {
namespace demo {
namespace {

using Clock = std::chrono::steady_clock;

// Key ids: even ids exist, odd ids never do, so absent probes fall inside
// the files' key ranges and only the filters can rule them out.
std::string KeyOf(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "user%012llu", static_cast<unsigned long long>(id));
  return buf;
}

struct Layout {
  int level;
  int files;
  double share;  // Fraction of keys with a version in this level.
};

// Bottom level holds every key; upper levels hold newer versions of a share
// of them (and some tombstones); level 0's files overlap.
constexpr Layout kLayout[] = {{3, 24, 1.0}, {2, 12, 0.3}, {1, 6, 0.1}, {0, 6, 0.06}};

struct Progress {
  uint64_t done = 0, total = 0;
  Clock::time_point last = Clock::now();
  void Tick(uint64_t n) {
    done += n;
    if (Clock::now() - last > std::chrono::seconds(1) || done == total) {
      std::fprintf(stderr, "\r  writing tables: %3.0f%%", 100.0 * done / total);
      if (done == total) std::fprintf(stderr, "\n");
      last = Clock::now();
    }
  }
};

absl::Status WriteTable(const std::string& path, const TableOptions& options,
                        const std::vector<uint64_t>& ids, uint64_t seq, int level,
                        Progress& progress, std::shared_ptr<const Table>* out) {
  absl::StatusOr<std::unique_ptr<WritableFile>> file = NewPosixWritableFile(path);
  if (!file.ok()) return file.status();
  TableBuilder builder(options, std::move(*file));
  const std::string value(24, static_cast<char>('a' + level));
  for (uint64_t id : ids) {
    // One in 16 upper-level entries is a tombstone: a delete of an older key.
    const bool tombstone = level < 3 && (id / 2) % 16 == 5;
    absl::Status s = builder.Add(KeyOf(id), seq,
                                 tombstone ? EntryType::kDeletion : EntryType::kValue,
                                 tombstone ? "" : value);
    if (!s.ok()) return s;
  }
  absl::Status s = builder.Finish();
  if (!s.ok()) return s;
  progress.Tick(ids.size());
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> readable = OpenPosixFile(path, /*mmap=*/true);
  if (!readable.ok()) return readable.status();
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*readable));
  if (!table.ok()) return table.status();
  *out = std::move(*table);
  return absl::OkStatus();
}

double NanosPer(Clock::time_point start, uint64_t n) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
}

struct Timing {
  double get_present, get_absent, multiget_present, multiget_absent;
};

absl::Status TimeLookups(const TableSet& set, const std::vector<std::string>& present,
                         const std::vector<std::string>& absent, bool with_multiget,
                         Timing* t) {
  auto run_gets = [&](const std::vector<std::string>& keys, double* ns) -> absl::Status {
    const Clock::time_point start = Clock::now();
    for (const std::string& k : keys) {
      absl::StatusOr<LookupResult> r = set.Get(k);
      if (!r.ok()) return r.status();
    }
    *ns = NanosPer(start, keys.size());
    return absl::OkStatus();
  };
  auto run_multigets = [&](const std::vector<std::string>& keys, double* ns) -> absl::Status {
    std::vector<std::string_view> views(keys.begin(), keys.end());
    const Clock::time_point start = Clock::now();
    for (size_t i = 0; i < views.size(); i += 256) {
      const size_t n = std::min<size_t>(256, views.size() - i);
      for (const auto& r : set.MultiGet(absl::MakeConstSpan(&views[i], n))) {
        if (!r.ok()) return r.status();
      }
    }
    *ns = NanosPer(start, keys.size());
    return absl::OkStatus();
  };
  absl::Status s = run_gets(present, &t->get_present);
  if (s.ok()) s = run_gets(absent, &t->get_absent);
  if (s.ok() && with_multiget) s = run_multigets(present, &t->multiget_present);
  if (s.ok() && with_multiget) s = run_multigets(absent, &t->multiget_absent);
  return s;
}

}  // namespace

absl::Status RunLsmDemo(const LsmDemoOptions& options) {
  std::string dir = options.dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/lsmbloom-demo-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return absl::InternalError("cannot create a temp dir");
    dir = tmpl;
  } else if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InvalidArgumentError(absl::StrCat("cannot create ", dir));
  }
  const uint64_t n = options.num_keys;
  std::printf("== An LSM tree: %llu keys in 4 levels of table files under %s ==\n",
              static_cast<unsigned long long>(n), dir.c_str());

  BlockedBloomOptions filter_options;
  filter_options.bits_per_key = options.bits_per_key;
  TableOptions table_options;
  table_options.filter_policy = NewBlockedBloomPolicy(filter_options);
  if (table_options.filter_policy == nullptr) {
    return absl::InvalidArgumentError("bad --bits_per_key");
  }

  std::mt19937_64 rng(20261202);
  TableSet with_filters, without_filters(LookupOptions{/*use_filters=*/false, false});
  VersionEdit edit;
  Progress progress;
  for (const Layout& l : kLayout) progress.total += static_cast<uint64_t>(n * l.share);
  uint64_t file_number = 1, seq = 1;
  const Clock::time_point build_start = Clock::now();
  for (const Layout& layout : kLayout) {  // Oldest (bottom) level first.
    std::vector<uint64_t> ids;
    for (uint64_t i = 0; i < n; ++i) {
      if (layout.share >= 1.0 || (rng() % 1000) < layout.share * 1000) ids.push_back(2 * i);
    }
    // Level 0 files overlap: each takes a random subset. Deeper levels are
    // cut into consecutive key ranges.
    std::vector<std::vector<uint64_t>> per_file(layout.files);
    for (size_t i = 0; i < ids.size(); ++i) {
      const size_t f = layout.level == 0 ? rng() % layout.files : i * layout.files / ids.size();
      per_file[f].push_back(ids[i]);
    }
    for (const auto& file_ids : per_file) {
      if (file_ids.empty()) continue;
      std::shared_ptr<const Table> table;
      absl::Status s = WriteTable(absl::StrCat(dir, "/", file_number, ".sst"),
                                  table_options, file_ids, seq++, layout.level, progress,
                                  &table);
      if (!s.ok()) return s;
      edit.added.push_back({layout.level, file_number++, table});
    }
  }
  const double build_s =
      std::chrono::duration<double>(Clock::now() - build_start).count();
  absl::Status s = with_filters.Apply(edit);
  if (s.ok()) s = without_filters.Apply(edit);
  if (!s.ok()) return s;
  std::printf("built %llu files in %.1f s\n",
              static_cast<unsigned long long>(file_number - 1), build_s);

  std::vector<std::string> present, absent;
  for (uint64_t i = 0; i < options.lookups; ++i) {
    present.push_back(KeyOf(2 * (rng() % n)));
    absent.push_back(KeyOf(2 * (rng() % n) + 1));
  }
  std::shuffle(present.begin(), present.end(), rng);

  // Counters from single lookups with filters on.
  Timing on{}, off{};
  s = TimeLookups(with_filters, present, absent, /*with_multiget=*/false, &on);
  if (!s.ok()) return s;
  const LookupStats stats = with_filters.stats();
  s = TimeLookups(with_filters, present, absent, /*with_multiget=*/true, &on);
  if (s.ok()) s = TimeLookups(without_filters, present, absent, false, &off);
  if (!s.ok()) return s;
  const LookupStats no_filter_stats = without_filters.stats();

  std::printf("\n%llu lookups of present keys, then %llu of absent keys (filters on):\n",
              static_cast<unsigned long long>(options.lookups),
              static_cast<unsigned long long>(options.lookups));
  std::printf("%-5s %5s %9s %9s %11s %9s %9s %10s %10s %10s\n", "level", "files",
              "filter", "checked", "ruled out", "maybe", "had key", "FPR seen",
              "predicted", "blk reads");
  uint64_t saved = 0, reads = 0;
  for (int level = 0; level < kNumLevels; ++level) {
    const LevelStats& l = stats.levels[level];
    if (l.files == 0) continue;
    saved += l.filters_ruled_out;
    reads += l.data_block_reads;
    std::printf("L%-4d %5llu %7.2fMB %9llu %11llu %9llu %9llu %9.3f%% %9.3f%% %10llu\n",
                level, static_cast<unsigned long long>(l.files), l.filter_bytes / 1e6,
                static_cast<unsigned long long>(l.filters_checked),
                static_cast<unsigned long long>(l.filters_ruled_out),
                static_cast<unsigned long long>(l.filters_positive),
                static_cast<unsigned long long>(l.filters_true_positive),
                100 * l.observed_fpr(), 100 * l.predicted_fpr,
                static_cast<unsigned long long>(l.data_block_reads));
  }
  uint64_t reads_off = 0;
  for (const LevelStats& l : no_filter_stats.levels) reads_off += l.data_block_reads;
  std::printf("file reads the filters saved: %llu (%.2f per lookup); data-block reads "
              "with filters %llu, without %llu\n",
              static_cast<unsigned long long>(saved),
              static_cast<double>(saved) / (2 * options.lookups),
              static_cast<unsigned long long>(reads),
              static_cast<unsigned long long>(reads_off / 1));
  std::printf("filter memory: %.2f MB in total\n", stats.total_filter_bytes / 1e6);
  std::printf("\nlookup speed          present key   absent key\n");
  std::printf("Get, filters on       %8.0f ns  %8.0f ns\n", on.get_present, on.get_absent);
  std::printf("Get, filters off      %8.0f ns  %8.0f ns\n", off.get_present, off.get_absent);
  std::printf("MultiGet(256), on     %8.0f ns  %8.0f ns\n", on.multiget_present,
              on.multiget_absent);
  std::printf("(files are mmap'd and stay in the page cache; without filters every "
              "file whose key range holds the key is searched)\n");
  if (options.dir.empty()) {
    for (uint64_t f = 1; f < file_number; ++f) {
      ::unlink(absl::StrCat(dir, "/", f, ".sst").c_str());
    }
    ::rmdir(dir.c_str());
  }
  return absl::OkStatus();
}

}  // namespace demo
}  // namespace lsmbloom
