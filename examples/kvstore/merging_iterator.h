// One sorted stream over the entries of several tables, in the order
// lsmbloom::TableBuilder takes them: user keys ascending and, for one key,
// sequence numbers descending (newest first). Compaction reads its inputs
// through it, and scans read the memtable and every table through it.
//
// A child that fails (a damaged block) ends the whole stream at once: the
// entries already yielded are then exactly the merge's prefix, never a
// listing with one child's rest silently missing. status() names the
// child's file. A scan that asked to skip damaged blocks instead gets each
// one reported and the child moved past it (SkipDamagedBlocks).

#ifndef KVSTORE_MERGING_ITERATOR_H_
#define KVSTORE_MERGING_ITERATOR_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "lsmbloom/table/table.h"

namespace kvstore {

class MergingIterator {
 public:
  // names[i] names children[i] in errors (a file path, "memtable");
  // REQUIRES: names.size() == children.size().
  MergingIterator(std::vector<std::unique_ptr<lsmbloom::TableIterator>> children,
                  std::vector<std::string> names);

  // Instead of ending the stream, moves a child past a damaged data block
  // (TableIterator::SkipDamagedBlock) and calls report with the error,
  // which names the file. Damage a child cannot skip (its index) still
  // ends the stream. Call before the first seek.
  void SkipDamagedBlocks(std::function<void(const absl::Status&)> report) {
    report_damaged_ = std::move(report);
  }

  bool Valid() const { return !heap_.empty(); }
  void SeekToFirst();
  // To the first entry whose user key is >= user_key.
  void Seek(std::string_view user_key);
  // REQUIRES: Valid().
  void Next();
  // REQUIRES: Valid(). Views stay valid until the next move.
  lsmbloom::TableEntry entry() const;
  // The error that ended the stream, naming the child's file; OK if the
  // stream ended because every child was exhausted.
  const absl::Status& status() const { return status_; }

 private:
  // True when child a's entry comes after child b's: the heap's order.
  bool After(size_t a, size_t b) const;
  // Keeps `child` in the heap if it has an entry; on its error, skips the
  // damaged block or ends the stream.
  void Push(size_t child);
  // The child's error with its name in front.
  absl::Status Named(size_t child) const;

  std::vector<std::unique_ptr<lsmbloom::TableIterator>> children_;
  std::vector<std::string> names_;
  std::vector<size_t> heap_;  // Indexes of valid children; smallest entry on top.
  std::function<void(const absl::Status&)> report_damaged_;  // Null: stop.
  absl::Status status_;
};

}  // namespace kvstore

#endif  // KVSTORE_MERGING_ITERATOR_H_
