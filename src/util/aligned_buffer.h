// A heap copy of bytes placed on a cache-line boundary: filter bits read in
// 64-byte blocks must not straddle two cache lines.

#ifndef LSMBLOOM_SRC_UTIL_ALIGNED_BUFFER_H_
#define LSMBLOOM_SRC_UTIL_ALIGNED_BUFFER_H_

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>

namespace lsmbloom {
namespace internal {

inline constexpr size_t kCacheLineBytes = 64;

class AlignedBuffer {
 public:
  // Copies `bytes` so that bytes[aligned_at] lands on a 64-byte boundary
  // (aligned_at = 0: the copy starts on one). The allocation extends to the
  // next boundary and one line past it, so a whole-line read of the last
  // line stays inside it.
  explicit AlignedBuffer(std::string_view bytes, size_t aligned_at = 0)
      : pad_((kCacheLineBytes - aligned_at % kCacheLineBytes) % kCacheLineBytes),
        size_(bytes.size()) {
    const size_t lines = (pad_ + size_ + kCacheLineBytes - 1) / kCacheLineBytes + 1;
    storage_.reset(
        static_cast<char*>(std::aligned_alloc(kCacheLineBytes, lines * kCacheLineBytes)));
    if (storage_ == nullptr) throw std::bad_alloc();
    if (size_ != 0) std::memcpy(storage_.get() + pad_, bytes.data(), size_);
  }

  std::string_view view() const { return std::string_view(storage_.get() + pad_, size_); }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };

  size_t pad_;
  size_t size_;
  std::unique_ptr<char, Free> storage_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_ALIGNED_BUFFER_H_
