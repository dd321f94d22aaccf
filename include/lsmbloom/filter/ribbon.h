// The homogeneous Ribbon filter: builder and reader.
//
// A static filter about 30% smaller than a Bloom filter of the same
// false-positive rate: at 1% it needs ~7 bits per key where the blocked Bloom
// filter needs 10 (the bound is log2(100) = 6.64). Each key is one linear
// equation over GF(2) in a band of 128 slots; the builder solves the system
// (Gaussian elimination as keys arrive, then back-substitution) and stores the
// solution, r or r + 1 bits per slot (docs/FORMAT.md, "Ribbon filter"). It
// costs more to build than a Bloom filter, and a query reads 2-4 adjacent
// cache lines instead of one.
//
// Construction never fails: every equation has right-hand side zero, so the
// system always has a solution (the homogeneous variant of the paper). The
// price is a slightly higher FPR than 2^-r: an absent key whose equation
// happens to follow from the added ones always matches. ribbon_math.h models
// that term; the builder keeps it small by giving the band 4.5% or more
// slots than keys (PlanRibbon picks the slack, ribbon_math.h). Where the
// band still has a saturated stretch (a cluster of starts, whose absent
// keys would match always), the builder measures that fraction, sizes the
// filter for it and records it in the filter; and where laying the keys out
// again with another layout seed (and 0.25% more slack every second time,
// up to 8 times) makes the filter 1% smaller (sized by target_fpr) or 5%
// more accurate (by bits_per_key), it does so, at about 60% of a build
// each time.
//
// The guarantee: a key added to a builder is never rejected by a reader of
// the filter that builder produced, as long as the bytes are complete and
// uncorrupted; Open() refuses (with a Status saying why) bytes it cannot
// trust.
//
// Example:
//   RibbonOptions options;
//   options.target_fpr = 0.01;
//   auto builder = RibbonBuilder::Create(options);
//   for (auto& key : keys) builder->AddKey(key);
//   absl::StatusOr<std::string> filter = builder->Finish();
//   auto reader = RibbonReader::Open(*filter);
//   if (reader.ok() && !reader->MayMatch("k")) { /* "k" is certainly absent */ }

#ifndef LSMBLOOM_FILTER_RIBBON_H_
#define LSMBLOOM_FILTER_RIBBON_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/filter/filter_kind.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/ribbon_options.h"

namespace lsmbloom {
namespace internal {
class HashBuffer;  // The builder's store of hashes (src/filter/hash_buffer.h).
}  // namespace internal

// The shape of one Ribbon filter, as planned or as read from its header.
struct RibbonGeometry {
  uint64_t num_keys = 0;      // Hashes added (adjacent repeats dropped).
  uint64_t num_segments = 0;  // 64-slot segments; 0 exactly when num_keys is 0, else >= 2.
  int num_columns = 1;        // r: result bits of the lower segments, in [1, 32].
  uint64_t upper_start = 0;   // First segment with r + 1 columns (num_segments: none).
  // The fraction of absent keys whose equation depends on the added ones,
  // in units of 2^-32, as the builder measured it on a band that kept a
  // saturated stretch (RibbonBuilder::Finish); 0 when banding showed none,
  // and then the model's value applies (ribbon_math.h).
  uint32_t measured_dependent = 0;
  // Which start multiplier lays keys out (docs/FORMAT.md); 0 unless the
  // band saturated with the layouts before it.
  uint8_t layout_seed = 0;
  HashSpec hash;

  // Slots per segment (docs/FORMAT.md, "Ribbon filter").
  static constexpr uint64_t kSegmentSlots = 64;

