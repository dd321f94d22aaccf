// Implementation detail of BlockedBloomBuilder, visible only so that Add can
// be inline. Not part of the API.
//
// The builder's store of key hashes: 8 bytes a key, appended to chunks in
// insertion order (no copying as it grows), handed back either in that order
// or grouped by the top bits of the hash. Grouping replaces a sort: the block
// of a hash is monotone in its value, so each group's bits fall in one
// window of the filter small enough to stay in cache while it is set, which
// is what large filters need (one random write per key to a filter of
// hundreds of MiB misses the cache and the TLB on nearly every key).

#ifndef LSMBLOOM_INTERNAL_HASH_BUFFER_H_
#define LSMBLOOM_INTERNAL_HASH_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"

namespace lsmbloom {
namespace internal {

class HashBuffer {
 public:
  HashBuffer() = default;
  HashBuffer(HashBuffer&&) = default;
  HashBuffer& operator=(HashBuffer&&) = default;

  void Add(uint64_t hash) {
    if (next_ == end_) NewChunk();
    *next_++ = hash;
  }

  size_t size() const {
    return chunks_.empty() ? 0 : sealed_ + (next_ - chunks_.back().data.get());
  }

  // Bytes held, for the memory bound in the builder's contract.
  size_t MemoryUsage() const;

  // Calls visit(hashes, n) over runs that together hold every hash, then
  // leaves the buffer empty. With group_bits == 0 the runs come in insertion
  // order; otherwise grouped by the top `group_bits` bits of the hash, in
  // ascending order of those bits (order within a group unspecified). Each
  // chunk is freed once its hashes are regrouped, so grouping needs little
  // more memory than the hashes themselves. REQUIRES: group_bits <= 16.
  void Drain(int group_bits,
             absl::FunctionRef<void(const uint64_t*, size_t)> visit);

 private:
  struct Chunk {
    std::unique_ptr<uint64_t[]> data;
    size_t capacity;
  };

  void NewChunk();
  size_t ChunkSize(size_t index) const;

  std::vector<Chunk> chunks_;
  size_t sealed_ = 0;  // Hashes in every chunk but the last.
  uint64_t* next_ = nullptr;
  uint64_t* end_ = nullptr;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_INTERNAL_HASH_BUFFER_H_
