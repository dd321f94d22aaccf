// Reads a block written by BlockBuilder. Every length and offset is checked
// against the block's size: a corrupt block makes the iterator stop with a
// DataLoss status, never read out of bounds.

#ifndef LSMBLOOM_SRC_TABLE_BLOCK_H_
#define LSMBLOOM_SRC_TABLE_BLOCK_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/table/format.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

// CompareBytes (src/util/coding.h) orders keys that are plain bytes, such
// as the meta-index's; CompareInternalKeys (format.h) orders data and index
// blocks' keys.
using KeyComparator = int (*)(std::string_view, std::string_view);

class Block {
 public:
  // Checks the restart array (and the hash index's size, accepted only
  // when `may_have_hash_index`: data blocks of table format 3); DataLoss
  // naming `what` if either is malformed. `what` names the block in errors
  // and must outlive it (a literal, such as BlockKindName's).
  static absl::StatusOr<Block> Parse(BlockContents contents, std::string_view what,
                                     bool may_have_hash_index = false);

  Block(Block&&) = default;
  Block& operator=(Block&&) = default;

  // For a point lookup about to search the block whose bytes (trailer
  // excluded) are `contents`, which need not be verified yet (only its tail
  // is read, within bounds): starts loading the restart interval its hash
  // index names for the user key whose KeyHash is `user_key_hash`, nothing
  // if the index rules the key out, else the entry at each restart point
  // (for blocks of at most 16 restarts).
  static void PrefetchSearch(std::string_view contents, uint64_t user_key_hash);

  // A block whose bytes Parse accepted before and which cannot have changed
  // since (a read-only mapping, verified once): located again, its restart
  // array not checked again. nullopt if the bytes do not even locate.
  static std::optional<Block> Reparse(std::string_view data, std::string_view what,
                                      bool may_have_hash_index);

  // A block over `cached`'s bytes, parsed as it was, that keeps `cached`
  // alive: what a block cache hands a lookup, neither copied nor checked
  // again.
  static Block Share(std::shared_ptr<const Block> cached);

  size_t size() const { return data_.size(); }
  uint32_t num_restarts() const { return num_restarts_; }
  uint32_t num_hash_buckets() const { return num_buckets_; }

  // What the hash index says of a user key whose KeyHash (default
  // HashSpec) is `hash`: the restart interval where its entries start
  // (>= 0), or one of these. REQUIRES: num_hash_buckets() > 0.
  static constexpr int kNotInBlock = -1;  // No key of the block hashes there.
  static constexpr int kUseSearch = -2;   // Keys of several intervals do.
  static constexpr int kBadBucket = -3;   // A value no builder writes.
  int HashLookup(uint64_t hash) const;

  class Iterator {
   public:
    Iterator(const Block* block, KeyComparator cmp);
    bool Valid() const { return valid_; }
    void SeekToFirst();
    // First entry with key >= target.
    void Seek(std::string_view target);
    // Point lookups in a block of internal keys (a user key, then an 8-byte
    // tag). SeekUserKey: the first entry whose user key is >= user_key, the
    // restart found by a binary search against `target` (user_key at the
    // highest sequence, as SeekKey makes it). SeekUserKeyInInterval: the
    // same within the interval of restart point `restart`, where HashLookup
    // says the key's entries start if the block has them; not Valid() if
    // the interval holds no such entry.
    void SeekUserKey(std::string_view target, std::string_view user_key);
    void SeekUserKeyInInterval(uint32_t restart, std::string_view user_key);
    void Next();
    std::string_view key() const { return std::string_view(key_.data(), key_.size()); }
    std::string_view value() const { return value_; }
    const absl::Status& status() const { return status_; }

   private:
    // Decodes the entry at `offset` into key_/value_ (and shared_/delta_);
    // false at the end or on corruption (which sets status_).
    bool ParseAt(uint32_t offset);
    // From the restart entry the iterator is at, on to the first entry whose
    // user key is >= user_key; not Valid() if none starts before `end`.
    void ScanToUserKey(std::string_view user_key, uint32_t end);
    // The last binary search step of Seek and SeekUserKey: the last restart
    // whose key is < target (or the first); false if the block is corrupt.
    bool FindRestartBelow(std::string_view target, uint32_t* restart);
    void SeekToRestart(uint32_t index);
    // Loads the lines of interval `index` together, for a scan.
    void PrefetchInterval(uint32_t index) const;
    // The whole key stored at restart `index`, in place; false (and
    // corrupt) if the entry there is malformed.
    bool RestartKey(uint32_t index, std::string_view* key);
    void MarkCorrupt();

