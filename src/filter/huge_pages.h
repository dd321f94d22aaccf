// Large buffers backed by transparent huge pages where the kernel allows.
//
// A filter's build writes every page of its hash buffer and of the filter
// once. With 4 KiB pages each first write faults, and in a VM a fault can
// cost over 10 microseconds (measured here: 16 us per 4 KiB page, so 128 MiB
// took 540 ms to touch; with huge pages, 9 ms). Where the kernel grants huge
// pages only on request (the "madvise" setting), these functions make the
// request; elsewhere they behave like malloc and free.

#ifndef LSMBLOOM_SRC_FILTER_HUGE_PAGES_H_
#define LSMBLOOM_SRC_FILTER_HUGE_PAGES_H_

#include <cstddef>
#include <cstdint>

namespace lsmbloom {
namespace internal {

// Advises the whole 2 MiB pages inside [data, data + bytes) before they are
// first written; buffers smaller than 32 MiB are left alone.
void AdviseHugePages(void* data, size_t bytes);

// `bytes` of uninitialised memory: from malloc below 32 MiB, otherwise
// mapped, huge-page aligned and advised. Throws
// std::bad_alloc when out of memory, as operator new does.
void* AllocateLarge(size_t bytes);

// Frees what AllocateLarge(bytes) returned, given the same `bytes`.
void FreeLarge(void* data, size_t bytes);

// Moves `data` (from AllocateLarge(old_bytes), or null) to a buffer of
// `new_bytes` keeping its first `kept` bytes, like realloc: small buffers
// grow in place at the top of the heap where they can (a fresh allocation
// and a copy instead left holes that made malloc return and re-fault its top
// pages on every filter).
void* ReallocateLarge(void* data, size_t old_bytes, size_t kept, size_t new_bytes);

// Zero-filled memory starting on a 64-byte boundary: where a filter's bits
// are set, so that no block straddles two cache lines, and the Ribbon
// builder's scratch. From `map_from` bytes on (by default AllocateLarge's
// 32 MiB) it is mapped, huge-page aligned and advised, and zero without
// being touched; below, from calloc. Throws std::bad_alloc when out of
// memory, as operator new does.
class ZeroedLines {
 public:
  explicit ZeroedLines(size_t bytes);
  ZeroedLines(size_t bytes, size_t map_from);
  ~ZeroedLines();
  ZeroedLines(const ZeroedLines&) = delete;
  ZeroedLines& operator=(const ZeroedLines&) = delete;

  uint8_t* data() const { return data_; }
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(data_);
  }

 private:
  size_t allocated_bytes_;
  bool mapped_ = false;
  void* allocation_ = nullptr;
  uint8_t* data_ = nullptr;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_HUGE_PAGES_H_
