// The on-disk pieces of a table: block handles, block trailers, the footer,
// and internal keys. docs/FORMAT.md documents each byte.

#ifndef LSMBLOOM_SRC_TABLE_FORMAT_H_
#define LSMBLOOM_SRC_TABLE_FORMAT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/entry.h"
#include "lsmbloom/table/options.h"
#include "lsmbloom/table/table_layout.h"

namespace lsmbloom {
namespace internal {

inline constexpr uint64_t kTableMagic = 0x31424c424d534c88ull;
// The newest version read and written: 3 adds hash indexes to data blocks
// and is written only by a builder asked for them; other tables are written
// as 2, which readers of version 2 read. Version 1 (checksums that do not
// bind a block to its place) is still read; docs/FORMAT.md says why.
inline constexpr uint32_t kTableFormatVersion = 3;
inline constexpr uint32_t kPlainTableFormatVersion = 2;
inline constexpr uint32_t kOldestReadableFormatVersion = 1;
inline constexpr size_t kFooterSize = 64;
// After every block: 1 byte compression type, 8 bytes checksum
// (BlockChecksum below).
inline constexpr size_t kBlockTrailerSize = 9;
// Offsets and sizes stay below 2^56 so that the footer's two handles fit in
// 32 bytes (4 varints of at most 8 bytes).
inline constexpr uint64_t kMaxTableSize = uint64_t{1} << 56;
// Meta-index keys.
inline constexpr char kPropertiesBlockName[] = "lsmbloom.properties";
inline constexpr char kFilterBlockPrefix[] = "filter.";

// What a block is, as the reader expects it at an offset. Part of the
// version 2 checksum, so a handle that points at the wrong kind of block
// fails as surely as a moved block. The values are on disk.
enum class BlockKind : uint8_t {
  kData = 1,
  kFilter = 2,
  kProperties = 3,
  kMetaIndex = 4,
  kIndex = 5,
};
// "data block", "filter block", ...: how errors name a block.
const char* BlockKindName(BlockKind kind);

// What a table's block checksums are bound to: its format version and, from
// version 2 on, its unique id (the footer's random 64-bit id).
struct TableContext {
  uint32_t format_version = kPlainTableFormatVersion;
  uint64_t unique_id = 0;
};

// The 8 checksum bytes of a block's trailer. Version 2: XXH3-64 of the block
// (seed 0) XOR PlacementTag(); version 1: XXH3-64 seeded with the
// compression byte. docs/FORMAT.md gives both byte by byte.
uint64_t BlockChecksum(std::string_view block, char compression, BlockKind kind, uint64_t offset,
                       const TableContext& context);
// XXH3-64, seeded with the unique id, of 16 bytes: fixed64 offset, the kind
// byte, the compression byte, 6 zero bytes.
uint64_t PlacementTag(uint64_t unique_id, uint64_t offset, BlockKind kind, char compression);

// A fresh unique id: never 0, from the kernel's random source mixed with the
// clock, the process and a counter.
uint64_t NewUniqueId();

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // Without the trailer.

  void EncodeTo(std::string* dst) const;
  bool DecodeFrom(std::string_view* input);
};

// The same place as the public BlockLocation names it.
inline BlockLocation LocationOf(const BlockHandle& h) { return BlockLocation{h.offset, h.size}; }
inline BlockHandle HandleOf(const BlockLocation& b) {
  BlockHandle h;
  h.offset = b.offset;
  h.size = b.size;
  return h;
}

// The last 64 bytes of a table. Version 2: [0, 32) meta-index and index
// handles, zero padded; [32, 40) unique id; [40, 44) format version; [44, 48)
// zero; [48, 56) XXH3-64 of [0, 48) seeded with the footer's own offset;
// [56, 64) magic. Version 1 had the handles in [0, 40), no id, seed 0.
struct Footer {
  BlockHandle metaindex;
  BlockHandle index;
  TableContext context;