    const Block* block_;
    KeyComparator cmp_;
    uint32_t next_ = 0;  // Offset of the entry after the current one.
    // The current key, rebuilt entry by entry from the previous one.
    // Internal keys are a user key plus 8 bytes: short ones stay inline, so
    // a point lookup's iterator never allocates.
    class KeyBuffer {
     public:
      KeyBuffer() = default;
      KeyBuffer(const KeyBuffer&) = delete;
      KeyBuffer& operator=(const KeyBuffer&) = delete;

      const char* data() const { return heap_ != nullptr ? heap_.get() : inline_; }
      size_t size() const { return size_; }
      void clear() { size_ = 0; }
      // Keeps the first `keep` bytes and appends `n` from `from`, which
      // may be read up to kCopyBytes past n when `readable` >= kCopyBytes.
      // REQUIRES: keep <= size().
      void Rebuild(size_t keep, const char* from, size_t n, size_t readable) {
        if (keep + n + kCopyBytes > capacity_) Grow(keep, keep + n + kCopyBytes);
        char* to = heap_ != nullptr ? heap_.get() : inline_;
        if (n <= kCopyBytes && readable >= kCopyBytes) {
          // A key's new bytes are few: one fixed-size move, no memcpy call.
          std::memcpy(to + keep, from, kCopyBytes);
        } else {
          std::memcpy(to + keep, from, n);
        }
        size_ = keep + n;
      }

     private:
      // Moves the first `keep` bytes to a buffer of at least `capacity`.
      void Grow(size_t keep, size_t capacity);

      static constexpr size_t kInline = 96;
      static constexpr size_t kCopyBytes = 16;
      char inline_[kInline];
      std::unique_ptr<char[]> heap_;
      size_t capacity_ = kInline;
      size_t size_ = 0;
    };
    KeyBuffer key_;
    // Of the current entry: the bytes its key shares with the previous
    // key, and where its own key bytes lie in the block.
    uint32_t shared_ = 0;
    const char* delta_ = nullptr;
    std::string_view value_;
    bool valid_ = false;
    absl::Status status_;
  };

 private:
  Block(std::unique_ptr<std::string> owned, std::string_view data, uint32_t restarts_offset,
        uint32_t num_restarts, const char* buckets, uint32_t num_buckets, std::string_view what)
      : owned_(std::move(owned)),
        data_(data),
        restarts_offset_(restarts_offset),
        num_restarts_(num_restarts),
        buckets_(buckets),
        num_buckets_(num_buckets),
        what_(what) {}
  // Where the restart array and the hash index are in `data`; false if the
  // block is too short for what its restart count declares, or has an index
  // where none may be.
  struct Layout {
    uint32_t count = 0;  // The block's last fixed32, as stored.
    uint32_t num_restarts = 0;
    size_t restarts_offset = 0;
    const char* buckets = nullptr;
    uint32_t num_buckets = 0;
  };
  static bool Locate(std::string_view data, bool may_have_hash_index, Layout* layout);
  uint32_t RestartOffset(uint32_t index) const;
  // Where restart interval `index` ends: at the next restart point, or at
  // the restart array after the last one.
  static uint32_t IntervalEnd(const char* restarts, uint32_t num_restarts, uint32_t restarts_offset,
                              uint32_t index);
  uint32_t IntervalEnd(uint32_t index) const;
  // Starts loading the lines of data[from, to), at most 2 KiB of them: an
  // interval a scan is about to parse entry by entry.
  static void PrefetchSpan(const char* data, uint32_t from, uint32_t to);
  // The loop of PrefetchRestartEntries, for `restarts` at the end of
  // `entries_size` bytes of entries starting at `data`.
  static void PrefetchRestarts(const char* data, size_t entries_size, const char* restarts,
                               uint32_t num_restarts);

  // Owned bytes live on the heap so that moving a Block keeps data_ valid.
  std::unique_ptr<std::string> owned_;
  std::shared_ptr<const Block> shared_;  // Whose bytes data_ views (Share).
  std::string_view data_;
  uint32_t restarts_offset_;
  uint32_t num_restarts_;
  const char* buckets_;  // Into data_; null without a hash index.
  uint32_t num_buckets_;
  std::string_view what_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_BLOCK_H_
