// Implementation detail of BlockedBloomBuilder, visible only so AddHash can
// be inline. Not part of the API.
//
// The builder's store of key hashes: 8 bytes a key, already grouped by the
// top byte of the hash, de-duplicated on demand.
//
// Grouping at insertion replaces a sort: the block of a hash is monotone in
// its value, so each group covers 1/256 of the filter, and setting one
// group's bits touches a window of the filter small enough to stay in cache.
// Hashes reach their group a cache line at a time through a 16 KiB staging
// area: writing single hashes to 256 lists spread over 256 pages missed the
// TLB on nearly every key.

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
    ++size_;
    if (staging_) {
      Stage(hash);
    } else {
      AddUnstaged(hash);
    }
  }

  size_t size() const { return size_; }

  // Removes duplicate hashes; returns how many distinct hashes remain.
  size_t Unique();

  // Calls visit(const uint64_t* hashes, size_t n) over every hash, group by
  // group in ascending order of their top byte.
  // REQUIRES: Unique() was called after the last Add().
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
  static constexpr size_t kLine = 8;     // Hashes per 64-byte staging line.

  // One partly filled cache line per group.
  struct Staging {
    alignas(64) uint64_t lines[256][kLine];
    uint8_t fill[256] = {};
  };

  struct Group {
    std::vector<std::unique_ptr<uint64_t[]>> chunks;
    size_t size = 0;
    uint64_t& at(size_t i) { return chunks[i / kChunk][i % kChunk]; }
  };

  void Stage(uint64_t hash) {
    const size_t group = hash >> 56;
    uint8_t& fill = staging_->fill[group];
    staging_->lines[group][fill] = hash;
    if (++fill == kLine) {
      AppendToGroup(group, staging_->lines[group], kLine);
      fill = 0;
    }
  }

  // Add() while nothing is staged: to the flat buffer, or, once grouped
  // (staging is freed by Unique()), through a new staging area.
  void AddUnstaged(uint64_t hash);
  void AppendToGroup(size_t group, const uint64_t* hashes, size_t n);
  // Moves every staged hash to its group and frees the staging area.
  void FlushStaging();
  void SpillToGroups();
  size_t UniqueFlat();
  size_t UniqueGroup(Group& g, std::vector<uint64_t>& scratch,
                     std::vector<uint64_t>& distinct,
                     std::vector<uint64_t>& table);

  size_t size_ = 0;
  bool grouped_ = false;
  std::unique_ptr<Staging> staging_;  // Non-null while grouped and adding.
  std::vector<uint64_t> flat_;
  std::vector<Group> groups_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_INTERNAL_HASH_BUFFER_H_
