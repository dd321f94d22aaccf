// The on-disk pieces of a table: block handles, block trailers, the footer,
// and internal keys. docs/FORMAT.md documents each byte.

#ifndef LSMBLOOM_SRC_TABLE_FORMAT_H_
#define LSMBLOOM_SRC_TABLE_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/file.h"
#include "lsmbloom/options.h"
#include "lsmbloom/table_builder.h"

namespace lsmbloom {
namespace internal {

inline constexpr uint64_t kTableMagic = 0x31424c424d534c88ull;
inline constexpr uint32_t kTableFormatVersion = 1;
inline constexpr size_t kFooterSize = 64;
// After every block: 1 byte compression type, 8 bytes XXH3-64 of the block
// bytes seeded with the type byte.
inline constexpr size_t kBlockTrailerSize = 9;
// Meta-index keys.
inline constexpr char kPropertiesBlockName[] = "lsmbloom.properties";
inline constexpr char kFilterBlockPrefix[] = "filter.";

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // Without the trailer.

  void EncodeTo(std::string* dst) const;
  bool DecodeFrom(std::string_view* input);
};

struct Footer {
  BlockHandle metaindex;
  BlockHandle index;

  std::string Encode() const;
  // DataLoss saying what is wrong.
  static absl::StatusOr<Footer> Decode(std::string_view footer);
};

// A block's bytes after checksum and decompression: either owned, or a view
// into memory that outlives it (an mmap'd file). Read them through view():
// a stored view into `owned` would dangle when the struct moves.
struct BlockContents {
  std::string owned;
  std::string_view mapped;
  bool is_owned = false;
  std::string_view view() const { return is_owned ? std::string_view(owned) : mapped; }
};

// Compresses (data blocks only, when it saves at least 1/8), appends
// block + trailer at `offset` of `file`, and returns the handle.
absl::StatusOr<BlockHandle> WriteBlock(WritableFile* file, uint64_t offset,
                                       std::string_view raw,
                                       Compression compression);

// Reads the block at `handle`, verifying its checksum (when asked) and
// decompressing it if `allow_compression` (data blocks only; any other block
// that claims compression is corrupt). `what` names the block in errors.
absl::StatusOr<BlockContents> ReadBlock(const RandomAccessFile& file,
                                        const BlockHandle& handle,
                                        bool verify_checksum,
                                        bool allow_compression,
                                        std::string_view what);

// Internal keys order entries: user key ascending, then the 8-byte tag
// (sequence << 8 | type) descending, so the newest version comes first.
void AppendInternalKey(std::string* dst, std::string_view user_key,
                       uint64_t seq, EntryType type);
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
