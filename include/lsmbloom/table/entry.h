// What a table stores per entry besides the user key and the value: a
// sequence number and a type. Shared by the writer (table_builder.h) and the
// reader (table.h), so neither needs the other's header.
//
// Entries are ordered by user key ascending and, for one user key, by
// sequence number descending (newest first). A deletion (tombstone) is an
// entry too: it hides every older entry of its key.

#ifndef LSMBLOOM_TABLE_ENTRY_H_
#define LSMBLOOM_TABLE_ENTRY_H_

#include <cstdint>

namespace lsmbloom {

enum class EntryType : uint8_t { kDeletion = 0, kValue = 1 };

// Sequence numbers are 56 bits.
inline constexpr uint64_t kMaxSequenceNumber = (uint64_t{1} << 56) - 1;

}  // namespace lsmbloom

#endif  // LSMBLOOM_TABLE_ENTRY_H_
