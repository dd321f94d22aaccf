// Reads a block written by BlockBuilder. Every length and offset is checked
// against the block's size: a corrupt block makes the iterator stop with a
// DataLoss status, never read out of bounds.

#ifndef LSMBLOOM_SRC_TABLE_BLOCK_H_
#define LSMBLOOM_SRC_TABLE_BLOCK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/table/format.h"

namespace lsmbloom {
namespace internal {

using KeyComparator = int (*)(std::string_view, std::string_view);
int CompareBytes(std::string_view a, std::string_view b);

class Block {
 public:
  // Checks the restart array; DataLoss naming `what` if it is malformed.
  static absl::StatusOr<Block> Parse(BlockContents contents, std::string_view what);

  Block(Block&&) = default;
  Block& operator=(Block&&) = default;

  // For a search about to compare them: starts loading the entry at each
  // restart point of the block whose bytes (trailer excluded) are
  // `contents`, which need not be verified yet (only the restart array is
  // read, within bounds). Does nothing for blocks of over 16 restarts.
  static void PrefetchRestartEntries(std::string_view contents);

  size_t size() const { return data_.size(); }
  uint32_t num_restarts() const { return num_restarts_; }

  class Iterator {
   public:
    Iterator(const Block* block, KeyComparator cmp);
    bool Valid() const { return valid_; }
    void SeekToFirst();
    // First entry with key >= target.
    void Seek(std::string_view target);
    void Next();
    std::string_view key() const { return std::string_view(key_.data(), key_.size()); }
    std::string_view value() const { return value_; }
    const absl::Status& status() const { return status_; }

   private:
    // Decodes the entry at `offset` into key_/value_; false at the end or on
    // corruption (which sets status_).
    bool ParseAt(uint32_t offset);
    void SeekToRestart(uint32_t index);
    // The whole key stored at restart `index`, in place; false (and
    // corrupt) if the entry there is malformed.
    bool RestartKey(uint32_t index, std::string_view* key);
    void MarkCorrupt();

    const Block* block_;
    KeyComparator cmp_;
    uint32_t next_ = 0;  // Offset of the entry after the current one.
    // Internal keys are a user key plus 8 bytes: short ones stay inline, so
    // a point lookup's iterator never allocates.
    absl::InlinedVector<char, 56> key_;
    std::string_view value_;
    bool valid_ = false;
    absl::Status status_;
  };

 private:
  Block(std::unique_ptr<std::string> owned, std::string_view data, uint32_t restarts_offset,
        uint32_t num_restarts, std::string what)
      : owned_(std::move(owned)),
        data_(data),
        restarts_offset_(restarts_offset),
        num_restarts_(num_restarts),
        what_(std::move(what)) {}
  uint32_t RestartOffset(uint32_t index) const;
  // The loop of PrefetchRestartEntries, for `restarts` at the end of
  // `entries_size` bytes of entries starting at `data`.
  static void PrefetchRestarts(const char* data, size_t entries_size, const char* restarts,
                               uint32_t num_restarts);

  // Owned bytes live on the heap so that moving a Block keeps data_ valid.
  std::unique_ptr<std::string> owned_;
  std::string_view data_;
  uint32_t restarts_offset_;
  uint32_t num_restarts_;
  std::string what_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_BLOCK_H_
