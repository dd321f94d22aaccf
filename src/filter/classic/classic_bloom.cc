// A classic Bloom filter: one bit array, k probes anywhere in it.
//
// Layout (little-endian): magic "LCBF", version 1, k (1 byte), 2 reserved
// zero bytes, num_bits (8 bytes), num_keys (8 bytes), XXH3-64 of the bits
// (8 bytes), then ceil(num_bits / 8) bytes of bits. Probe i of hash h is
//   fastrange64(h + i * ((h >> 32 | h << 32) | 1), num_bits)
// (a 64-bit odd stride, so no probe sequence collapses to one position).
//
// The accuracy reference for the blocked filter, with no API of its own:
// its builder and reader below exist only for the policy (policy_adapter.h).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/filter/bloom_math.h"
#include "lsmbloom/filter/filter_policy.h"
#include "src/filter/policy_adapter.h"
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

struct ClassicBloomOptions {
  double bits_per_key = 10;
  HashSpec hash;  // The default: what KeyHash(key) uses.
};

struct ClassicBloomGeometry {
  uint64_t num_bits = 0;
  uint64_t num_keys = 0;
  int num_probes = 1;
  HashSpec hash;

  double bits_per_key() const {
    return num_keys == 0 ? 0 : static_cast<double>(num_bits) / num_keys;
  }
  double predicted_fpr() const {
    return num_keys == 0 ? 0 : StandardBloomFpr(bits_per_key(), num_probes);
  }
};

class ClassicBloomBuilder {
 public:
  static absl::StatusOr<ClassicBloomBuilder> Create(const ClassicBloomOptions& options) {
    return ClassicBloomBuilder(options);
  }
  const ClassicBloomOptions& options() const { return options_; }
  void AddKey(std::string_view key) { hashes_.push_back(KeyHash(key)); }
  void AddHash(uint64_t hash) { hashes_.push_back(hash); }

  absl::StatusOr<std::string> Finish() {
    std::sort(hashes_.begin(), hashes_.end());
    hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
    const uint64_t n = hashes_.size();
    const double bits_per_key = options_.bits_per_key;
    uint64_t num_bits = static_cast<uint64_t>(std::ceil(n * bits_per_key));
    if (n > 0 && num_bits < 64) num_bits = 64;
    // The standard optimum, k = (m/n) ln 2, is right for an unblocked filter.
    int k = static_cast<int>(std::lround(bits_per_key * std::log(2.0)));
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
  explicit ClassicBloomBuilder(const ClassicBloomOptions& options) : options_(options) {}

  ClassicBloomOptions options_;
  std::vector<uint64_t> hashes_;
};

class ClassicBloomReader {
 public:
  static absl::StatusOr<ClassicBloomReader> Open(std::string_view filter,
                                                 const FilterReadOptions& options) {
    if (filter.size() < kHeader || std::memcmp(filter.data(), kMagic, 4) != 0) {
      return absl::DataLossError("classic Bloom filter: truncated or bad magic");
    }
    if (filter[4] != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("classic Bloom filter: unsupported version ", static_cast<int>(filter[4])));
    }
    ClassicBloomGeometry g;
    g.num_probes = static_cast<uint8_t>(filter[5]);
    g.num_bits = internal::DecodeFixed64(filter.data() + 8);
    g.num_keys = internal::DecodeFixed64(filter.data() + 16);
    if (g.num_probes < 1 || g.num_probes > 30 || filter[6] != 0 || filter[7] != 0 ||
        g.num_bits > (uint64_t{1} << 40) || filter.size() - kHeader != (g.num_bits + 7) / 8 ||
        (g.num_bits == 0) != (g.num_keys == 0)) {
      return absl::DataLossError("classic Bloom filter: inconsistent header");
    }
    if (options.verify_checksum &&
        internal::DecodeFixed64(filter.data() + 24) !=
            internal::Checksum64(filter.data() + kHeader, filter.size() - kHeader)) {
      return absl::DataLossError("classic Bloom filter: checksum mismatch");
    }
    return ClassicBloomReader(filter.data() + kHeader, g);
  }

  bool MayMatch(std::string_view key) const { return MayMatchHash(KeyHash(key)); }
  bool MayMatchHash(uint64_t hash) const {
    if (geometry_.num_bits == 0) return false;
    for (int i = 0; i < geometry_.num_probes; ++i) {
      const uint64_t p = Position(hash, i, geometry_.num_bits);
      if ((bits_[p / 8] & (1 << (p % 8))) == 0) return false;
    }
    return true;
  }
  void MayMatchBatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const {
    for (size_t i = 0; i < hashes.size(); ++i) out[i] = MayMatchHash(hashes[i]);
  }
  const ClassicBloomGeometry& geometry() const { return geometry_; }

 private:
  ClassicBloomReader(const char* bits, const ClassicBloomGeometry& geometry)
      : bits_(bits), geometry_(geometry) {}

  const char* bits_;
  ClassicBloomGeometry geometry_;
};

struct ClassicBloomKind {
  using Options = ClassicBloomOptions;
  using Builder = ClassicBloomBuilder;
  using Reader = ClassicBloomReader;
  static constexpr FilterKind kKind = FilterKind::kClassicBloom;
  static constexpr const char* kName = kClassicBloomPolicyName;

  static absl::Status Validate(const Options& options) {
    if (!(options.bits_per_key > 0 && options.bits_per_key <= 1000)) {
      return absl::InvalidArgumentError(absl::StrCat("classic Bloom filter: bits_per_key ",
                                                     options.bits_per_key,
                                                     " is not in (0, 1000]"));
    }
    return absl::OkStatus();
  }
  static std::string Describe(const Reader& reader) {
    const ClassicBloomGeometry& g = reader.geometry();
    return absl::StrFormat("classic bloom v1: %d probes, %u bits, %u keys, %.3f bits/key",
                           g.num_probes, g.num_bits, g.num_keys, g.bits_per_key());
  }
  // No batched probe: lookups probe it through its reader, by hash.
  static void SetView(const Reader&, internal::FilterProbe*) {}
};

}  // namespace

absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewClassicBloomPolicy(double bits_per_key) {
  ClassicBloomOptions options;
  options.bits_per_key = bits_per_key;
  return internal::NewKindPolicy<ClassicBloomKind>(options);
}

}  // namespace lsmbloom
