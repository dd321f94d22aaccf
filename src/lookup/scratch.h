// Scratch space and flag scans for the lookup path: buffers that live on
// the stack or grow to the largest batch seen, never initialised, and the
// scans of a batch's filter answers. Header-only: every one is inlined into
// Get and MultiGet.

#ifndef LSMBLOOM_SRC_LOOKUP_SCRATCH_H_
#define LSMBLOOM_SRC_LOOKUP_SCRATCH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace lsmbloom {
namespace internal {

// Scratch space that grows to the largest batch seen, uninitialised
// (and bool*, unlike std::vector<bool>).
template <typename T>
class Buffer {
 public:
  T* Get(size_t n) {
    if (n > capacity_) {
      capacity_ = std::max(n, 2 * capacity_);
      data_.reset(new T[capacity_]);
    }
    return data_.get();
  }

 private:
  std::unique_ptr<T[]> data_;
  size_t capacity_ = 0;
};
using BoolBuffer = Buffer<bool>;

// Room for n values, uninitialised: on the stack when n <= kInline, as it
// is for a lookup's candidates unless level 0 has grown very deep.
template <typename T, size_t kInline>
class StackScratch {
 public:
  explicit StackScratch(size_t n) : data_(n <= kInline ? inline_ : new T[n]) {}
  ~StackScratch() {
    if (data_ != inline_) delete[] data_;
  }
  StackScratch(const StackScratch&) = delete;
  StackScratch& operator=(const StackScratch&) = delete;

  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  T inline_[kInline];
  T* const data_;
};

// A T constructed only if asked. std::optional<T> would do, but GCC
// zeroed its payload before testing whether to construct it: for a
// lookup's tally, a `rep stos` of the whole struct on every lookup with
// counters off, a measurable share of an absent-key Get.
template <typename T>
class ConstructedIf {
 public:
  explicit ConstructedIf(bool construct) {
    if (construct) value_ = new (storage_) T();
  }
  ~ConstructedIf() {
    if (value_ != nullptr) value_->~T();
  }
  ConstructedIf(const ConstructedIf&) = delete;
  ConstructedIf& operator=(const ConstructedIf&) = delete;

  T* get() const { return value_; }  // Null unless constructed.

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
  T* value_ = nullptr;
};

// Calls f(i), in increasing order, for each i < n with flags[i] true: eight
// flags a load, as nearly all are false (a filter's "no").
template <typename F>
void ForEachTrue(const bool* flags, size_t n, const F& f) {
  static_assert(sizeof(bool) == 1, "a flag is one byte, 0 or 1");
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, flags + i, 8);
    for (; word != 0; word &= word - 1) f(i + static_cast<size_t>(__builtin_ctzll(word)) / 8);
  }
  for (; i < n; ++i) {
    if (flags[i]) f(i);
  }
}

// Whether any of flags[0, n) is true, eight a load.
inline bool AnyTrue(const bool* flags, size_t n) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, flags + i, 8);
    any |= word;
  }
  for (; i < n; ++i) any |= flags[i];
  return any != 0;
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_LOOKUP_SCRATCH_H_
