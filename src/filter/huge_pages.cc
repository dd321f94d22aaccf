#include "src/filter/huge_pages.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lsmbloom {
namespace internal {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
// Smaller buffers come from malloc, which keeps freed memory for the next
// filter; larger ones glibc would map anew every time anyway (its mapping
// threshold tops out at 32 MiB), so they are mapped here, with huge pages.
constexpr size_t kMapAbove = size_t{32} << 20;

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// `bytes` mapped (zero), starting on a huge-page boundary and advised.
// Maps one huge page more than asked and trims to a huge-page boundary, so
// that every 2 MiB of the buffer can be one page.
void* MapHugeAligned(size_t bytes) {
  const size_t mapped = bytes + kHugePage;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (begin + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > begin) munmap(p, aligned - begin);
  const uintptr_t end = begin + mapped, used_end = aligned + bytes;
  const uintptr_t tail = (used_end + 4095) & ~uintptr_t{4095};
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}
#endif

}  // namespace

void AdviseHugePages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kMapAbove) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
  // Advice only: a kernel without THP says no, and nothing changes.
  if (last > first) {
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

void* AllocateLarge(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kMapAbove) return MapHugeAligned(bytes);
#endif
  void* p = std::malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void FreeLarge(void* data, size_t bytes) {
  if (data == nullptr) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kMapAbove) {
    munmap(data, bytes);
    return;
  }
#endif
  std::free(data);
}

void* ReallocateLarge(void* data, size_t old_bytes, size_t kept, size_t new_bytes) {
  if (old_bytes < kMapAbove && new_bytes < kMapAbove) {
    void* p = std::realloc(data, new_bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  void* p = AllocateLarge(new_bytes);
  if (kept > 0) std::memcpy(p, data, kept);
  FreeLarge(data, old_bytes);
  return p;
}

ZeroedLines::ZeroedLines(size_t bytes) : ZeroedLines(bytes, kMapAbove) {}

ZeroedLines::ZeroedLines(size_t bytes, size_t map_from) : allocated_bytes_(bytes + 64) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  mapped_ = allocated_bytes_ >= map_from;
#else
  (void)map_from;
#endif
  // Mapped memory is zero already (and touching it here would fault every
  // page twice over); malloc's may hold an earlier buffer's bytes.
  allocation_ = mapped_ ? MapHugeAligned(allocated_bytes_) : std::calloc(allocated_bytes_, 1);
  if (allocation_ == nullptr) throw std::bad_alloc();
  const uintptr_t at = reinterpret_cast<uintptr_t>(allocation_);
  data_ = reinterpret_cast<uint8_t*>((at + 63) & ~uintptr_t{63});
}

ZeroedLines::~ZeroedLines() {
#if defined(__linux__)
  if (mapped_) {
    munmap(allocation_, allocated_bytes_);
    return;
  }
#endif
  std::free(allocation_);
}

}  // namespace internal
}  // namespace lsmbloom