  // Version 2, to sit at `footer_offset` (the file size before it).
  std::string Encode(uint64_t footer_offset) const;
  // DataLoss saying what is wrong; InvalidArgument for a version this
  // reader does not know.
  static absl::StatusOr<Footer> Decode(std::string_view footer, uint64_t footer_offset);
};

// For a file whose last 8 bytes are not the magic: why it may still be a
// table, or "" if it does not look like one. "looks truncated" when it ends
// 1 to 8 bytes short of a footer whose checksum holds; "extra bytes" when
// such a footer ends up to 64 bytes before the end of the file.
std::string ExplainMissingMagic(const RandomAccessFile& file);

// A block's bytes after checksum and decompression: either owned, or a view
// into memory that outlives it (an mmap'd file). Read them through view():
// a stored view into `owned` would dangle when the struct moves.
struct BlockContents {
  std::string owned;
  std::string_view mapped;
  bool is_owned = false;
  Compression compression = Compression::kNone;  // As stored (the trailer's).
  std::string_view view() const { return is_owned ? std::string_view(owned) : mapped; }
};

// Compresses `raw` with `compression` into *out and returns what to store:
// `compression` when it saves at least 1/8 (*out holds the bytes), else
// kNone (store `raw` itself; not worth decompressing on every read).
absl::StatusOr<Compression> CompressForStorage(std::string_view raw, Compression compression,
                                               std::string* out);

// Compresses (data blocks only, as CompressForStorage decides), appends
// block + trailer at `offset` of `file`, with the checksum binding it to
// `kind`, `offset` and the table, and returns the handle.
absl::StatusOr<BlockHandle> WriteBlock(WritableFile* file, uint64_t offset, std::string_view raw,
                                       BlockKind kind, Compression compression,
                                       const TableContext& context);

// OK if the block at `handle` and its trailer lie within the first `limit`
// bytes of the file, else DataLoss naming the block. Every handle read from
// a file passes this before anything is allocated or read for it: checksums
// do not stop a crafted file, whose sizes may be anything up to 2^64 - 1
// (offset + size may wrap).
absl::Status CheckBlockHandle(const BlockHandle& handle, BlockKind kind, uint64_t limit);

// CheckBlockHandle's test alone, for the mapped read path (no Status).
inline bool BlockHandleFits(const BlockHandle& handle, uint64_t limit) {
  return handle.offset <= limit && handle.size <= limit - handle.offset &&
         limit - handle.offset - handle.size >= kBlockTrailerSize;
}

// The bytes of the block at `handle` and its trailer, in place, when `file`
// is mapped and they lie inside it; empty otherwise. Unverified.
std::string_view MappedBlockBytes(const RandomAccessFile& file, const BlockHandle& handle);

// The block at `handle` and its trailer, unverified: a view into the mapped
// file, or read into *scratch. DataLoss (CheckBlockHandle) if they do not
// lie within the file, before *scratch grows; DataLoss on a short read.
absl::Status ReadBlockBytes(const RandomAccessFile& file, const BlockHandle& handle, BlockKind kind,
                            std::string* scratch, std::string_view* bytes);

// Reads the `kind` block at `handle`, verifying its checksum (when asked)
// and decompressing it (data blocks only; any other block that claims
// compression is corrupt). A block from another offset or another table
// fails the checksum: DataLoss naming the kind and offset.
absl::StatusOr<BlockContents> ReadBlock(const RandomAccessFile& file, const BlockHandle& handle,
                                        BlockKind kind, const TableContext& context,
                                        bool verify_checksum);

// The `kind` block at `handle` from `bytes`, its block and trailer as read
// into a caller's buffer (a batch of reads): checked as ReadBlock checks it
// (a short read is DataLoss), its bytes copied or decompressed into owned
// contents (taken from *buffer, if given and `bytes` start it).
absl::StatusOr<BlockContents> DecodeReadBlock(std::string_view bytes, std::string* buffer,
                                              const BlockHandle& handle, BlockKind kind,
                                              const TableContext& context, bool verify_checksum);

// For a block that failed its checksum: the offset among `candidates` at
// which its trailer would have been right in this table (it was moved from
// there), if any. Reads the block again; for diagnosis, not lookups.
std::optional<uint64_t> WrittenForOffset(const RandomAccessFile& file, const BlockHandle& handle,
                                         BlockKind kind, const TableContext& context,
                                         const std::vector<uint64_t>& candidates);

// Internal keys order entries: user key ascending, then the 8-byte tag
// (sequence << 8 | type) descending, so the newest version comes first.
void AppendInternalKey(std::string* dst, std::string_view user_key, uint64_t seq, EntryType type);
struct ParsedInternalKey {
  std::string_view user_key;
  uint64_t sequence;
  EntryType type;
};
bool ParseInternalKey(std::string_view internal_key, ParsedInternalKey* out);
// <0, 0, >0 as a is before, equal to, after b.
int CompareInternalKeys(std::string_view a, std::string_view b);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_FORMAT_H_
