#include "lsmbloom/internal/hash_buffer.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace lsmbloom {
namespace internal {
namespace {

// Chunks double from 4 KiB (small filters stay small) to 512 KiB (large ones
// allocate rarely, and a freed chunk is big enough for malloc to reuse).
constexpr size_t kFirstChunk = 512;
constexpr size_t kLargestChunk = size_t{1} << 16;

// Grouped hashes live in 4 KiB pages, reached a 64-byte line at a time
// through a staging line per group: writing single hashes to thousands of
// lists spread over as many pages would miss the TLB on nearly every key.
constexpr size_t kPage = 512;
constexpr size_t kLine = 8;

struct alignas(64) StagingLine {
  uint64_t hashes[kLine];
};

struct Group {
  std::vector<std::unique_ptr<uint64_t[]>> pages;
  size_t size = 0;

  void Append(const uint64_t* hashes, size_t n) {
    while (n > 0) {
      if (size % kPage == 0) pages.emplace_back(new uint64_t[kPage]);
      const size_t take = std::min(n, kPage - size % kPage);
      std::memcpy(pages.back().get() + size % kPage, hashes, take * sizeof(uint64_t));
      size += take;
      hashes += take;
      n -= take;
    }
  }
};

}  // namespace

size_t HashBuffer::ChunkSize(size_t index) const {
  return index >= 7 ? kLargestChunk : kFirstChunk << index;
}

void HashBuffer::NewChunk() {
  if (!chunks_.empty()) sealed_ += chunks_.back().capacity;
  const size_t capacity = ChunkSize(chunks_.size());
  chunks_.push_back(Chunk{std::unique_ptr<uint64_t[]>(new uint64_t[capacity]), capacity});
  next_ = chunks_.back().data.get();
  end_ = next_ + capacity;
}

size_t HashBuffer::MemoryUsage() const {
  return (sealed_ + (chunks_.empty() ? 0 : chunks_.back().capacity)) *
             sizeof(uint64_t) +
         chunks_.capacity() * sizeof(Chunk);
}

void HashBuffer::Drain(int group_bits,
                       absl::FunctionRef<void(const uint64_t*, size_t)> visit) {
  assert(group_bits >= 0 && group_bits <= 16);
  std::vector<Chunk> chunks = std::move(chunks_);
  const uint64_t* last_end = next_;
  *this = HashBuffer();  // Empty from here on, whatever visit does.
  auto chunk_size = [&](size_t c) {
    return c + 1 == chunks.size()
               ? static_cast<size_t>(last_end - chunks[c].data.get())
               : chunks[c].capacity;
  };

  if (group_bits == 0) {
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (chunk_size(c) > 0) visit(chunks[c].data.get(), chunk_size(c));
    }
    return;
  }

  const size_t num_groups = size_t{1} << group_bits;
  const int shift = 64 - group_bits;
  std::vector<Group> groups(num_groups);
  std::vector<StagingLine> staging(num_groups);
  std::vector<uint8_t> fill(num_groups, 0);
  for (size_t c = 0; c < chunks.size(); ++c) {
    const uint64_t* hashes = chunks[c].data.get();
    const size_t n = chunk_size(c);
    for (size_t i = 0; i < n; ++i) {
      const size_t g = hashes[i] >> shift;
      uint8_t& f = fill[g];
      staging[g].hashes[f] = hashes[i];
      if (++f == kLine) {
        groups[g].Append(staging[g].hashes, kLine);
        f = 0;
      }
    }
    chunks[c].data.reset();  // Regrouped: its memory goes back now.
  }
  for (size_t g = 0; g < num_groups; ++g) {
    groups[g].Append(staging[g].hashes, fill[g]);
  }
  for (Group& group : groups) {
    for (size_t p = 0; p * kPage < group.size; ++p) {
      visit(group.pages[p].get(), std::min(kPage, group.size - p * kPage));
    }
    std::vector<std::unique_ptr<uint64_t[]>>().swap(group.pages);
  }
}

}  // namespace internal
}  // namespace lsmbloom
