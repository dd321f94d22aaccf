// The cache-line-blocked Bloom filter: builder and reader.
//
// Every key lives in one 64-byte block, so a probe costs one cache miss. The
// builder buffers one 64-bit hash per key, and at Finish() sizes the filter
// from the number of distinct hashes, sets the bits block by block, and
// serializes a self-describing filter (docs/FORMAT.md): magic, format
// version, hash id and seed, geometry, key count and two checksums. The
// reader opens those bytes in place and answers "maybe" or a certain "no".
//
// The guarantee: a key added to a builder is never rejected by a reader of
// the filter that builder produced, as long as the bytes are complete and
// uncorrupted. Open() verifies that and refuses (with a Status saying why)
// bytes it cannot trust, so a corrupt filter can never reject a real key.
// The false-positive rate of absent keys follows the blocked model in
// bloom_math.h; a finite sample of absent keys is an observation of it.
//
// A filter cannot delete keys or grow in place: to change its key set,
// rebuild it.
//
// This is the blocked filter's own API, for code that uses the filter
// without tables. Tables reach it through FilterPolicy (filter_policy.h),
// which does not include this header. Every inline function here compiles
// to the same code under any target flags (no vector code, no floating
// point): the SIMD probes run in the library, chosen at run time, or in
// the caller's own per-target code through blocked_bloom-inl.h.
//
// Example:
//   BlockedBloomOptions options;
//   options.bits_per_key = 10;
//   auto builder = BlockedBloomBuilder::Create(options);
//   for (auto& key : keys) builder->AddKey(key);
//   absl::StatusOr<std::string> filter = builder->Finish();
//   auto reader = BlockedBloomReader::Open(*filter);
//   if (reader.ok() && !reader->MayMatch("k")) { /* "k" is certainly absent */ }

#ifndef LSMBLOOM_FILTER_BLOCKED_BLOOM_H_
#define LSMBLOOM_FILTER_BLOCKED_BLOOM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/filter/blocked_bloom_options.h"
#include "lsmbloom/filter/filter_kind.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace internal {
class HashBuffer;  // The builder's store of hashes (src/filter/hash_buffer.h).
}  // namespace internal

// The shape of one filter, as planned or as read from its header.
struct BlockedBloomGeometry {
  uint64_t num_keys = 0;    // Hashes added (adjacent repeats dropped).
  uint64_t num_blocks = 0;  // 64-byte blocks; 0 exactly when num_keys is 0.
  int num_probes = 1;       // k.
  HashSpec hash;

  uint64_t bit_bytes() const { return num_blocks * 64; }
  // Header plus bits: the size of the serialized filter.
  uint64_t serialized_size() const;
  // Actual bits per key (0 for an empty filter).
  double bits_per_key() const;
  // The blocked model's FPR at this geometry (0 for an empty filter).
  double predicted_fpr() const;
};

// The geometry Finish() would choose for `num_keys` keys. Allocates
// nothing, so it answers for any n; fails if the filter would need more than
// 2^32 blocks (256 GiB).
absl::StatusOr<BlockedBloomGeometry> PlanBlockedBloom(uint64_t num_keys, const BlockedBloomOptions& options);

// Collects keys and produces one serialized filter.
//
// Call order: (AddKey | AddHash)* Finish, repeatable: Finish() resets the
// builder for the next filter. A key added again right after itself (a key
// written at several sequence numbers, in a sorted table) is dropped on
// arrival; a repeat further away sets the same bits again, which changes
// nothing but the count the filter is sized from, as in RocksDB. Memory:
// 8 bytes per key added (minus adjacent repeats) until Finish, which needs
// little more. Not thread-safe.
class BlockedBloomBuilder {
 public:
  // InvalidArgument if the options are invalid.
  static absl::StatusOr<BlockedBloomBuilder> Create(
      const BlockedBloomOptions& options = BlockedBloomOptions());

  // A moved-from builder may only be destroyed or assigned to.
  BlockedBloomBuilder(BlockedBloomBuilder&&) noexcept;
  BlockedBloomBuilder& operator=(BlockedBloomBuilder&&) noexcept;
  ~BlockedBloomBuilder();

  void AddKey(std::string_view key);

