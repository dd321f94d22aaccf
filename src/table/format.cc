#include "src/table/format.h"

#include <snappy.h>
#include <zstd.h>

#include "absl/strings/str_cat.h"
#include "src/filter/checksum.h"
#include "src/table/coding.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lsmbloom {
namespace internal {
namespace {

// One pass over the block: the compression byte is the seed, so a flipped
// type byte fails the checksum as surely as a flipped data byte.
uint64_t BlockChecksum(std::string_view block, char type) {
  return Checksum64(block.data(), block.size(), static_cast<uint8_t>(type));
}

absl::Status Corrupt(std::string_view what, const std::string& why) {
  return absl::DataLossError(absl::StrCat(std::string(what), ": ", why));
}

}  // namespace

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  return GetVarint64(input, &offset) && GetVarint64(input, &size);
}

// Footer: [0, 40) metaindex and index handles, zero padded; [40, 44) format
// version; [44, 48) zero; [48, 56) XXH3-64 of [0, 48); [56, 64) magic.
std::string Footer::Encode() const {
  std::string out;
  metaindex.EncodeTo(&out);
  index.EncodeTo(&out);
  out.resize(40, '\0');
  PutFixed32(&out, kTableFormatVersion);
  PutFixed32(&out, 0);
  PutFixed64(&out, XXH3_64bits(out.data(), 48));
  PutFixed64(&out, kTableMagic);
  return out;
}

absl::StatusOr<Footer> Footer::Decode(std::string_view footer) {
  if (footer.size() != kFooterSize) {
    return absl::DataLossError("table footer: file too short");
  }
  if (DecodeFixed64(footer.data() + 56) != kTableMagic) {
    return absl::DataLossError("table footer: bad magic (not an lsmbloom table)");
  }
  if (DecodeFixed64(footer.data() + 48) != XXH3_64bits(footer.data(), 48)) {
    return absl::DataLossError("table footer: checksum mismatch");
  }
  const uint32_t version = DecodeFixed32(footer.data() + 40);
  if (version != kTableFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "table footer: unsupported table format version ", version));
  }
  Footer f;
  std::string_view handles = footer.substr(0, 40);
  if (!f.metaindex.DecodeFrom(&handles) || !f.index.DecodeFrom(&handles)) {
    return absl::DataLossError("table footer: bad block handles");
  }
  return f;
}

absl::StatusOr<BlockHandle> WriteBlock(WritableFile* file, uint64_t offset,
                                       std::string_view raw,
                                       Compression compression) {
  std::string compressed;
  std::string_view body = raw;
  Compression used = Compression::kNone;
  if (compression == Compression::kSnappy) {
    snappy::Compress(raw.data(), raw.size(), &compressed);
    used = Compression::kSnappy;
  } else if (compression == Compression::kZstd) {
    compressed.resize(ZSTD_compressBound(raw.size()));
    const size_t n = ZSTD_compress(&compressed[0], compressed.size(), raw.data(),
                                   raw.size(), /*level=*/3);
    if (ZSTD_isError(n)) {
      return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(n)));
    }
    compressed.resize(n);
    used = Compression::kZstd;
  }
  if (used != Compression::kNone) {
    if (compressed.size() < raw.size() - raw.size() / 8) {
      body = compressed;
    } else {
      used = Compression::kNone;  // Not worth decompressing on every read.
    }
  }
  const char type = static_cast<char>(used);
  std::string trailer(1, type);
  PutFixed64(&trailer, BlockChecksum(body, type));
  absl::Status s = file->Append(body);
  if (s.ok()) s = file->Append(trailer);
  if (!s.ok()) return s;
  BlockHandle handle;
  handle.offset = offset;
  handle.size = body.size();
  return handle;
}

absl::StatusOr<BlockContents> ReadBlock(const RandomAccessFile& file,
                                        const BlockHandle& handle,
                                        bool verify_checksum,
                                        bool allow_compression,
                                        std::string_view what) {
  if (handle.offset > file.Size() ||
      handle.size > file.Size() - handle.offset ||
      file.Size() - handle.offset - handle.size < kBlockTrailerSize) {
    return Corrupt(what, absl::StrCat("block at ", handle.offset, " size ",
                                      handle.size, " extends past the end of the file"));
  }
  const size_t n = static_cast<size_t>(handle.size) + kBlockTrailerSize;
  BlockContents contents;
  std::string scratch;
  std::string_view bytes;
  const std::string_view mapped = file.MappedContents();
  if (mapped.size() == file.Size()) {
    bytes = mapped.substr(handle.offset, n);  // In memory: no copy, no Read.
  } else {
    scratch.resize(n);
    absl::Status s = file.Read(handle.offset, n, &scratch[0], &bytes);
    if (!s.ok()) return s;
  }
  if (bytes.size() != n) {
    return Corrupt(what, absl::StrCat("short read at ", handle.offset, ": ",
                                      bytes.size(), " of ", n, " bytes"));
  }
  const std::string_view body = bytes.substr(0, handle.size);
  const char type = bytes[handle.size];
  if (verify_checksum &&
      DecodeFixed64(bytes.data() + handle.size + 1) != BlockChecksum(body, type)) {
    return Corrupt(what, absl::StrCat("checksum mismatch in block at offset ",
                                      handle.offset));
  }
  if (type != static_cast<char>(Compression::kNone) && !allow_compression) {
    return Corrupt(what, absl::StrCat("compressed, but only data blocks may be (at ",
                                      handle.offset, ")"));
  }
  // Decompressed sizes come from the (untrusted) block: cap them.
  constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 30;
  switch (static_cast<Compression>(type)) {
    case Compression::kNone:
      if (scratch.empty()) {
        contents.mapped = body;  // In memory: no copy.
      } else {
        scratch.resize(handle.size);
        contents.owned = std::move(scratch);
        contents.is_owned = true;
      }
      return contents;
    case Compression::kSnappy: {
      size_t size = 0;
      if (!snappy::GetUncompressedLength(body.data(), body.size(), &size) ||
          size > kMaxBlockBytes ||
          !snappy::Uncompress(body.data(), body.size(), &contents.owned)) {
        return Corrupt(what, absl::StrCat("bad snappy data at ", handle.offset));
      }
      contents.is_owned = true;
      return contents;
    }
    case Compression::kZstd: {
      const unsigned long long size = ZSTD_getFrameContentSize(body.data(), body.size());
      if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
          size > kMaxBlockBytes) {
        return Corrupt(what, absl::StrCat("bad zstd frame at ", handle.offset));
      }
      contents.owned.resize(size);
      const size_t got = ZSTD_decompress(&contents.owned[0], size, body.data(), body.size());
      if (ZSTD_isError(got) || got != size) {
        return Corrupt(what, absl::StrCat("bad zstd data at ", handle.offset));
      }
      contents.is_owned = true;
      return contents;
    }
  }
  return Corrupt(what, absl::StrCat("unknown compression type ",
                                    static_cast<int>(static_cast<uint8_t>(type)),
                                    " at ", handle.offset));
}

void AppendInternalKey(std::string* dst, std::string_view user_key, uint64_t seq,
                       EntryType type) {
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
  const int c = ua.compare(ub);
  if (c != 0) return c;
  const uint64_t ta = a.size() >= 8 ? DecodeFixed64(a.data() + a.size() - 8) : 0;
  const uint64_t tb = b.size() >= 8 ? DecodeFixed64(b.data() + b.size() - 8) : 0;
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

}  // namespace internal
}  // namespace lsmbloom
