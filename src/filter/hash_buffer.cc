#include "src/filter/hash_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "src/filter/huge_pages.h"

namespace lsmbloom {
namespace internal {
namespace {

constexpr size_t kFirstCapacity = 1024;
constexpr size_t kNumGroups = size_t{1} << HashBuffer::kGroupBits;
// Grouped hashes live in 4 KiB pages, reached a 64-byte line at a time.
constexpr size_t kPage = 512;
constexpr size_t kLine = 8;
// Hashes taken in at a time once grouped.
constexpr size_t kIntake = 4096;

// A new array of `count` hashes holding the first `held` of `old`, which had
// room for `old_count` and is freed.
uint64_t* Reallocate(uint64_t* old, size_t old_count, size_t held, size_t count) {
  return static_cast<uint64_t*>(ReallocateLarge(old, old_count * sizeof(uint64_t),
                                                held * sizeof(uint64_t), count * sizeof(uint64_t)));
}

// One released buffer of at most this size is kept per thread for the next
// filter built on that thread (a table builder's thread builds one after
// another). Without it, freeing the buffer and then the filter left malloc's
// top chunk past its trim threshold, so malloc returned the pages and faulted
// them in again for every filter: 2x the build time at 10^4 keys.
constexpr size_t kSpareMaxHashes = size_t{1} << 19;  // 4 MiB.

struct Spare {
  uint64_t* data = nullptr;
  size_t capacity = 0;
  ~Spare() { FreeLarge(data, capacity * sizeof(uint64_t)); }
};
thread_local Spare spare;

}  // namespace

struct HashBuffer::Groups {
  struct alignas(64) Line {
    uint64_t hashes[kLine];
  };
  struct Group {
    std::vector<uint64_t*> pages;  // kPage hashes each, carved from slabs.
    size_t size = 0;
  };
  // Pages come from 64 MiB slabs on huge pages: 4 KiB allocations of their
  // own faulted in one small page at a time (at 10^8 keys, 200,000 faults
  // of about 16 us each on this VM).
  static constexpr size_t kSlabPages = 16384;

  Line staging[kNumGroups];
  uint8_t fill[kNumGroups] = {};
  Group groups[kNumGroups];
  std::vector<uint64_t*> slabs;
  size_t slab_pages_used = kSlabPages;

  ~Groups() {
    for (uint64_t* slab : slabs) FreeLarge(slab, kSlabPages * kPage * sizeof(uint64_t));
  }

  uint64_t* NewPage() {
    if (slab_pages_used == kSlabPages) {
      slabs.push_back(static_cast<uint64_t*>(AllocateLarge(kSlabPages * kPage * sizeof(uint64_t))));
      slab_pages_used = 0;
    }
    return slabs.back() + kPage * slab_pages_used++;
  }

  void Append(Group& g, const uint64_t* hashes, size_t n) {
    while (n > 0) {
      if (g.size % kPage == 0) g.pages.push_back(NewPage());
      const size_t take = std::min(n, kPage - g.size % kPage);
      std::memcpy(g.pages.back() + g.size % kPage, hashes, take * sizeof(uint64_t));
      g.size += take;
      hashes += take;
      n -= take;
    }
  }

  void Stage(uint64_t hash) {
    const size_t g = hash >> (64 - kGroupBits);
    staging[g].hashes[fill[g]] = hash;
    if (++fill[g] == kLine) {
      Append(groups[g], staging[g].hashes, kLine);
      fill[g] = 0;
    }
  }

  void FlushStaging() {
    for (size_t g = 0; g < kNumGroups; ++g) {
      Append(groups[g], staging[g].hashes, fill[g]);
      fill[g] = 0;
    }
  }

  size_t Bytes() const {
    return sizeof(Groups) + slabs.size() * kSlabPages * kPage * sizeof(uint64_t);
  }
};

void HashBuffer::GroupsDeleter::operator()(Groups* groups) const { delete groups; }

HashBuffer::~HashBuffer() { Release(); }

HashBuffer::HashBuffer(HashBuffer&& other) noexcept { *this = std::move(other); }

HashBuffer& HashBuffer::operator=(HashBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    group_above_ = other.group_above_;
    start_ = std::exchange(other.start_, nullptr);
    next_ = std::exchange(other.next_, nullptr);
    end_ = std::exchange(other.end_, nullptr);
    moved_ = std::exchange(other.moved_, 0);
    groups_ = std::move(other.groups_);
  }
  return *this;
}

void HashBuffer::Release() {
  uint64_t* data = start_;
  size_t capacity = static_cast<size_t>(end_ - start_);
  if (data != nullptr && capacity <= kSpareMaxHashes && capacity > spare.capacity) {
    std::swap(data, spare.data);  // Keep the larger of the two.
    std::swap(capacity, spare.capacity);
  }
  FreeLarge(data, capacity * sizeof(uint64_t));
  start_ = next_ = end_ = nullptr;
  moved_ = 0;
  groups_.reset();
}

size_t HashBuffer::MemoryUsage() const {
  return static_cast<size_t>(end_ - start_) * sizeof(uint64_t) + (groups_ ? groups_->Bytes() : 0);
}

void HashBuffer::MakeRoom() {
  if (groups_) {
    Regroup(start_, kIntake);
    next_ = start_;
    return;
  }
  const size_t held = size();
  if (held >= group_above_) {
    StartGrouping();
    return;
  }
  if (held == 0 && spare.data != nullptr && !groups_) {
    start_ = next_ = std::exchange(spare.data, nullptr);
    end_ = start_ + std::exchange(spare.capacity, 0);
    return;
  }
  const size_t capacity = held == 0 ? kFirstCapacity : 2 * held;
  start_ = Reallocate(start_, static_cast<size_t>(end_ - start_), held, capacity);
  next_ = start_ + held;
  end_ = start_ + capacity;
}

void HashBuffer::Regroup(const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) groups_->Stage(hashes[i]);
  moved_ += n;
}

void HashBuffer::StartGrouping() {
  groups_.reset(new Groups);
  Regroup(start_, size());
  // The flat array shrinks to the intake: its memory goes back now.
  start_ = Reallocate(start_, static_cast<size_t>(end_ - start_), 0, kIntake);
  next_ = start_;
  end_ = start_ + kIntake;
}

void HashBuffer::Drain(absl::FunctionRef<void(const uint64_t*, size_t)> visit) {
  if (!groups_) {
    if (next_ != start_) visit(start_, size());
  } else {
    Regroup(start_, static_cast<size_t>(next_ - start_));
    groups_->FlushStaging();
    for (Groups::Group& g : groups_->groups) {
      for (size_t p = 0; p * kPage < g.size; ++p) {
        visit(g.pages[p], std::min(kPage, g.size - p * kPage));
      }
    }
  }
  Release();
}

}  // namespace internal
}  // namespace lsmbloom