  uint64_t num_slots() const { return num_segments * kSegmentSlots; }
  // Possible start slots; 0 for an empty filter.
  uint64_t num_starts() const { return num_segments == 0 ? 0 : num_slots() - 127; }
  uint64_t solution_words() const {
    return num_segments * num_columns + (num_segments - upper_start);
  }
  uint64_t solution_bytes() const { return solution_words() * 8; }
  // Header plus solution: the size of the serialized filter.
  uint64_t serialized_size() const;
  // Solution bits per key (0 for an empty filter).
  double bits_per_key() const;
  // Fraction of keys (of start slots) in segments with r + 1 columns.
  double upper_fraction() const;
  // d of the FPR model (ribbon_math.h): measured_dependent if set, else the
  // model's value for a band of this geometry's slack without a saturated
  // stretch.
  double dependent_fraction() const;
  // The model's FPR at this geometry (ribbon_math.h); 0 for an empty filter.
  double predicted_fpr() const;
};

// The geometry Finish() would choose for `num_keys` keys, unless their band
// saturates (RibbonBuilder::Finish). Allocates nothing; fails if the filter
// would need more than 2^26 segments (~4 billion keys).
absl::StatusOr<RibbonGeometry> PlanRibbon(uint64_t num_keys, const RibbonOptions& options);

// The most memory RibbonBuilder::Finish holds at once to build a Ribbon
// filter of geometry `g` (a PlanRibbon result): the sorted hashes (8 bytes
// per key) and the band's room (16 bytes per slot, 2.5% spare for wider
// bands), ~25.1 bytes per key; measured, 24.8 at 10^7 keys
// (docs/PERFORMANCE.md). The rest fits below it: before the band, the
// buffered and sorted hashes and the sort's counts (at most 18 bytes per
// key); a re-layout's scratch, in the band's memory; the filter, allocated
// once the hashes are freed. Not counted: under 1 MiB of fixed bookkeeping.
uint64_t RibbonConstructionBytes(const RibbonGeometry& g);

// Collects keys and produces one serialized filter.
//
// Call order: (AddKey | AddHash)* Finish, repeatable: Finish() resets the
// builder. A key added again right after itself is dropped on arrival;
// repeats further apart count towards the size but change no solution bit
// (their equation is the same). Memory: 8 bytes per key (up to 16 while the
// buffer grows) until Finish; Finish then holds the buffered hashes sorted
// (8 bytes per key, the buffer freed once they are copied) and the band, 16
// bytes per slot (~16.8 per key, room reserved for 2.5% more): ~25 bytes
// per key at the peak, laying the keys out again included (its scratch is
// the band's memory), the output allocated once the hashes are freed
// (RibbonConstructionBytes). options().max_construction_bytes bounds that
// peak: over it, Finish builds a blocked Bloom filter instead (fell_back();
// ribbon_options.h says why and how). Not thread-safe.
class RibbonBuilder {
 public:
  // InvalidArgument if the options are invalid.
  static absl::StatusOr<RibbonBuilder> Create(const RibbonOptions& options = RibbonOptions());

  // A moved-from builder may only be destroyed or assigned to.
  RibbonBuilder(RibbonBuilder&&) noexcept;
  RibbonBuilder& operator=(RibbonBuilder&&) noexcept;
  ~RibbonBuilder();

  void AddKey(std::string_view key) { AddHash(KeyHash(key, options_.hash)); }

  // AddKey of every key of `keys`: any range of things convertible to
  // std::string_view.
  template <typename KeyRange>
  void AddKeys(const KeyRange& keys) {
    for (const auto& key : keys) AddKey(std::string_view(key));
  }

  // REQUIRES: hash == KeyHash(key, options().hash) for the key it stands for.
  void AddHash(uint64_t hash);

  // Hashes buffered so far: the count the filter will be sized from.
  size_t num_buffered() const;
  const RibbonOptions& options() const { return options_; }
  // Bytes the builder holds now: about 8 per buffered hash.
  size_t MemoryUsage() const;

  // Builds the filter of every key added since the last Finish, then resets.
  // The bytes depend only on the multiset of hashes added (adjacent repeats
  // removed) and the options, never on their order or on the CPU. The
  // geometry is PlanRibbon's, or a wider one if the band saturated (see
  // above). Fails only if the filter would exceed 2^26 segments.
  //
  // If RibbonConstructionBytes of that plan exceeds
  // options().max_construction_bytes, the bytes are a blocked Bloom filter
  // (blocked_bloom.h; its header says so: magic "LBBF", not "LRBF") of the
  // same keys and hash, sized for the Ribbon plan's predicted FPR, and
  // fell_back() is true until the next Finish: open them with
  // BlockedBloomReader, or through the Ribbon policy, which opens both.
  absl::StatusOr<std::string> Finish();

  // Whether the last Finish built the blocked Bloom fallback.
  bool fell_back() const { return fell_back_; }
  // How many Finish calls of this builder fell back, in all.
  uint64_t num_fallbacks() const { return num_fallbacks_; }

