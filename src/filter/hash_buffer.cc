#include "lsmbloom/internal/hash_buffer.h"

#include <algorithm>
#include <cstring>

namespace lsmbloom {
namespace internal {
namespace {

// Groups up to this size are de-duplicated with one table; larger ones are
// first split by the next byte so each table stays in L1/L2.
constexpr size_t kDirectUnique = 4096;

// Appends the distinct values of in[0, n) to *out, using `table` (resized
// here) as an open-addressing set. Returns how many were appended.
size_t UniqueInto(const uint64_t* in, size_t n, uint64_t* out,
                  std::vector<uint64_t>& table) {
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  table.assign(slots, 0);  // 0 marks an empty slot; hash 0 is tracked apart.
  const size_t mask = slots - 1;
  int slot_shift = 64;
  for (size_t m = slots; m > 1; m >>= 1) --slot_shift;
  bool zero_seen = false;
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = in[i];
    if (v == 0) {
      if (!zero_seen) out[kept++] = 0;
      zero_seen = true;
      continue;
    }
    // The slot comes from a multiply by an odd constant, not from the low
    // bits alone: hashes that break AddHash's contract (a run of multiples
    // of 2^20, say) would otherwise pile into one probe sequence.
    for (size_t s = (v * 0x9e3779b97f4a7c15u) >> slot_shift;; s = (s + 1) & mask) {
      if (table[s] == v) break;
      if (table[s] == 0) {
        table[s] = v;
        out[kept++] = v;
        break;
      }
    }
  }
  return kept;
}

}  // namespace

size_t HashBuffer::MemoryUsage() const {
  size_t bytes = flat_.capacity() * sizeof(uint64_t) +
                 groups_.capacity() * sizeof(Group) +
                 (staging_ ? sizeof(Staging) : 0);
  for (const Group& g : groups_) {
    bytes += g.chunks.size() * kChunk * sizeof(uint64_t) +
             g.chunks.capacity() * sizeof(g.chunks[0]);
  }
  return bytes;
}

void HashBuffer::AddUnstaged(uint64_t hash) {
  if (grouped_) {
    staging_.reset(new Staging);
    Stage(hash);
    return;
  }
  flat_.push_back(hash);
  if (flat_.size() == kFlatLimit) SpillToGroups();
}

void HashBuffer::AppendToGroup(size_t group, const uint64_t* hashes,
                               size_t n) {
  Group& g = groups_[group];
  for (size_t i = 0; i < n;) {
    if (g.size % kChunk == 0) g.chunks.emplace_back(new uint64_t[kChunk]);
    const size_t room = kChunk - g.size % kChunk;
    const size_t take = n - i < room ? n - i : room;
    std::memcpy(g.chunks.back().get() + g.size % kChunk, hashes + i,
                take * sizeof(uint64_t));
    g.size += take;
    i += take;
  }
}

void HashBuffer::FlushStaging() {
  if (!staging_) return;
  for (size_t group = 0; group < 256; ++group) {
    AppendToGroup(group, staging_->lines[group], staging_->fill[group]);
  }
  staging_.reset();
}

void HashBuffer::SpillToGroups() {
  if (grouped_) return;
  groups_.resize(256);
  grouped_ = true;
  staging_.reset(new Staging);
  for (uint64_t h : flat_) Stage(h);
  std::vector<uint64_t>().swap(flat_);
}

// A small buffer is grouped by top byte with a counting sort through one
// scratch copy (at most kFlatLimit hashes), sparing 256 chunk allocations.
size_t HashBuffer::UniqueFlat() {
  std::vector<uint64_t> sorted(flat_.size()), table;
  size_t start[257] = {};
  for (uint64_t v : flat_) ++start[(v >> 56) + 1];
  for (int b = 0; b < 256; ++b) start[b + 1] += start[b];
  size_t next[256];
  std::memcpy(next, start, sizeof(next));
  for (uint64_t v : flat_) sorted[next[v >> 56]++] = v;
  // Pointers, not operator[]: an empty buffer or bucket may sit at the end.
  size_t kept = 0;
  for (int b = 0; b < 256; ++b) {
    const size_t n = start[b + 1] - start[b];
    if (n == 0) continue;
    kept += UniqueInto(sorted.data() + start[b], n, flat_.data() + kept, table);
  }
  flat_.resize(kept);
  size_ = kept;
  return kept;
}

size_t HashBuffer::Unique() {
  if (!grouped_) return UniqueFlat();
  FlushStaging();
  std::vector<uint64_t> scratch, distinct, table;
  size_t total = 0;
  for (Group& g : groups_) total += UniqueGroup(g, scratch, distinct, table);
  size_ = total;
  return total;
}

size_t HashBuffer::UniqueGroup(Group& g, std::vector<uint64_t>& scratch,
                               std::vector<uint64_t>& distinct,
                               std::vector<uint64_t>& table) {
  if (g.size == 0) return 0;
  // Copy the group out (it is 1/256 of the keys), then write the distinct
  // values back over the start of its chunks.
  scratch.resize(g.size);
  for (size_t c = 0; c * kChunk < g.size; ++c) {
    std::memcpy(&scratch[c * kChunk], g.chunks[c].get(),
                std::min(kChunk, g.size - c * kChunk) * sizeof(uint64_t));
  }
  distinct.resize(g.size);
  size_t kept = 0;
  if (g.size <= kDirectUnique) {
    kept = UniqueInto(scratch.data(), g.size, distinct.data(), table);
  } else {
    // Split by the second byte with a counting sort into `distinct` (used as
    // a second scratch), then de-duplicate each piece.
    size_t start[257] = {};
    for (uint64_t v : scratch) ++start[((v >> 48) & 0xff) + 1];
    for (int b = 0; b < 256; ++b) start[b + 1] += start[b];
    size_t next[256];
    std::memcpy(next, start, sizeof(next));
    for (uint64_t v : scratch) distinct[next[(v >> 48) & 0xff]++] = v;
    for (int b = 0; b < 256; ++b) {
      const size_t n = start[b + 1] - start[b];
      if (n == 0) continue;
      kept += UniqueInto(distinct.data() + start[b], n, scratch.data() + kept,
                         table);
    }
    distinct.swap(scratch);
  }
  for (size_t i = 0; i < kept; ++i) g.at(i) = distinct[i];
  g.size = kept;
  g.chunks.resize((kept + kChunk - 1) / kChunk);
  return kept;
}

}  // namespace internal
}  // namespace lsmbloom