  // AddKey of every key of `keys` in order: any range whose elements convert
  // to std::string_view. Faster than a loop of AddKey when keys are at hand
  // together: a chunk of keys at a time goes into the library in one call,
  // which hashes and adds them with the buffer's cursor in registers.
  template <typename KeyRange>
  void AddKeys(const KeyRange& keys);

  // REQUIRES: hash == KeyHash(key, options().hash) for the key it stands for.
  void AddHash(uint64_t hash) {
    if (IsAdjacentRepeat(hash, last_hash_, has_last_hash_)) return;
    if (next_ == end_) Refill();
    *next_++ = hash;
  }

  // AddHash of every hash of `hashes` in order, in one call: for hashes computed
  // together, by KeyHashBatch or by KeyHashInline (key_hash-inl.h) in a
  // caller's loop. The fastest way to add keys: hashing 64 fixed-size keys
  // inline, then adding them here, measured as fast as hashing and adding
  // in one inlined loop (docs/PERFORMANCE.md).
  void AddHashes(absl::Span<const uint64_t> hashes);

  // Hashes buffered so far: the count the filter will be sized from.
  size_t num_buffered() const;
  // The options in force: bits_per_key and num_probes resolved (a target
  // FPR turned into bits/key, k = 0 into the model's optimum).
  const BlockedBloomOptions& options() const { return options_; }
  // Bytes the builder holds now: about 8 per buffered hash.
  size_t MemoryUsage() const;

  // Builds the filter of every key added since the last Finish, then resets.
  // The bytes depend on the multiset of hashes added (adjacent repeats
  // removed), not on their order. Fails only if the filter would exceed
  // 2^32 blocks.
  absl::StatusOr<std::string> Finish();

 private:
  explicit BlockedBloomBuilder(const BlockedBloomOptions& options);
  // Hands the hashes written since the last call to hashes_ and takes new
  // room from it.
  void Refill();
  // Whether `hash` repeats the one added just before it, else makes it the
  // last. Adjacent repeats (a key written at several sequence numbers) are
  // common in sorted tables; dropping them on arrival saves buffer space.
  // The last hash is a parameter so that a loop can keep it in a register.
  static bool IsAdjacentRepeat(uint64_t hash, uint64_t& last_hash, bool& has_last_hash) {
    if (hash == last_hash && has_last_hash) return true;
    last_hash = hash;
    has_last_hash = true;
    return false;
  }

  // AddKeys' unit: keys[0, n) hashed in one call, then added.
  static constexpr size_t kAddKeysChunk = 64;
  void AddKeyChunk(const std::string_view* keys, size_t n);
  // Adds hash_of(i) for i in [0, n) (blocked_bloom_builder.cc).
  template <typename HashOf>
  void AddEach(size_t n, HashOf hash_of);

  BlockedBloomOptions options_;
  std::unique_ptr<internal::HashBuffer> hashes_;
  // The room hashes_ has lent: AddHash writes [leased_, next_) into
  // [leased_, end_) itself, so it stays inline while this header shows
  // nothing of the buffer.
  uint64_t* next_ = nullptr;
  uint64_t* end_ = nullptr;
  uint64_t* leased_ = nullptr;
  uint64_t last_hash_ = 0;
  bool has_last_hash_ = false;
};

template <typename KeyRange>
void BlockedBloomBuilder::AddKeys(const KeyRange& keys) {
  std::string_view chunk[kAddKeysChunk];
  size_t n = 0;
  for (const auto& key : keys) {
    chunk[n++] = std::string_view(key);
    if (n == kAddKeysChunk) {
      AddKeyChunk(chunk, n);
      n = 0;
    }
  }
  if (n != 0) AddKeyChunk(chunk, n);
}

// What a probe needs, in one small value: for the per-target probes of
// blocked_bloom-inl.h and for BlockedBloomProbeEach/BlockedBloomProbePairs below, which probe many
// filters side by side. Valid while the reader's bytes are.
struct BlockedBloomView {
  const uint8_t* bits = nullptr;  // num_blocks * 64 bytes.
  uint64_t num_blocks = 0;        // 0: an empty filter, which matches nothing.
  int num_probes = 1;             // k.
};