 private:
  explicit RibbonBuilder(const RibbonOptions& options);
  // Finish's blocked Bloom filter of the buffered hashes, at the FPR `ribbon`
  // predicts (ribbon_fallback.cc).
  absl::StatusOr<std::string> FinishBloomFallback(const RibbonGeometry& ribbon);

  RibbonOptions options_;
  std::unique_ptr<internal::HashBuffer> hashes_;
  uint64_t last_hash_ = 0;
  bool has_last_hash_ = false;
  bool fell_back_ = false;
  uint64_t num_fallbacks_ = 0;
};

// What a probe needs, in one small value. Valid while the reader's bytes are.
struct RibbonView {
  const uint64_t* words = nullptr;  // Possibly unaligned: read with memcpy.
  uint64_t num_starts = 0;          // 0: an empty filter, which matches nothing.
  uint64_t start_multiplier = 1;    // RibbonStartMultiplier(layout seed).
  uint64_t upper_start = 0;
  uint64_t num_words = 0;           // Solution words: a probe reads none beyond.
  uint32_t num_columns = 1;
};

// Answers membership queries on serialized Ribbon filter bytes, without
// copying them: the bytes must outlive the reader. All methods are const and
// safe to call from many threads at once. Cheap to copy.
class RibbonReader {
 public:
  // Checks everything the format declares: magic, version, hash id,
  // coefficient width, r, segment counts, that the size matches, reserved
  // bytes, and both checksums. DataLoss (corrupt or truncated) or
  // InvalidArgument (a version, hash or width this build does not know),
  // saying what is wrong; never reads outside `filter`.
  static absl::StatusOr<RibbonReader> Open(std::string_view filter,
                                          const FilterReadOptions& options = FilterReadOptions());

  // False only if `key` was certainly not added.
  bool MayMatch(std::string_view key) const { return MayMatchHash(KeyHash(key, geometry_.hash)); }

  // As MayMatch, for hash == KeyHash(key, geometry().hash). One call into
  // the SIMD kernel of its family's target (simd.h), bound at Open (the
  // columns' parities computed side by side in vector lanes).
  bool MayMatchHash(uint64_t hash) const {
    return view_.num_starts != 0 && probe_one_(view_, hash);
  }

  // out[i] = MayMatchHash(hashes[i]). For filters over twice the L2 cache,
  // every key's cache lines of a group of 32 are fetched before any of the
  // group is probed. REQUIRES: out.size() == hashes.size().
  void MayMatchBatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const;

  const RibbonView& view() const { return view_; }
  const RibbonGeometry& geometry() const { return geometry_; }
  // The format version in the filter's header (docs/FORMAT.md).
  int format_version() const { return format_version_; }
  // The solution words (for inspection).
  std::string_view solution() const {
    return std::string_view(reinterpret_cast<const char*>(view_.words),
                            geometry_.solution_bytes());
  }

 private:
  using ProbeOneFn = bool (*)(const RibbonView&, uint64_t);
  using ProbeBatchFn = void (*)(const RibbonView&, const uint64_t*, size_t, bool*, bool);
  RibbonReader() = default;

  RibbonGeometry geometry_;
  int format_version_ = 0;
  RibbonView view_;
  // Kernels resolved once per reader, never per probe or per batch.
  ProbeOneFn probe_one_ = nullptr;
  ProbeBatchFn probe_batch_ = nullptr;
  bool prefetch_ = false;
};

// out[i] = whether `hash` may be in *filters[i], for filters whose
// HashSpec the hash was computed with (BlockedBloomProbeEach of blocked_bloom.h for
// Ribbon filters): one call, the cache lines of every filter of a group of
// 32 requested before any of the group is probed, so the misses of a lookup
// across many files overlap. The views are RibbonReader::view()s; an empty
// filter's answers no.
// REQUIRES: out.size() == filters.size().
void RibbonProbeEach(absl::Span<const RibbonView* const> filters, uint64_t hash,
                     absl::Span<bool> out);

// out[i] = whether hashes[i] may be in *filters[i]: the (key, file) pairs of
// a batch of lookups, in one call, in groups of 32 as above. REQUIRES: the
// three sizes are equal.
void RibbonProbePairs(absl::Span<const RibbonView* const> filters,
                      absl::Span<const uint64_t> hashes, absl::Span<bool> out);

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_RIBBON_H_
