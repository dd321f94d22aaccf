// A classic Bloom filter: one bit array, k probes anywhere in it.
//
// Layout (little-endian): magic "LCBF", version 1, k (1 byte), 2 reserved
// zero bytes, num_bits (8 bytes), num_keys (8 bytes), XXH3-64 of the bits
// (8 bytes), then ceil(num_bits / 8) bytes of bits. Probe i of hash h is
//   fastrange64(h + i * ((h >> 32 | h << 32) | 1), num_bits)
// (a 64-bit odd stride, so no probe sequence collapses to one position).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/filter_policy.h"
#include "src/util/checksum.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace {

constexpr size_t kHeader = 32;
constexpr char kMagic[4] = {'L', 'C', 'B', 'F'};

uint64_t Position(uint64_t hash, int probe, uint64_t num_bits) {
  const uint64_t stride = ((hash >> 32) | (hash << 32)) | 1;
  const uint64_t x = hash + static_cast<uint64_t>(probe) * stride;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * num_bits) >> 64);
}

class ClassicBuilder : public FilterBuilder {
 public:
  explicit ClassicBuilder(double bits_per_key) : bits_per_key_(bits_per_key) {}
  void AddKey(std::string_view key) override { hashes_.push_back(KeyHash(key)); }
  const HashSpec* hash_spec() const override { return &spec_; }
  absl::Status AddHash(uint64_t hash) override {
    hashes_.push_back(hash);
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Finish() override {
    std::sort(hashes_.begin(), hashes_.end());
    hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
    const uint64_t n = hashes_.size();
    uint64_t num_bits = static_cast<uint64_t>(std::ceil(n * bits_per_key_));
    if (n > 0 && num_bits < 64) num_bits = 64;
    // The standard optimum, k = (m/n) ln 2, is right for an unblocked filter.
    int k = static_cast<int>(std::lround(bits_per_key_ * std::log(2.0)));
    k = std::max(1, std::min(k, 30));
    std::string out(kHeader + (num_bits + 7) / 8, '\0');
    std::memcpy(&out[0], kMagic, 4);
    out[4] = 1;
    out[5] = static_cast<char>(k);
    internal::EncodeFixed64(&out[8], num_bits);
    internal::EncodeFixed64(&out[16], n);
    char* bits = &out[kHeader];
    for (uint64_t h : hashes_) {
      for (int i = 0; i < k; ++i) {
        const uint64_t p = Position(h, i, num_bits);
        bits[p / 8] |= static_cast<char>(1 << (p % 8));
      }
    }
    internal::EncodeFixed64(&out[24], internal::Checksum64(bits, out.size() - kHeader));
    hashes_.clear();
    return out;
  }

 private:
  double bits_per_key_;
  HashSpec spec_;  // The default: what KeyHash(key) uses.
  std::vector<uint64_t> hashes_;
};

class ClassicReader : public FilterReader {
 public:
  ClassicReader(const char* bits, uint64_t num_bits, uint64_t num_keys, int k)
      : bits_(bits), num_bits_(num_bits), num_keys_(num_keys), k_(k) {}

  bool KeyMayMatch(std::string_view key) const override { return HashMayMatch(KeyHash(key)); }
  const HashSpec* hash_spec() const override { return &spec_; }
  bool HashMayMatch(uint64_t hash) const override {
    if (num_bits_ == 0) return false;
    for (int i = 0; i < k_; ++i) {
      const uint64_t p = Position(hash, i, num_bits_);
      if ((bits_[p / 8] & (1 << (p % 8))) == 0) return false;
    }
    return true;
  }
  std::string Describe() const override {
    return absl::StrFormat("classic bloom v1: %d probes, %u bits, %u keys, %.3f bits/key", k_,
                           num_bits_, num_keys_, bits_per_key());
  }
  double bits_per_key() const override {
    return num_keys_ == 0 ? 0 : static_cast<double>(num_bits_) / num_keys_;
  }
  double predicted_fpr() const override {
    return num_keys_ == 0 ? 0 : StandardBloomFpr(bits_per_key(), k_);
  }

 private:
  HashSpec spec_;
  const char* bits_;
  uint64_t num_bits_, num_keys_;
  int k_;
};

class ClassicPolicy : public FilterPolicy {
 public:
  explicit ClassicPolicy(double bits_per_key) : bits_per_key_(bits_per_key) {}
  std::string Name() const override { return kClassicBloomPolicyName; }
  std::unique_ptr<FilterBuilder> NewBuilder() const override {
    return std::make_unique<ClassicBuilder>(bits_per_key_);
  }
  absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(std::string_view filter) const override {
    if (filter.size() < kHeader || std::memcmp(filter.data(), kMagic, 4) != 0) {
      return absl::DataLossError("classic Bloom filter: truncated or bad magic");
    }
    if (filter[4] != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("classic Bloom filter: unsupported version ", static_cast<int>(filter[4])));
    }
    const int k = static_cast<uint8_t>(filter[5]);
    const uint64_t num_bits = internal::DecodeFixed64(filter.data() + 8);
    const uint64_t num_keys = internal::DecodeFixed64(filter.data() + 16);
    if (k < 1 || k > 30 || filter[6] != 0 || filter[7] != 0 || num_bits > (uint64_t{1} << 40) ||
        filter.size() - kHeader != (num_bits + 7) / 8 || (num_bits == 0) != (num_keys == 0)) {
      return absl::DataLossError("classic Bloom filter: inconsistent header");
    }
    if (internal::DecodeFixed64(filter.data() + 24) !=
        internal::Checksum64(filter.data() + kHeader, filter.size() - kHeader)) {
      return absl::DataLossError("classic Bloom filter: checksum mismatch");
    }
    return std::unique_ptr<FilterReader>(
        new ClassicReader(filter.data() + kHeader, num_bits, num_keys, k));
  }

 private:
  double bits_per_key_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewClassicBloomPolicy(double bits_per_key) {
  if (!(bits_per_key > 0 && bits_per_key <= 1000)) {
    return absl::InvalidArgumentError(
        absl::StrCat("classic Bloom filter: bits_per_key ", bits_per_key, " is not in (0, 1000]"));
  }
  return std::shared_ptr<const FilterPolicy>(std::make_shared<ClassicPolicy>(bits_per_key));
}

}  // namespace lsmbloom
