// A WriteBatch: puts and deletes applied together, in order, under
// consecutive sequence numbers. It is also the payload of one write-ahead
// log record, so a batch is replayed whole or not at all.
//
// Encoding: fixed64 first sequence number, fixed32 count, then per
// operation a type byte (lsmbloom::EntryType), fixed32 key length, key,
// and for puts fixed32 value length and value.

#ifndef KVSTORE_WRITE_BATCH_H_
#define KVSTORE_WRITE_BATCH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "lsmbloom/table/table_builder.h"

namespace kvstore {

class WriteBatch {
 public:
  WriteBatch();

  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  void Clear();

  uint32_t count() const;
  bool empty() const { return count() == 0; }
  // The encoded size: about what the batch costs to log.
  size_t ByteSize() const { return rep_.size(); }

  uint64_t sequence() const;
  void set_sequence(uint64_t sequence);

  // The encoding (the log record's payload).
  std::string_view contents() const { return rep_; }
  // DataLoss if `contents` is not a well-formed batch.
  absl::Status SetContents(std::string_view contents);

  // Calls visit for each operation in order with its sequence number.
  // DataLoss if the encoding is damaged (only possible after SetContents
  // of bad bytes, which it checks first).
  using Visitor = std::function<absl::Status(uint64_t sequence, lsmbloom::EntryType type,
                                             std::string_view key, std::string_view value)>;
  absl::Status ForEach(const Visitor& visit) const;

 private:
  std::string rep_;
};

}  // namespace kvstore

#endif  // KVSTORE_WRITE_BATCH_H_
