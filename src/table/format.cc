#include "src/table/format.h"

#include <snappy.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lsmbloom {
namespace internal {
namespace {

absl::Status Corrupt(BlockKind kind, const std::string& why) {
  return absl::DataLossError(absl::StrCat(BlockKindName(kind), " ", why));
}

}  // namespace

const char* BlockKindName(BlockKind kind) {
  switch (kind) {
    case BlockKind::kData:
      return "data block";
    case BlockKind::kFilter:
      return "filter block";
    case BlockKind::kProperties:
      return "properties block";
    case BlockKind::kMetaIndex:
      return "meta-index block";
    case BlockKind::kIndex:
      return "index block";
  }
  return "block";
}

uint64_t PlacementTag(uint64_t unique_id, uint64_t offset, BlockKind kind, char compression) {
  char where[16] = {};
  for (int i = 0; i < 8; ++i) where[i] = static_cast<char>(offset >> (8 * i));
  where[8] = static_cast<char>(kind);
  where[9] = compression;
  return XXH3_64bits_withSeed(where, sizeof(where), unique_id);
}

uint64_t BlockChecksum(std::string_view block, char compression, BlockKind kind, uint64_t offset,
                       const TableContext& context) {
  if (context.format_version == 1) {
    // The compression byte as the seed: a flipped type byte fails too.
    return Checksum64(block.data(), block.size(), static_cast<uint8_t>(compression));
  }
  // The block's own hash on the fast unseeded path, then a tag for where it
  // belongs: the same bytes anywhere else, or in another table, fail.
  return Checksum64(block.data(), block.size()) ^
         PlacementTag(context.unique_id, offset, kind, compression);
}

uint64_t NewUniqueId() {
  static std::atomic<uint64_t> counter{0};
  uint64_t entropy[5] = {};
  // getrandom() rarely fails (very old kernels, seccomp); the clock, the
  // process and the counter still keep ids apart then.
  if (getrandom(entropy, 2 * sizeof(uint64_t), 0) != 2 * sizeof(uint64_t)) {
    entropy[0] = entropy[1] = 0;
  }
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  entropy[2] = static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
  entropy[3] = static_cast<uint64_t>(getpid());
  entropy[4] = counter.fetch_add(1, std::memory_order_relaxed);
  uint64_t id = XXH3_64bits(entropy, sizeof(entropy));
  while (id == 0) id = XXH3_64bits_withSeed(entropy, sizeof(entropy), ++entropy[4]);
  return id;
}

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  return GetVarint64(input, &offset) && GetVarint64(input, &size);
}

namespace {

// Where the handles end: v1 gave them 40 bytes, v2 32 (the id takes the rest).
size_t HandleBytes(uint32_t version) { return version == 1 ? 40 : 32; }

// The footer checksum's seed. v2 binds the footer to its offset, so a
// footer that is not at the end of the table it was written for (two
// tables concatenated, a file cut and padded) fails.
uint64_t FooterSeed(uint32_t version, uint64_t footer_offset) {
  return version == 1 ? 0 : footer_offset;
}

}  // namespace

std::string Footer::Encode(uint64_t footer_offset) const {
  std::string out;
  metaindex.EncodeTo(&out);
  index.EncodeTo(&out);
  out.resize(HandleBytes(context.format_version), '\0');
  PutFixed64(&out, context.unique_id);
  PutFixed32(&out, context.format_version);
  PutFixed32(&out, 0);
  PutFixed64(&out, XXH3_64bits_withSeed(out.data(), 48,
                                        FooterSeed(context.format_version, footer_offset)));
  PutFixed64(&out, kTableMagic);
  return out;
}

absl::StatusOr<Footer> Footer::Decode(std::string_view footer, uint64_t footer_offset) {
  if (footer.size() != kFooterSize) {
    return absl::DataLossError("table footer: file too short");
  }
  if (DecodeFixed64(footer.data() + 56) != kTableMagic) {
    return absl::DataLossError("table footer: bad magic (not an lsmbloom table)");
  }
  // The version is under the checksum, whose seed depends on it: every
  // version after 1 seeds with the offset, so a future version still reads
  // as "unsupported", a flipped one as damage.
  const uint32_t version = DecodeFixed32(footer.data() + 40);
  if (DecodeFixed64(footer.data() + 48) !=
      XXH3_64bits_withSeed(footer.data(), 48, FooterSeed(version, footer_offset))) {
    return absl::DataLossError(absl::StrCat(
        "table footer at offset ", footer_offset,
        ": checksum mismatch (damaged, or not at the end of the table it was written for)"));
  }
  if (version < kOldestReadableFormatVersion || version > kTableFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "table footer: unsupported table format version ", version, " (this reader reads ",
        kOldestReadableFormatVersion, " to ", kTableFormatVersion, ")"));
  }
  Footer f;
  f.context.format_version = version;
  if (version >= 2) {
    f.context.unique_id = DecodeFixed64(footer.data() + 32);
    if (f.context.unique_id == 0) return absl::DataLossError("table footer: unique id 0");
  }
  std::string_view handles = footer.substr(0, HandleBytes(version));
  if (!f.metaindex.DecodeFrom(&handles) || !f.index.DecodeFrom(&handles)) {
    return absl::DataLossError("table footer: bad block handles");
  }
  return f;
}

