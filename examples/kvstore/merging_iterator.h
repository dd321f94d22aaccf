// One sorted stream over the entries of several tables, in the order
// lsmbloom::TableBuilder takes them: user keys ascending and, for one key,
// sequence numbers descending (newest first). Compaction reads its inputs
// through it, and scans read the memtable and every table through it.

#ifndef KVSTORE_MERGING_ITERATOR_H_
#define KVSTORE_MERGING_ITERATOR_H_

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "lsmbloom/table/table.h"

namespace kvstore {

class MergingIterator {
 public:
  explicit MergingIterator(std::vector<std::unique_ptr<lsmbloom::TableIterator>> children);

  bool Valid() const { return !heap_.empty(); }
  void SeekToFirst();
  // To the first entry whose user key is >= user_key.
  void Seek(std::string_view user_key);
  // REQUIRES: Valid().
  void Next();
  // REQUIRES: Valid(). Views stay valid until the next move.
  lsmbloom::TableEntry entry() const;
  // The first child's error, if any. A child that fails stops contributing
  // entries, so the stream is complete only if this is OK at the end.
  absl::Status status() const;

 private:
  // True when child a's entry comes after child b's: the heap's order.
  bool After(size_t a, size_t b) const;
  // Keeps `child` in the heap if it has an entry.
  void Push(size_t child);

  std::vector<std::unique_ptr<lsmbloom::TableIterator>> children_;
  std::vector<size_t> heap_;  // Indexes of valid children; smallest entry on top.
};

}  // namespace kvstore

#endif  // KVSTORE_MERGING_ITERATOR_H_
