// sst_inspect blocks: every data block (offset, stored and raw size,
// compression, entries, restarts, first and last key), then the index and
// meta-index entries: RocksDB sst_dump's "raw" dump, for lsmbloom tables.

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

struct BlocksReport {
  std::vector<DataBlockInfo> data;
  std::vector<IndexEntry> index;
  std::vector<MetaIndexEntry> meta;
  uint64_t damaged = 0;
};

absl::StatusOr<BlocksReport> Read(const Options& o, const InputFile& file,
                                  const InspectedTable& t) {
  BlocksReport r;
  absl::StatusOr<std::vector<IndexEntry>> index = ReadIndex(t);
  if (!index.ok()) return index.status();
  absl::StatusOr<std::vector<MetaIndexEntry>> meta = ReadMetaIndex(t);
  if (!meta.ok()) return meta.status();
  Progress progress(o.style.progress, "blocks " + file.shown, index->size(), "data blocks");
  absl::StatusOr<std::vector<DataBlockInfo>> data =
      DescribeDataBlocks(t, [&](uint64_t done) { progress.Update(done); });
  if (!data.ok()) return data.status();
  r.data = std::move(*data);
  r.index = std::move(*index);
  r.meta = std::move(*meta);
  for (const DataBlockInfo& b : r.data) r.damaged += !b.status.ok();
  return r;
}

void PrintText(const Style& style, const std::string& shown, const BlocksReport& r) {
  std::printf("%s\n", shown.c_str());
  uint64_t stored = 0, raw = 0;
  for (const DataBlockInfo& b : r.data) {
    stored += b.location.size;
    raw += b.raw_size;
  }
  Row("data blocks",
      absl::StrCat(r.data.size(), ": ", stored, " bytes stored (without ", "trailers), ", raw,
                   " raw", r.damaged > 0 ? absl::StrCat("; ", r.damaged, " DAMAGED") : ""));
  uint64_t indexed = 0, buckets = 0;
  for (const DataBlockInfo& b : r.data) {
    indexed += b.hash_buckets != 0;
    buckets += b.hash_buckets;
  }
  if (indexed > 0) {
    Row("hash indexes", absl::StrCat(indexed, " of the data blocks, ", buckets,
                                     " one-byte buckets in all"));
  }
  std::printf("  %6s %10s %8s %8s %-6s %8s %8s  %s\n", "#", "offset", "stored", "raw", "comp",
              "entries", "restarts", "first key .. last key");
  for (const DataBlockInfo& b : r.data) {
    if (!b.status.ok()) {
      std::printf("  %6llu %10llu %8llu  DAMAGED: %s\n", static_cast<unsigned long long>(b.number),
                  static_cast<unsigned long long>(b.location.offset),
                  static_cast<unsigned long long>(b.location.size),
                  std::string(b.status.message()).c_str());
      continue;
    }
    std::printf(
        "  %6llu %10llu %8llu %8llu %-6s %8llu %8llu  %s @%llu .. %s @%llu\n",
        static_cast<unsigned long long>(b.number),
        static_cast<unsigned long long>(b.location.offset),
        static_cast<unsigned long long>(b.location.size),
        static_cast<unsigned long long>(b.raw_size), CompressionName(b.compression),
        static_cast<unsigned long long>(b.entries), static_cast<unsigned long long>(b.restarts),
        Quoted(style, b.first_key).c_str(), static_cast<unsigned long long>(b.first_sequence),
        Quoted(style, b.last_key).c_str(), static_cast<unsigned long long>(b.last_sequence));
  }
  Row("index entries", absl::StrCat(r.index.size(), " (separator: the last key of a block ",
                                    "or a shorter one between blocks)"));
  for (size_t i = 0; i < r.index.size(); ++i) {
    const IndexEntry& e = r.index[i];
    std::printf("  %6zu %s @%llu -> offset %llu, %llu bytes\n", i,
                Quoted(style, e.separator).c_str(), static_cast<unsigned long long>(e.sequence),
                static_cast<unsigned long long>(e.block.offset),
                static_cast<unsigned long long>(e.block.size));
  }
  Row("meta-index entries", absl::StrCat(r.meta.size()));
  for (const MetaIndexEntry& e : r.meta) {
    std::printf("         %s -> offset %llu, %llu bytes\n", Quoted(Style{}, e.name).c_str(),
                static_cast<unsigned long long>(e.block.offset),
                static_cast<unsigned long long>(e.block.size));
  }
}

Json ReportJson(const Style& style, const std::string& shown, const BlocksReport& r) {
  Json data = Json::array(), index = Json::array(), meta = Json::array();
  for (const DataBlockInfo& b : r.data) {
    Json j{{"number", b.number},
           {"offset", b.location.offset},
           {"stored_size", b.location.size},
           {"error", EscapeBytes(std::string(b.status.message()))}};
    if (b.status.ok()) {
      j["raw_size"] = b.raw_size;
      j["compression"] = CompressionName(b.compression);
      j["entries"] = b.entries;
      j["restarts"] = b.restarts;
      j["hash_buckets"] = b.hash_buckets;
      j["first_key"] = ShowBytes(style, b.first_key);
      j["first_sequence"] = b.first_sequence;
      j["last_key"] = ShowBytes(style, b.last_key);
      j["last_sequence"] = b.last_sequence;
    }
    data.push_back(std::move(j));
  }
  for (const IndexEntry& e : r.index) {
    index.push_back(Json{{"separator", ShowBytes(style, e.separator)},
                         {"sequence", e.sequence},
                         {"offset", e.block.offset},
                         {"size", e.block.size}});
  }
  for (const MetaIndexEntry& e : r.meta) {
    meta.push_back(
        Json{{"name", EscapeBytes(e.name)}, {"offset", e.block.offset}, {"size", e.block.size}});
  }
  return Json{{"file", EscapeBytes(shown)},
              {"damaged_data_blocks", r.damaged},
              {"data_blocks", data},
              {"index", index},
              {"metaindex", meta}};
}

}  // namespace

int RunBlocks(const Options& o, const std::vector<InputFile>& files, Json* doc) {
  bool damaged = false;
  const uint64_t unreadable = ForEachTable(
      o, "blocks", files, doc,
      [&](const InputFile& file, const InspectedTable& t) { return Read(o, file, t); },
      [&](const InputFile& file, const InspectedTable&, const BlocksReport& r) {
        if (o.style.json) {
          (*doc)["files"].push_back(ReportJson(o.style, file.shown, r));
        } else {
          PrintText(o.style, file.shown, r);
        }
        if (r.damaged > 0) {
          Complain(file.shown,
                   absl::StrCat(r.damaged, " damaged data block", r.damaged == 1 ? "" : "s"));
          damaged = true;
        }
      });
  return unreadable == 0 && !damaged ? kExitOk : kExitProblem;
}

}  // namespace inspect
}  // namespace lsmbloom