namespace {

// Whether `tail`, the bytes from a would-be footer's start, hold its first
// 56 bytes with a checksum that holds for a footer at `footer_offset`.
bool FooterChecksumHolds(std::string_view tail, uint64_t footer_offset) {
  if (tail.size() < 56) return false;
  const uint32_t version = DecodeFixed32(tail.data() + 40);
  return DecodeFixed64(tail.data() + 48) ==
         XXH3_64bits_withSeed(tail.data(), 48, FooterSeed(version, footer_offset));
}

}  // namespace

std::string ExplainMissingMagic(const RandomAccessFile& file) {
  constexpr uint64_t kMaxExtra = 64, kMaxMissing = 8;
  const uint64_t size = file.Size();
  const uint64_t start = size > kFooterSize + kMaxExtra ? size - kFooterSize - kMaxExtra : 0;
  std::string scratch(size - start, '\0');
  std::string_view tail;
  if (!file.Read(start, scratch.size(), &scratch[0], &tail).ok() || tail.size() != size - start) {
    return "";
  }
  char magic[8];
  for (int i = 0; i < 8; ++i) magic[i] = static_cast<char>(kTableMagic >> (8 * i));
  // Cut short by `missing` bytes: the footer began at size + missing - 64,
  // and the file ends with the first 8 - missing bytes of the magic.
  for (uint64_t missing = 1; missing <= kMaxMissing; ++missing) {
    if (size + missing < kFooterSize || size + missing - kFooterSize < start) continue;
    const uint64_t at = size + missing - kFooterSize;
    const std::string_view footer = tail.substr(at - start);
    if (footer.substr(56) == std::string_view(magic, 8 - missing) &&
        FooterChecksumHolds(footer, at)) {
      return absl::StrCat("file looks truncated: it ends ", missing, " byte",
                          missing == 1 ? "" : "s", " short of its table footer (a table of ",
                          size + missing, " bytes, cut to ", size, ")");
    }
  }
  for (uint64_t extra = 1; extra <= kMaxExtra; ++extra) {
    if (size < kFooterSize + extra || size - kFooterSize - extra < start) break;
    const uint64_t at = size - kFooterSize - extra;
    const std::string_view footer = tail.substr(at - start, kFooterSize);
    if (DecodeFixed64(footer.data() + 56) == kTableMagic && FooterChecksumHolds(footer, at)) {
      return absl::StrCat("a table of ", size - extra, " bytes followed by ", extra,
                          " extra bytes (the file was appended to)");
    }
  }
  return "";
}

absl::StatusOr<Compression> CompressForStorage(std::string_view raw, Compression compression,
                                               std::string* out) {
  if (compression == Compression::kSnappy) {
    snappy::Compress(raw.data(), raw.size(), out);
  } else if (compression == Compression::kZstd) {
    out->resize(ZSTD_compressBound(raw.size()));
    const size_t n = ZSTD_compress(&(*out)[0], out->size(), raw.data(), raw.size(),
                                   /*level=*/3);
    if (ZSTD_isError(n)) {
      return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(n)));
    }
    out->resize(n);
  } else {
    return Compression::kNone;
  }
  // Not worth decompressing on every read unless it saves 1/8.
  if (out->size() < raw.size() - raw.size() / 8) return compression;
  return Compression::kNone;
}

