// sst_inspect sizes: key and value size statistics, entries per data block,
// and what each compression would store (RocksDB sst_dump's "recompress").

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

// Count, min, max, mean and a power-of-two histogram of sizes.
struct SizeStats {
  uint64_t count = 0, min = 0, max = 0, sum = 0;
  std::vector<uint64_t> bins;  // bins[0]: 0; bins[i]: [2^(i-1), 2^i).

  void Add(uint64_t n) {
    min = count == 0 ? n : std::min(min, n);
    max = std::max(max, n);
    sum += n;
    count++;
    size_t bin = 0;
    while (bin < 64 && (n >> bin) != 0) ++bin;
    if (bins.size() <= bin) bins.resize(bin + 1, 0);
    bins[bin]++;
  }
  double mean() const { return count == 0 ? 0 : static_cast<double>(sum) / count; }
  static uint64_t From(size_t bin) { return bin == 0 ? 0 : uint64_t{1} << (bin - 1); }
  static uint64_t To(size_t bin) { return bin == 0 ? 0 : (uint64_t{1} << bin) - 1; }
};

struct SizesReport {
  SizeStats keys, values;  // Values of value entries only.
  SizeStats block_entries, block_raw;
  uint64_t stored = 0, raw = 0;  // Data blocks, without trailers.
  Compression current = Compression::kNone;
  uint64_t with[3] = {0, 0, 0};  // Stored bytes under none, snappy, zstd.
};

constexpr Compression kAll[] = {Compression::kNone, Compression::kSnappy, Compression::kZstd};

absl::StatusOr<SizesReport> Measure(const Options& o, const InputFile& file,
                                    const InspectedTable& t) {
  SizesReport r;
  std::unique_ptr<TableIterator> it = t.table().NewIterator();
  {
    Progress progress(o.style.progress, "sizes " + file.shown + ": entries",
                      t.table().num_entries(), "entries");
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const TableEntry e = it->entry();
      r.keys.Add(e.user_key.size());
      if (e.type == EntryType::kValue) r.values.Add(e.value.size());
      progress.Update(r.keys.count);
    }
  }
  if (!it->status().ok()) return it->status();
  absl::StatusOr<std::vector<DataBlockInfo>> blocks = DescribeDataBlocks(t);
  if (!blocks.ok()) return blocks.status();
  Progress progress(o.style.progress, "sizes " + file.shown + ": recompress", blocks->size(),
                    "data blocks");
  for (const DataBlockInfo& b : *blocks) {
    if (!b.status.ok()) return b.status;
    r.block_entries.Add(b.entries);
    r.block_raw.Add(b.raw_size);
    r.stored += b.location.size;
    r.raw += b.raw_size;
    if (b.compression != Compression::kNone) r.current = b.compression;
    absl::StatusOr<std::string> contents = ReadDataBlockContents(t, b.location);
    if (!contents.ok()) return contents.status();
    for (Compression c : kAll) r.with[static_cast<int>(c)] += StoredSizeWith(*contents, c);
    progress.Update(b.number + 1);
  }
  return r;
}

void PrintStats(const char* label, const SizeStats& s) {
  Row(label, absl::StrFormat("%u: min %u, mean %.1f, max %u bytes, total %s", s.count, s.min,
                             s.mean(), s.max, Bytes(s.sum)));
  uint64_t most = 1;
  for (uint64_t n : s.bins) most = std::max(most, n);
  for (size_t i = 0; i < s.bins.size(); ++i) {
    if (s.bins[i] == 0) continue;
    const std::string range = SizeStats::From(i) == SizeStats::To(i)
                                  ? absl::StrCat(SizeStats::From(i))
                                  : absl::StrCat(SizeStats::From(i), "-", SizeStats::To(i));
    std::printf("%22s%13s | %-40s %8llu\n", "", range.c_str(),
                std::string(static_cast<size_t>((s.bins[i] * 40 + most - 1) / most), '#').c_str(),
                static_cast<unsigned long long>(s.bins[i]));
  }
}

void PrintText(const std::string& shown, const SizesReport& r) {
  std::printf("%s\n", shown.c_str());
  PrintStats("keys", r.keys);
  PrintStats("values", r.values);
  Row("entries per block",
      absl::StrFormat("min %u, mean %.1f, max %u over %u data blocks", r.block_entries.min,
                      r.block_entries.mean(), r.block_entries.max, r.block_entries.count));
  Row("raw block size", absl::StrFormat("min %u, mean %.1f, max %u bytes", r.block_raw.min,
                                        r.block_raw.mean(), r.block_raw.max));
  Row("data blocks", absl::StrCat(Bytes(r.stored), " stored, ", Bytes(r.raw), " raw, ",
                                  "compression ", CompressionName(r.current)));
  for (Compression c : kAll) {
    const uint64_t n = r.with[static_cast<int>(c)];
    const double ratio = r.raw == 0 ? 1 : static_cast<double>(n) / r.raw;
    const int64_t saves = static_cast<int64_t>(r.stored) - static_cast<int64_t>(n);
    Row(c == Compression::kNone ? "recompressed" : "",
        absl::StrFormat("%-6s %s, %.1f%% of raw, %s %d bytes against now", CompressionName(c),
                        Bytes(n), ratio * 100, saves >= 0 ? "saves" : "costs",
                        saves >= 0 ? saves : -saves));
  }
}

Json StatsJson(const SizeStats& s) {
  Json bins = Json::array();
  for (size_t i = 0; i < s.bins.size(); ++i) {
    if (s.bins[i] == 0) continue;
    bins.push_back(
        Json{{"from", SizeStats::From(i)}, {"to", SizeStats::To(i)}, {"count", s.bins[i]}});
  }
  return Json{{"count", s.count}, {"min", s.min},   {"mean", s.mean()},
              {"max", s.max},     {"total", s.sum}, {"histogram", bins}};
}

Json ReportJson(const std::string& shown, const SizesReport& r) {
  Json recompress = Json::object();
  for (Compression c : kAll) {
    const uint64_t n = r.with[static_cast<int>(c)];
    recompress[CompressionName(c)] =
        Json{{"stored_bytes", n}, {"ratio", r.raw == 0 ? 1.0 : static_cast<double>(n) / r.raw}};
  }
  return Json{{"file", EscapeBytes(shown)},
              {"keys", StatsJson(r.keys)},
              {"values", StatsJson(r.values)},
              {"block_entries", StatsJson(r.block_entries)},
              {"block_raw_bytes", StatsJson(r.block_raw)},
              {"data_stored_bytes", r.stored},
              {"data_raw_bytes", r.raw},
              {"compression", CompressionName(r.current)},
              {"recompress", recompress}};
}

}  // namespace

int RunSizes(const Options& o, const std::vector<InputFile>& files, Json* doc) {
  const uint64_t unreadable = ForEachTable(
      o, "sizes", files, doc,
      [&](const InputFile& file, const InspectedTable& t) { return Measure(o, file, t); },
      [&](const InputFile& file, const InspectedTable&, const SizesReport& r) {
        if (o.style.json) {
          (*doc)["files"].push_back(ReportJson(file.shown, r));
        } else {
          PrintText(file.shown, r);
        }
      });
  return unreadable == 0 ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
