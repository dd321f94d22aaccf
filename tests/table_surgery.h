// Table files taken apart by hand, as docs/FORMAT.md describes them (an
// oracle independent of the reader under test), and the block surgery the
// corruption, placement, fault and fuzz tests do: swap two blocks, copy one
// from another table, recompute a trailer.

#ifndef LSMBLOOM_TESTS_TABLE_SURGERY_H_
#define LSMBLOOM_TESTS_TABLE_SURGERY_H_

#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lsmbloom {
namespace testutil {

inline constexpr size_t kTrailerSize = 9;  // Compression byte, checksum.
inline constexpr size_t kFooterSize = 64;

// Block kinds as the version 2 checksum names them.
enum class Kind : uint8_t { kData = 1, kFilter = 2, kProperties = 3, kMetaIndex = 4, kIndex = 5 };

struct Region {
  std::string name;  // data, padding, filter, properties, metaindex, index, footer.
  size_t begin;
  size_t end;  // Past the block's trailer, if it has one.
  bool has_trailer;
  size_t block_size() const { return end - begin - kTrailerSize; }
};

inline bool GetVarint(std::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

inline uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

inline uint64_t GetFixed64(const char* p) {
  return GetFixed32(p) | static_cast<uint64_t>(GetFixed32(p + 4)) << 32;
}

inline void PutFixed64At(std::string* s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) (*s)[at + i] = static_cast<char>(v >> (8 * i));
}

// A block handle as a region: the block, then its trailer. False if it does
// not fit before the footer.
inline bool GetBlockRegion(std::string_view* in, const std::string& name, size_t file_size,
                           Region* region) {
  uint64_t offset, size;
  if (!GetVarint(in, &offset) || !GetVarint(in, &size)) return false;
  const size_t limit = file_size - kFooterSize;
  if (offset > limit || size > limit - offset || limit - offset - size < kTrailerSize) {
    return false;
  }
  *region = {name, offset, offset + size + kTrailerSize, true};
  return true;
}

// The (key, value) entries of an uncompressed block: prefix-compressed
// entries, then the restart array and its fixed32 length.
inline bool ParseBlock(std::string_view block,
                       std::vector<std::pair<std::string, std::string>>* entries) {
  if (block.size() < 4) return false;
  const uint32_t restarts = GetFixed32(block.data() + block.size() - 4);
  if (restarts > (block.size() - 4) / 4) return false;
  std::string_view in = block.substr(0, block.size() - 4 - 4 * size_t{restarts});
  std::string key;
  while (!in.empty()) {
    uint64_t shared, non_shared, value_size;
    if (!GetVarint(&in, &shared) || !GetVarint(&in, &non_shared) || !GetVarint(&in, &value_size) ||
        shared > key.size() || non_shared > in.size() || value_size > in.size() - non_shared) {
      return false;
    }
    key.resize(shared);
    key.append(in.data(), non_shared);
    entries->emplace_back(key, std::string(in.substr(non_shared, value_size)));
    in.remove_prefix(non_shared + value_size);
  }
  return true;
}

inline std::string_view BlockOf(std::string_view file, const Region& r) {
  return file.substr(r.begin, r.end - r.begin - kTrailerSize);
}

// Every region of `file` in file order: the footer names the index and
// meta-index, the index names the data blocks, the meta-index the filter
// and properties. The zero padding that aligns the filter is a region too.
// False when the file does not parse as a table (any version).
inline bool FindRegions(std::string_view file, std::vector<Region>* regions) {
  regions->clear();
  if (file.size() < kFooterSize) return false;
  const Region footer = {"footer", file.size() - kFooterSize, file.size(), false};
  std::string_view handles = file.substr(footer.begin, 40);
  Region metaindex, index;
  if (!GetBlockRegion(&handles, "metaindex", file.size(), &metaindex) ||
      !GetBlockRegion(&handles, "index", file.size(), &index)) {
    return false;
  }

  std::vector<std::pair<std::string, std::string>> entries;
  if (!ParseBlock(BlockOf(file, index), &entries)) return false;
  for (const auto& [last_key, handle] : entries) {
    std::string_view in = handle;
    Region data;
    if (!GetBlockRegion(&in, "data", file.size(), &data)) return false;
    regions->push_back(data);
  }

  const size_t data_end = regions->empty() ? 0 : regions->back().end;
  entries.clear();
  if (!ParseBlock(BlockOf(file, metaindex), &entries)) return false;
  for (const auto& [name, handle] : entries) {
    std::string_view in = handle;
    Region r;
    if (name == "lsmbloom.properties") {
      if (!GetBlockRegion(&in, "properties", file.size(), &r)) return false;
    } else if (name.rfind("filter.", 0) == 0) {
      if (!GetBlockRegion(&in, "filter", file.size(), &r)) return false;
      if (r.begin > data_end) regions->push_back({"padding", data_end, r.begin, false});
    } else {
      return false;  // Nothing else is written; a test table should not have it.
    }
    regions->push_back(r);
  }
  regions->push_back(metaindex);
  regions->push_back(index);
  regions->push_back(footer);
  return true;
}

inline std::vector<Region> RegionsNamed(const std::vector<Region>& regions,
                                        const std::string& name) {
  std::vector<Region> out;
  for (const Region& r : regions) {
    if (r.name == name) out.push_back(r);
  }
  return out;
}

// The footer's unique id (version 2: bytes [32, 40) of the footer).
inline uint64_t UniqueIdOf(std::string_view file) {
  return GetFixed64(file.data() + file.size() - kFooterSize + 32);
}

// A version 2 trailer checksum, computed as docs/FORMAT.md states it:
// XXH3-64(block) XOR XXH3-64(fixed64 offset, kind, compression, 6 zero
// bytes; seed = unique id).
inline uint64_t V2Checksum(std::string_view block, uint64_t offset, Kind kind, uint8_t compression,
                           uint64_t unique_id) {
  char where[16] = {};
  for (int i = 0; i < 8; ++i) where[i] = static_cast<char>(offset >> (8 * i));
  where[8] = static_cast<char>(kind);
  where[9] = static_cast<char>(compression);
  return XXH3_64bits(block.data(), block.size()) ^
         XXH3_64bits_withSeed(where, sizeof(where), unique_id);
}

// Rewrites the trailer checksum of the block in `r` for its place in `file`.
inline void FixTrailer(std::string* file, const Region& r, Kind kind) {
  const size_t at = r.end - kTrailerSize;
  PutFixed64At(file, at + 1,
               V2Checksum(BlockOf(*file, r), r.begin, kind, static_cast<uint8_t>((*file)[at]),
                          UniqueIdOf(*file)));
}

// Swaps two regions of the same size (block and trailer each).
inline void SwapRegions(std::string* file, const Region& a, const Region& b) {
  std::string tmp = file->substr(a.begin, a.end - a.begin);
  file->replace(a.begin, a.end - a.begin, *file, b.begin, b.end - b.begin);
  file->replace(b.begin, tmp.size(), tmp);
}

// Overwrites `to` (block and trailer) with the same number of bytes from
// `from` of `source`, which may be `file` itself: a fuzzed table's index
// can name overlapping regions, so the bytes may overlap.
inline void CopyRegion(std::string* file, const Region& to, std::string_view source, size_t from) {
  const size_t n = to.end - to.begin;
  std::memmove(&(*file)[to.begin], source.data() + from, n);
}

// Pairs of distinct data blocks of the same size, as indexes into `data`.
inline std::vector<std::pair<size_t, size_t>> SameSizePairs(const std::vector<Region>& data) {
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < data.size(); ++i) {
    for (size_t j = i + 1; j < data.size(); ++j) {
      if (data[i].end - data[i].begin == data[j].end - data[j].begin) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

// ---------------------------------------------------------------- forging
// A crafted file carries checksums that hold (XXH3 is not a MAC). What
// follows rewrites handles and properties and recomputes every checksum
// they are under, as such a file would.

inline void PutVarint(std::string* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}

inline void PutFixed(std::string* s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}

inline std::string EncodeHandle(uint64_t offset, uint64_t size) {
  std::string s;
  PutVarint(&s, offset);
  PutVarint(&s, size);
  return s;
}

using Entries = std::vector<std::pair<std::string, std::string>>;

// A block as the builder writes meta blocks: every entry a restart point.
inline std::string EncodeBlock(const Entries& entries) {
  std::string block;
  std::vector<uint32_t> restarts;
  for (const auto& [key, value] : entries) {
    restarts.push_back(static_cast<uint32_t>(block.size()));
    PutVarint(&block, 0);
    PutVarint(&block, key.size());
    PutVarint(&block, value.size());
    block += key;
    block += value;
  }
  for (uint32_t r : restarts) PutFixed(&block, r, 4);
  PutFixed(&block, restarts.size(), 4);
  return block;
}

inline Kind KindOfRegion(const std::string& name) {
  if (name == "data") return Kind::kData;
  if (name == "filter") return Kind::kFilter;
  if (name == "properties") return Kind::kProperties;
  if (name == "metaindex") return Kind::kMetaIndex;
  return Kind::kIndex;
}

// A version 2 footer's checksum: XXH3-64 of its first 48 bytes, seeded
// with its offset.
inline void FixFooter(std::string* file) {
  if (file->size() < kFooterSize) return;
  const size_t at = file->size() - kFooterSize;
  PutFixed64At(file, at + 48, XXH3_64bits_withSeed(file->data() + at, 48, at));
}

// Appends `block` (uncompressed) and its version 2 trailer at the end of
// *file; returns its handle.
inline std::string AppendBlock(std::string* file, const std::string& block, Kind kind,
                               uint64_t unique_id) {
  const uint64_t offset = file->size();
  *file += block;
  file->push_back('\0');
  PutFixed(file, V2Checksum(block, offset, kind, 0, unique_id), 8);
  return EncodeHandle(offset, block.size());
}

// A version 2 or 3 table taken apart at its properties block: the bytes
// before it (data blocks, padding, filter) as they are, and the blocks after
// it as entries, to edit and assemble again with every checksum right.
struct TableTail {
  std::string head;
  Entries properties, metaindex, index;
  uint64_t unique_id = 0;
  uint32_t version = 0;
  // Written in place of the true handle when not empty: a crafted one.
  std::string properties_handle, metaindex_handle, index_handle;
};

inline bool SplitTable(std::string_view file, TableTail* tail) {
  std::vector<Region> regions;
  if (!FindRegions(file, &regions)) return false;
  *tail = TableTail();
  tail->version = GetFixed32(file.data() + file.size() - kFooterSize + 40);
  if (tail->version < 2) return false;
  tail->unique_id = UniqueIdOf(file);
  for (const Region& r : regions) {
    Entries* entries = r.name == "properties"  ? &tail->properties
                       : r.name == "metaindex" ? &tail->metaindex
                       : r.name == "index"     ? &tail->index
                                               : nullptr;
    if (entries == nullptr) continue;
    if (r.name == "properties") tail->head = std::string(file.substr(0, r.begin));
    if (file[r.end - kTrailerSize] != 0 || !ParseBlock(BlockOf(file, r), entries)) return false;
  }
  return !tail->head.empty() || !tail->properties.empty();
}

inline std::string AssembleTable(const TableTail& tail) {
  std::string file = tail.head;
  const Kind kProps = Kind::kProperties;
  std::string props = AppendBlock(&file, EncodeBlock(tail.properties), kProps, tail.unique_id);
  if (!tail.properties_handle.empty()) props = tail.properties_handle;
  Entries metaindex = tail.metaindex;
  for (auto& [name, handle] : metaindex) {
    if (name == "lsmbloom.properties") handle = props;
  }
  std::string meta = AppendBlock(&file, EncodeBlock(metaindex), Kind::kMetaIndex, tail.unique_id);
  std::string index = AppendBlock(&file, EncodeBlock(tail.index), Kind::kIndex, tail.unique_id);
  if (!tail.metaindex_handle.empty()) meta = tail.metaindex_handle;
  if (!tail.index_handle.empty()) index = tail.index_handle;
  std::string footer = meta + index;
  footer.resize(32, '\0');
  PutFixed(&footer, tail.unique_id, 8);
  PutFixed(&footer, tail.version, 4);
  PutFixed(&footer, 0, 4);
  PutFixed(&footer, 0, 8);  // The checksum, below.
  PutFixed(&footer, 0x31424c424d534c88ull, 8);
  file += footer;
  FixFooter(&file);
  return file;
}

// A modular filter's header checksum (XXH3-64 of its fixed part and
// entries, after them), and the properties' record of the header's
// checksum (16 hex digits, rewritten in place), for the filter block at
// `filter` and the properties block at `props`. Trailers not fixed.
inline void FixModularHeader(std::string* file, const Region& filter, const Region& props) {
  const size_t n = filter.block_size();
  char* p = &(*file)[filter.begin];
  if (n < 16 || GetFixed32(p) != 0x4d4d534c) return;  // Not a modular filter.
  const size_t modules = static_cast<uint8_t>(p[5]);
  const size_t checked = 16 + 32 * modules;
  const size_t header = (checked + 8 + 63) / 64 * 64;
  if (modules == 0 || header > n) return;
  PutFixed64At(file, filter.begin + checked, XXH3_64bits(p, checked));
  const std::string key = "lsmbloom.filter.head_checksum";
  const size_t at = std::string_view(*file).substr(0, props.end).find(key, props.begin);
  if (at == std::string::npos || at + key.size() + 16 > props.end - kTrailerSize) return;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(file->data() + filter.begin, header)));
  file->replace(at + key.size(), 16, hex, 16);
}

// Recomputes, in a version 2 or 3 table of any bytes, the trailer of every
// block a handle names that lies within the file, a modular filter's
// header checksums, then the footer's checksum: what a crafted file does
// after editing bytes. Blocks are found as far as the handles and blocks
// parse; a handle that names bytes past the end is left as it is, for the
// reader to refuse.
inline void FixAllTrailers(std::string* file) {
  if (file->size() < kFooterSize) return;
  const size_t footer = file->size() - kFooterSize;
  if (GetFixed32(file->data() + footer + 40) < 2) return;
  auto region_at = [&](std::string_view handle, const std::string& name, Region* r) {
    return GetBlockRegion(&handle, name, file->size(), r);
  };
  std::string_view handles(file->data() + footer, 32);
  Region meta, index;
  const bool have_meta = GetBlockRegion(&handles, "metaindex", file->size(), &meta);
  const bool have_index = have_meta && GetBlockRegion(&handles, "index", file->size(), &index);
  Entries entries;
  std::vector<Region> blocks;
  if (have_index && ParseBlock(BlockOf(*file, index), &entries)) {
    for (const auto& [key, handle] : entries) {
      Region r;
      if (region_at(handle, "data", &r)) blocks.push_back(r);
    }
  }
  entries.clear();
  std::vector<Region> filters, props;
  if (have_meta && ParseBlock(BlockOf(*file, meta), &entries)) {
    for (const auto& [name, handle] : entries) {
      Region r;
      const bool is_props = name == "lsmbloom.properties";
      if (region_at(handle, is_props ? "properties" : "filter", &r)) {
        (is_props ? props : filters).push_back(r);
        blocks.push_back(r);
      }
    }
  }
  if (filters.size() == 1 && props.size() == 1) FixModularHeader(file, filters[0], props[0]);
  // Meta-index and index last: a crafted handle may name bytes they share.
  if (have_meta) blocks.push_back(meta);
  if (have_index) blocks.push_back(index);
  for (const Region& r : blocks) FixTrailer(file, r, KindOfRegion(r.name));
  FixFooter(file);
}

}  // namespace testutil
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_TABLE_SURGERY_H_
