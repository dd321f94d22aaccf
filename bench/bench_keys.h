// Key sets shared by the benchmarks: n random 16-byte keys in one flat
// buffer (16 bytes per key, no per-key allocation, so 10^8 keys fit), and a
// disjoint set of absent keys for probing.

#ifndef LSMBLOOM_BENCH_BENCH_KEYS_H_
#define LSMBLOOM_BENCH_BENCH_KEYS_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "lsmbloom/filter/key_hash.h"
#include "src/util/random.h"

namespace lsmbloom {
namespace bench {

constexpr size_t kKeyBytes = 16;

class KeySet {
 public:
  KeySet(uint64_t family, size_t n) : n_(n), bytes_(new char[n * kKeyBytes]) {
    for (size_t i = 0; i < n; ++i) {
      const uint64_t a = internal::SplitMix64(i * 2 + (family << 48));
      const uint64_t b = internal::SplitMix64(a ^ family);
      std::memcpy(&bytes_[i * kKeyBytes], &a, 8);
      std::memcpy(&bytes_[i * kKeyBytes + 8], &b, 8);
      bytes_[i * kKeyBytes + 15] = static_cast<char>(family);  // Disjoint sets.
    }
  }
  size_t size() const { return n_; }
  std::string_view operator[](size_t i) const {
    return std::string_view(&bytes_[i * kKeyBytes], kKeyBytes);
  }

  // The keys in order, for range-for loops and BlockedBloomBuilder::AddKeys.
  class Iterator {
   public:
    explicit Iterator(const char* at) : at_(at) {}
    std::string_view operator*() const { return std::string_view(at_, kKeyBytes); }
    Iterator& operator++() {
      at_ += kKeyBytes;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return at_ != other.at_; }

   private:
    const char* at_;
  };
  Iterator begin() const { return Iterator(bytes_.get()); }
  Iterator end() const { return Iterator(bytes_.get() + n_ * kKeyBytes); }

 private:
  size_t n_;
  std::unique_ptr<char[]> bytes_;
};

// Present keys are family 1, absent keys family 2. Cached: generating 10^8
// keys takes seconds, and every benchmark at that n shares them.
inline const KeySet& Keys(uint64_t family, size_t n) {
  static auto* cache = new std::map<std::pair<uint64_t, size_t>, std::unique_ptr<KeySet>>;
  auto& slot = (*cache)[{family, n}];
  if (!slot) slot.reset(new KeySet(family, n));
  return *slot;
}

// What the filter benchmarks probe: the n keys a filter holds, and 2^20
// absent keys, also as their KeyHashes (computed once).
constexpr size_t kProbeKeys = size_t{1} << 20;
inline const KeySet& Present(size_t n) { return Keys(1, n); }
inline const KeySet& Absent() { return Keys(2, kProbeKeys); }
inline const std::vector<uint64_t>& AbsentHashes() {
  static const auto* hashes = [] {
    auto* h = new std::vector<uint64_t>(kProbeKeys);
    for (size_t i = 0; i < kProbeKeys; ++i) (*h)[i] = KeyHash(Absent()[i]);
    return h;
  }();
  return *hashes;
}

}  // namespace bench
}  // namespace lsmbloom

#endif  // LSMBLOOM_BENCH_BENCH_KEYS_H_
