// Implementation detail of BlockedBloomBuilder, visible only so AddHash can
// be inline. Not part of the API.
//
// The builder's store of key hashes: 8 bytes a key, already grouped by the
// top byte of the hash, de-duplicated on demand.
//
// Grouping at insertion costs nothing extra (an append to one of 256 lists)
// and replaces a sort: the block of a hash is monotone in its value, so each
// group covers 1/256 of the filter, and setting one group's bits touches a
// window of the filter small enough to stay in cache.

#ifndef LSMBLOOM_INTERNAL_HASH_BUFFER_H_
#define LSMBLOOM_INTERNAL_HASH_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace lsmbloom {
namespace internal {

class HashBuffer {
 public:
  HashBuffer() = default;
  HashBuffer(HashBuffer&&) = default;
  HashBuffer& operator=(HashBuffer&&) = default;

  void Add(uint64_t hash) {
    if (grouped_) {
      AddToGroup(hash);
    } else {
      flat_.push_back(hash);
      if (flat_.size() == kFlatLimit) SpillToGroups();
    }
  }

  size_t size() const;

  // Removes duplicate hashes; returns how many distinct hashes remain.
  size_t Unique();

  // Calls visit(const uint64_t* hashes, size_t n) over every hash, group by
  // group in ascending order of their top byte (after Unique(); before it,
  // a small buffer is visited as it was filled).
  template <typename Visit>
  void ForEachRun(Visit visit) {
    if (!grouped_) {
      if (!flat_.empty()) visit(flat_.data(), flat_.size());
      return;
    }
    for (const Group& g : groups_) {
      for (size_t c = 0; c * kChunk < g.size; ++c) {
        const size_t n = g.size - c * kChunk < kChunk ? g.size - c * kChunk : kChunk;
        visit(g.chunks[c].get(), n);
      }
    }
  }

  // Bytes held, for the memory bound in the builder's contract.
  size_t MemoryUsage() const;

 private:
  // Until this many hashes one flat array holds them, so small filters do not
  // pay for 256 partly filled chunks.
  static constexpr size_t kFlatLimit = size_t{1} << 16;
  static constexpr size_t kChunk = 512;  // Hashes per chunk: 4 KiB.

  struct Group {
    std::vector<std::unique_ptr<uint64_t[]>> chunks;
    size_t size = 0;
    uint64_t& at(size_t i) { return chunks[i / kChunk][i % kChunk]; }
  };

  void AddToGroup(uint64_t hash) {
    Group& g = groups_[hash >> 56];
    if (g.size % kChunk == 0) g.chunks.emplace_back(new uint64_t[kChunk]);
    g.chunks.back()[g.size % kChunk] = hash;
    ++g.size;
  }

  void SpillToGroups();
  size_t UniqueFlat();
  size_t UniqueGroup(Group& g, std::vector<uint64_t>& scratch,
                     std::vector<uint64_t>& distinct,
                     std::vector<uint64_t>& table);

  bool grouped_ = false;
  std::vector<uint64_t> flat_;
  std::vector<Group> groups_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_INTERNAL_HASH_BUFFER_H_
