#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/blocked_bloom_layout.h"
#include "lsmbloom/filter/bloom_math.h"
#include "src/filter/blocked/blocked_bloom_format.h"
#include "src/filter/hash_buffer.h"
#include "src/filter/huge_pages.h"
#include "src/filter/key_hash_short.h"
#include "src/filter/blocked/blocked_bloom_kernels.h"

namespace lsmbloom {

BlockedBloomOptions::BlockedBloomOptions() = default;

absl::Status ValidateBlockedBloomOptions(const BlockedBloomOptions& options) {
  if (options.target_fpr != 0.0 && !(options.target_fpr > 0.0 && options.target_fpr < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_fpr must be in (0, 1) or 0 for unset, got ", options.target_fpr));
  }
  if (options.target_fpr != 0.0 && options.target_fpr < 1e-12) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_fpr below 1e-12 is not supported, got ", options.target_fpr));
  }
  if (options.target_fpr == 0.0 &&
      !(options.bits_per_key >= 0.1 && options.bits_per_key <= 1000.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bits_per_key must be in [0.1, 1000], got ", options.bits_per_key));
  }
  if (options.num_probes < 0 || options.num_probes > kMaxProbesPerKey) {
    return absl::InvalidArgumentError(absl::StrCat("num_probes must be in [1, ", kMaxProbesPerKey,
                                                   "] or 0 for automatic, got ",
                                                   options.num_probes));
  }
  if (options.hash.id != HashId::kXxh3_64) {
    return absl::InvalidArgumentError("unknown hash id");
  }
  return absl::OkStatus();
}

uint64_t BlockedBloomGeometry::serialized_size() const { return internal::kHeaderBytes + bit_bytes(); }

double BlockedBloomGeometry::bits_per_key() const {
  return num_keys == 0 ? 0.0 : static_cast<double>(num_blocks) * kBlockBits / num_keys;
}

double BlockedBloomGeometry::predicted_fpr() const {
  if (num_keys == 0) return 0.0;
  // Below 0.1 bits/key (possible only in a hand-made header) every probe
  // answers "maybe"; the model's sum would run for ages.
  if (bits_per_key() < 0.1) return 1.0;
  return BlockedBloomFpr(bits_per_key(), num_probes);
}

absl::StatusOr<BlockedBloomGeometry> PlanBlockedBloom(uint64_t num_keys, const BlockedBloomOptions& options) {
  absl::Status valid = ValidateBlockedBloomOptions(options);
  if (!valid.ok()) return valid;
  const double bits_per_key =
      options.target_fpr > 0.0 ? BitsPerKeyForFpr(options.target_fpr) : options.bits_per_key;
  BlockedBloomGeometry g;
  g.hash = options.hash;
  g.num_keys = num_keys;
  g.num_probes = options.num_probes > 0 ? options.num_probes : OptimalBlockedProbes(bits_per_key);
  const double blocks = std::ceil(static_cast<double>(num_keys) * bits_per_key / kBlockBits);
  if (!(blocks <= static_cast<double>(internal::kMaxBlocks))) {
    return absl::InvalidArgumentError(
        absl::StrCat(num_keys, " keys at ", bits_per_key,
                     " bits/key need more than 2^32 blocks (256 GiB); split the table"));
  }
  g.num_blocks = static_cast<uint64_t>(blocks);
  if (num_keys > 0 && g.num_blocks == 0) g.num_blocks = 1;
  return g;
}

absl::StatusOr<BlockedBloomBuilder> BlockedBloomBuilder::Create(
    const BlockedBloomOptions& options) {
  absl::Status valid = ValidateBlockedBloomOptions(options);
  if (!valid.ok()) return valid;
  // Resolve bits/key and k once: the model behind them costs far more than
  // building a small filter, and every Finish would pay it again.
  BlockedBloomOptions resolved = options;
  if (resolved.target_fpr > 0.0) {
    resolved.bits_per_key = BitsPerKeyForFpr(resolved.target_fpr);
    resolved.target_fpr = 0.0;
  }
  if (resolved.num_probes == 0) {
    resolved.num_probes = OptimalBlockedProbes(resolved.bits_per_key);
  }
  return BlockedBloomBuilder(resolved);
}

namespace {

// Filters up to this size are set in insertion order, a block prefetched a
// few keys ahead; the hashes of larger ones are grouped by their top bits so
// that each group's writes stay within a window of the filter that fits in
// cache. The contract: the bytes are the same either way (the bits set do
// not depend on the order); only the time differs, and grouping pays once
// the filter is well beyond the last-level cache (docs/PERFORMANCE.md has
// the measurements behind the threshold).
constexpr double kGroupAboveBytes = 32 << 20;

size_t GroupAboveHashes(const BlockedBloomOptions& resolved) {
  return static_cast<size_t>(kGroupAboveBytes * 8 / resolved.bits_per_key);
}

}  // namespace

BlockedBloomBuilder::BlockedBloomBuilder(const BlockedBloomOptions& options)
    : options_(options),
      hashes_(std::make_unique<internal::HashBuffer>(GroupAboveHashes(options))) {}

BlockedBloomBuilder::BlockedBloomBuilder(BlockedBloomBuilder&&) noexcept = default;
BlockedBloomBuilder& BlockedBloomBuilder::operator=(BlockedBloomBuilder&&) noexcept = default;
BlockedBloomBuilder::~BlockedBloomBuilder() = default;

void BlockedBloomBuilder::AddKey(std::string_view key) {
  AddHash(internal::KeyHashFast(key, options_.hash.seed));
}

// The loop of AddKeyChunk and AddHashes: the buffer's cursor and the last
// hash stay in registers, which a caller's loop of AddHash cannot keep
// (growing the buffer is a call that may change them).
template <typename HashOf>
void BlockedBloomBuilder::AddEach(size_t n, HashOf hash_of) {
  uint64_t* next = next_;
  uint64_t* end = end_;
  uint64_t last_hash = last_hash_;
  bool has_last_hash = has_last_hash_;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hash = hash_of(i);
    if (IsAdjacentRepeat(hash, last_hash, has_last_hash)) continue;
    if (next == end) {
      next_ = next;
      Refill();
      next = next_;
      end = end_;
    }
    *next++ = hash;
  }
  next_ = next;
  last_hash_ = last_hash;
  has_last_hash_ = has_last_hash;
}

void BlockedBloomBuilder::AddKeyChunk(const std::string_view* keys, size_t n) {
  const uint64_t seed = options_.hash.seed;
  AddEach(n, [keys, seed](size_t i) { return internal::KeyHashFast(keys[i], seed); });
}

void BlockedBloomBuilder::AddHashes(absl::Span<const uint64_t> hashes) {
  const uint64_t* const data = hashes.data();
  AddEach(hashes.size(), [data](size_t i) { return data[i]; });
}

void BlockedBloomBuilder::Refill() {
  if (next_ != nullptr) hashes_->Commit(next_);
  hashes_->Lease(&next_, &end_);
  leased_ = next_;
}

size_t BlockedBloomBuilder::num_buffered() const {
  return hashes_->size() + static_cast<size_t>(next_ - leased_);
}

size_t BlockedBloomBuilder::MemoryUsage() const { return hashes_->MemoryUsage(); }

absl::StatusOr<std::string> BlockedBloomBuilder::Finish() {
  if (next_ != nullptr) hashes_->Commit(next_);
  next_ = end_ = leased_ = nullptr;
  internal::HashBuffer hashes = std::move(*hashes_);
  *hashes_ = internal::HashBuffer(GroupAboveHashes(options_));  // Reset.
  has_last_hash_ = false;
  absl::StatusOr<BlockedBloomGeometry> geometry = PlanBlockedBloom(hashes.size(), options_);
  if (!geometry.ok()) return geometry.status();
  // Setting a bit twice changes nothing, so any order and any repeats give
  // the same bits. They are set in a buffer on a cache-line boundary, then
  // copied behind the header: a string's bytes start wherever malloc puts
  // them (16-byte aligned), and every block that straddles two lines makes
  // a key's update touch both.
  const size_t bits_bytes = geometry->bit_bytes();
  internal::ZeroedLines aligned_bits(bits_bytes);
  hashes.Drain([&](const uint64_t* run, size_t n) {
    internal::AddHashes(aligned_bits.data(), geometry->num_blocks, geometry->num_probes, run, n);
  });
  // Reserved (allocated, not yet touched) and advised before the copy
  // writes it: so a large filter's pages fault in as huge pages where the
  // kernel allows.
  std::string filter;
  filter.reserve(geometry->serialized_size());
  internal::AdviseHugePages(&filter[0], geometry->serialized_size());
  filter.resize(internal::kHeaderBytes);
  filter.append(reinterpret_cast<const char*>(aligned_bits.data()), bits_bytes);
  uint8_t* header = reinterpret_cast<uint8_t*>(&filter[0]);
  internal::EncodeHeader(*geometry, header);
  return filter;
}

}  // namespace lsmbloom
