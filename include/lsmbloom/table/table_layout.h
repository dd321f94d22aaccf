// Where a table file's parts lie (docs/FORMAT.md): the blocks its footer and
// meta-index name, and the footer itself. A table's reader records them when
// it opens the file; the inspection layer (lsmbloom/inspect/inspect.h,
// LayoutOf) shows them. Plain values: no locking needed.

#ifndef LSMBLOOM_TABLE_TABLE_LAYOUT_H_
#define LSMBLOOM_TABLE_TABLE_LAYOUT_H_

#include <cstdint>

namespace lsmbloom {

// Where one block sits in a table file: its offset and size, not counting
// the 9-byte trailer (compression byte, checksum) that follows it.
struct BlockLocation {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The parts of a table file as its footer and meta-index name them.
struct TableLayout {
  BlockLocation index, metaindex, properties;
  BlockLocation filter;        // Size 0 if the table has no filter block.
  uint64_t footer_offset = 0;  // Of the 64-byte footer: file size - 64.
};

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_TABLE_LAYOUT_H_