// Answers membership queries on serialized filter bytes, without copying
// them: the bytes must outlive the reader. All methods are const and safe to
// call from many threads at once. Cheap to copy.
class BlockedBloomReader {
 public:
  // Checks everything the format declares: magic, version, hash id, block
  // size, k, that the size matches the geometry, reserved bytes, and both
  // checksums. Returns DataLoss (corrupt or truncated) or InvalidArgument
  // (a version or hash this build does not know) saying exactly what is
  // wrong; never reads outside `filter`.
  static absl::StatusOr<BlockedBloomReader> Open(
      std::string_view filter, const FilterReadOptions& options = FilterReadOptions());

  // False only if `key` was certainly not added. A call into the library,
  // which hashes the key and probes as MayMatchHash does.
  bool MayMatch(std::string_view key) const;

  // As MayMatch, for hash == KeyHash(key, geometry().hash): one indirect call
  // into the kernel of its family's target (simd.h), bound at Open. Code
  // that probes many hashes without a call each keeps its own per-target
  // loop and a BlockedBloomProber (blocked_bloom-inl.h); both answer alike.
  bool MayMatchHash(uint64_t hash) const {
    return probe_one_(probed_bits_, probed_blocks_, geometry_.num_probes, hash);
  }

  // out[i] = MayMatchHash(hashes[i]). Fetches blocks ahead of probing when
  // the filter is over twice the size of the L2 cache, where that pays.
  // REQUIRES: out.size() == hashes.size().
  void MayMatchBatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const;

  // For probing without a call per key (blocked_bloom-inl.h) and for
  // BlockedBloomProbeEach/BlockedBloomProbePairs.
  BlockedBloomView view() const {
    return BlockedBloomView{bits_, geometry_.num_blocks, geometry_.num_probes};
  }

  const BlockedBloomGeometry& geometry() const { return geometry_; }
  // The format version in the filter's header (docs/FORMAT.md).
  int format_version() const { return format_version_; }
  // The block `hash` selects (docs/FORMAT.md), for inspection.
  // REQUIRES: geometry().num_blocks > 0.
  uint64_t BlockOfHash(uint64_t hash) const;
  // The bit array, num_blocks * 64 bytes (for inspection).
  std::string_view bits() const {
    return std::string_view(reinterpret_cast<const char*>(bits_), geometry_.bit_bytes());
  }

 private:
  using ProbeFn = bool (*)(const uint8_t*, uint64_t, int, uint64_t);
  using ProbeBatchFn = void (*)(const uint8_t*, uint64_t, int, const uint64_t*, size_t, bool*,
                                bool);
  BlockedBloomReader() = default;

  BlockedBloomGeometry geometry_;
  int format_version_ = 0;
  const uint8_t* bits_ = nullptr;
  // Kernels resolved once per reader, never per probe or per batch.
  ProbeFn probe_one_ = nullptr;
  ProbeBatchFn probe_batch_ = nullptr;
  bool prefetch_ = false;  // Batches fetch blocks ahead (filters over 2x L2).
  // What MayMatchHash and MayMatchBatch probe: bits_ and geometry_.num_blocks,
  // or one block with no bit set as the only block of an empty filter (its
  // probes say no without a branch, which kept compilers from hoisting this
  // reader's fields out of a caller's loop).
  const uint8_t* probed_bits_ = nullptr;
  uint64_t probed_blocks_ = 1;
};

// out[i] = whether `hash` may be in *filters[i], for filters whose
// HashSpec the hash was computed with: one call, with the blocks of the
// next filters fetched while one is probed, so the cache misses of a lookup
// across many files overlap instead of following one another.
// REQUIRES: out.size() == filters.size().
void BlockedBloomProbeEach(absl::Span<const BlockedBloomView* const> filters, uint64_t hash,
                           absl::Span<bool> out);

// out[i] = whether hashes[i] may be in *filters[i]: the (key, file) pairs of
// a batch of lookups, probed in one call with the blocks of many pairs in
// flight at once. REQUIRES: the three sizes are equal.
void BlockedBloomProbePairs(absl::Span<const BlockedBloomView* const> filters,
                            absl::Span<const uint64_t> hashes, absl::Span<bool> out);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_BLOCKED_BLOOM_H_