absl::StatusOr<BlockHandle> WriteBlock(WritableFile* file, uint64_t offset, std::string_view raw,
                                       BlockKind kind, Compression compression,
                                       const TableContext& context) {
  if (kind != BlockKind::kData) compression = Compression::kNone;
  std::string compressed;
  absl::StatusOr<Compression> used = CompressForStorage(raw, compression, &compressed);
  if (!used.ok()) return used.status();
  const std::string_view body = *used == Compression::kNone ? raw : compressed;
  if (offset + body.size() + kBlockTrailerSize >= kMaxTableSize) {
    return absl::InvalidArgumentError("table: a table is limited to 2^56 bytes");
  }
  const char type = static_cast<char>(*used);
  std::string trailer(1, type);
  PutFixed64(&trailer, BlockChecksum(body, type, kind, offset, context));
  absl::Status s = file->Append(body);
  if (s.ok()) s = file->Append(trailer);
  if (!s.ok()) return s;
  BlockHandle handle;
  handle.offset = offset;
  handle.size = body.size();
  return handle;
}

absl::Status CheckBlockHandle(const BlockHandle& handle, BlockKind kind, uint64_t limit) {
  if (!BlockHandleFits(handle, limit)) {
    return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": size ", handle.size,
                                      " extends past byte ", limit, " of the file"));
  }
  return absl::OkStatus();
}

std::string_view MappedBlockBytes(const RandomAccessFile& file, const BlockHandle& handle) {
  const std::string_view mapped = file.MappedContents();
  if (mapped.size() != file.Size() || !BlockHandleFits(handle, mapped.size())) return {};
  return mapped.substr(handle.offset, handle.size + kBlockTrailerSize);
}

absl::Status ReadBlockBytes(const RandomAccessFile& file, const BlockHandle& handle, BlockKind kind,
                            std::string* scratch, std::string_view* bytes) {
  absl::Status fits = CheckBlockHandle(handle, kind, file.Size());
  if (!fits.ok()) return fits;
  const size_t n = static_cast<size_t>(handle.size) + kBlockTrailerSize;
  *bytes = MappedBlockBytes(file, handle);  // In memory: no copy, no Read.
  if (bytes->empty()) {
    scratch->resize(n);
    absl::Status s = file.Read(handle.offset, n, &(*scratch)[0], bytes);
    if (!s.ok()) return s;
  }
  if (bytes->size() != n) {
    return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": short read, ", bytes->size(),
                                      " of ", n, " bytes"));
  }
  return absl::OkStatus();
}

// The block in `bytes` (block and trailer), checked and decompressed: in
// place when `scratch` is null (mapped bytes), else owned, taken from
// *scratch when `bytes` are its own.
absl::StatusOr<BlockContents> DecodeBlock(std::string_view bytes, std::string* scratch,
                                          const BlockHandle& handle, BlockKind kind,
                                          const TableContext& context, bool verify_checksum);

std::optional<uint64_t> WrittenForOffset(const RandomAccessFile& file, const BlockHandle& handle,
                                         BlockKind kind, const TableContext& context,
                                         const std::vector<uint64_t>& candidates) {
  if (context.format_version < 2) return std::nullopt;
  std::string scratch;
  std::string_view bytes;
  if (!ReadBlockBytes(file, handle, kind, &scratch, &bytes).ok()) return std::nullopt;
  const std::string_view body = bytes.substr(0, handle.size);
  const char type = bytes[handle.size];
  // stored = hash ^ tag(where it was written): recover that tag, then ask
  // which place it names.
  const uint64_t tag =
      DecodeFixed64(bytes.data() + handle.size + 1) ^ Checksum64(body.data(), body.size());
  for (uint64_t offset : candidates) {
    if (offset != handle.offset && PlacementTag(context.unique_id, offset, kind, type) == tag) {
      return offset;
    }
  }
  return std::nullopt;
}

absl::StatusOr<BlockContents> ReadBlock(const RandomAccessFile& file, const BlockHandle& handle,
                                        BlockKind kind, const TableContext& context,
                                        bool verify_checksum) {
  std::string scratch;
  std::string_view bytes;
  absl::Status s = ReadBlockBytes(file, handle, kind, &scratch, &bytes);
  if (!s.ok()) return s;
  return DecodeBlock(bytes, scratch.empty() ? nullptr : &scratch, handle, kind, context,
                     verify_checksum);
}

absl::StatusOr<BlockContents> DecodeReadBlock(std::string_view bytes, std::string* buffer,
                                              const BlockHandle& handle, BlockKind kind,
                                              const TableContext& context, bool verify_checksum) {
  // Compared without adding to handle.size, which a crafted handle may make
  // wrap past 2^64.
  if (bytes.size() < kBlockTrailerSize || bytes.size() - kBlockTrailerSize != handle.size) {
    return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": short read, ", bytes.size(),
                                      " of ", handle.size + kBlockTrailerSize, " bytes"));
  }
  std::string copy;
  const bool own = buffer != nullptr && buffer->data() == bytes.data();
  return DecodeBlock(bytes, own ? buffer : &copy, handle, kind, context, verify_checksum);
}

