// Internal to the filter layer: BlockedBloomBuilder's store of key hashes, 8 bytes a key. Small
// sets stay in one flat array grown by realloc (large blocks move by remapping, not copying, and
// the memory goes back to malloc in one piece, which reuses it for the next filter without faulting
// pages in again). Past a size given by the builder, the hashes are grouped by their top bits
// instead, through a staging line per group: the block of a hash is monotone in its value, so each
// group's bits fall in one window of the filter small enough to stay in cache while it is set. One
// random write per key to a filter of hundreds of MiB would miss the cache and the TLB on nearly
// every key.

#ifndef LSMBLOOM_SRC_FILTER_HASH_BUFFER_H_
#define LSMBLOOM_SRC_FILTER_HASH_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"

namespace lsmbloom {
namespace internal {

class HashBuffer {
 public:
  // Hashes are grouped once more than `group_above` are held.
  explicit HashBuffer(size_t group_above = ~size_t{0}) : group_above_(group_above) {}
  ~HashBuffer();
  HashBuffer(HashBuffer&& other) noexcept;
  HashBuffer& operator=(HashBuffer&& other) noexcept;

  void Add(uint64_t hash) {
    if (next_ == end_) MakeRoom();
    *next_++ = hash;
  }

  // For a caller that writes hashes itself, as BlockedBloomBuilder's inline
  // AddHash does: Lease gives the free room [*next, *end), making some if
  // there is none; the caller writes hashes in order from *next and says
  // where it stopped with Commit before it calls anything else here.
  void Lease(uint64_t** next, uint64_t** end) {
    if (next_ == end_) MakeRoom();
    *next = next_;
    *end = end_;
  }
  void Commit(uint64_t* next) { next_ = next; }

  size_t size() const { return moved_ + static_cast<size_t>(next_ - start_); }

  // Bytes held, for the memory bound in the builder's contract.
  size_t MemoryUsage() const;

  // Calls visit(hashes, n) over runs that together hold every hash, then
  // leaves the buffer empty. Ungrouped, one run in insertion order; grouped,
  // group by group in ascending order of the hashes' top kGroupBits bits.
  void Drain(absl::FunctionRef<void(const uint64_t*, size_t)> visit);

  static constexpr int kGroupBits = 10;

 private:
  struct Groups;
  struct GroupsDeleter {
    void operator()(Groups* groups) const;
  };

  void MakeRoom();
  void StartGrouping();
  void Regroup(const uint64_t* hashes, size_t n);
  void Release();

  size_t group_above_;
  // Flat: [start_, next_) are the hashes, end_ the capacity. Grouped: the
  // same three describe a small intake array emptied into the groups.
  uint64_t* start_ = nullptr;
  uint64_t* next_ = nullptr;
  uint64_t* end_ = nullptr;
  size_t moved_ = 0;  // Hashes already in groups.
  std::unique_ptr<Groups, GroupsDeleter> groups_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_HASH_BUFFER_H_