absl::StatusOr<BlockContents> DecodeBlock(std::string_view bytes, std::string* scratch,
                                          const BlockHandle& handle, BlockKind kind,
                                          const TableContext& context, bool verify_checksum) {
  BlockContents contents;
  const std::string_view body = bytes.substr(0, handle.size);
  const char type = bytes[handle.size];
  contents.compression = static_cast<Compression>(type);
  if (verify_checksum && DecodeFixed64(bytes.data() + handle.size + 1) !=
                             BlockChecksum(body, type, kind, handle.offset, context)) {
    return Corrupt(kind, absl::StrCat("at offset ", handle.offset, " (", handle.size,
                                      " bytes): checksum mismatch",
                                      context.format_version >= 2
                                          ? " (damaged, or a block from another place or table)"
                                          : ""));
  }
  if (type != static_cast<char>(Compression::kNone) && kind != BlockKind::kData) {
    return Corrupt(kind, absl::StrCat("at offset ", handle.offset,
                                      ": compressed, but only data blocks may be"));
  }
  // Decompressed sizes come from the (untrusted) block: cap them, and
  // refuse before allocating a size more than the compressed bytes can
  // expand to. Snappy's densest element is 3 bytes for 64 (a copy); zstd's
  // a 4-byte RLE block for 128 KiB.
  constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 30;
  constexpr uint64_t kMaxSnappyRatio = 22, kMaxZstdRatio = 32768;
  switch (static_cast<Compression>(type)) {
    case Compression::kNone:
      if (scratch == nullptr) {
        contents.mapped = body;  // In memory: no copy.
      } else {
        if (scratch->data() != body.data()) scratch->assign(body.data(), body.size());
        scratch->resize(handle.size);
        contents.owned = std::move(*scratch);
        contents.is_owned = true;
      }
      return contents;
    case Compression::kSnappy: {
      size_t size = 0;
      if (!snappy::GetUncompressedLength(body.data(), body.size(), &size) ||
          size > kMaxBlockBytes || size > body.size() * kMaxSnappyRatio ||
          !snappy::Uncompress(body.data(), body.size(), &contents.owned)) {
        return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": bad snappy data"));
      }
      contents.is_owned = true;
      return contents;
    }
    case Compression::kZstd: {
      const unsigned long long size = ZSTD_getFrameContentSize(body.data(), body.size());
      if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
          size > kMaxBlockBytes || size > body.size() * kMaxZstdRatio) {
        return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": bad zstd frame"));
      }
      contents.owned.resize(size);
      const size_t got = ZSTD_decompress(&contents.owned[0], size, body.data(), body.size());
      if (ZSTD_isError(got) || got != size) {
        return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": bad zstd data"));
      }
      contents.is_owned = true;
      return contents;
    }
  }
  return Corrupt(kind, absl::StrCat("at offset ", handle.offset, ": unknown compression type ",
                                    static_cast<int>(static_cast<uint8_t>(type))));
}

void AppendInternalKey(std::string* dst, std::string_view user_key, uint64_t seq, EntryType type) {
  dst->append(user_key.data(), user_key.size());
  PutFixed64(dst, (seq << 8) | static_cast<uint8_t>(type));
}

bool ParseInternalKey(std::string_view internal_key, ParsedInternalKey* out) {
  if (internal_key.size() < 8) return false;
  const uint64_t tag = DecodeFixed64(internal_key.data() + internal_key.size() - 8);
  const uint8_t type = tag & 0xff;
  if (type > static_cast<uint8_t>(EntryType::kValue)) return false;
  out->user_key = internal_key.substr(0, internal_key.size() - 8);
  out->sequence = tag >> 8;
  out->type = static_cast<EntryType>(type);
  return true;
}

int CompareInternalKeys(std::string_view a, std::string_view b) {
  // Callers only compare keys that parse; guard anyway so a corrupt key
  // cannot make substr throw.
  const std::string_view ua = a.substr(0, a.size() >= 8 ? a.size() - 8 : 0);
  const std::string_view ub = b.substr(0, b.size() >= 8 ? b.size() - 8 : 0);
  const int c = CompareBytes(ua, ub);
  if (c != 0) return c;
  const uint64_t ta = a.size() >= 8 ? DecodeFixed64(a.data() + a.size() - 8) : 0;
  const uint64_t tb = b.size() >= 8 ? DecodeFixed64(b.data() + b.size() - 8) : 0;
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

}  // namespace internal
}  // namespace lsmbloom
