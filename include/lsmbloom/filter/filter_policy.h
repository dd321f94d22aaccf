// The interface between tables and filters.
//
// A table builder hands every key of a table to a FilterBuilder and stores
// the bytes it returns as the table's filter block, under the policy's
// Name(). A table reader finds a policy with that name among the ones it
// knows and asks it for a FilterReader over those bytes. A reader may only
// say "no" for keys the builder never saw: when a policy cannot trust the
// bytes it returns an error from NewReader, and the table then filters
// nothing (every answer "maybe") and reports why.
//
// Built in: the cache-line-blocked Bloom filter (the product), a classic
// unblocked Bloom filter (the accuracy reference) and the Ribbon filter
// (ribbon_policy.h: fewer bits for the same FPR). A store may implement its
// own policy; nothing in the library needs to change for that, and lookups
// across many tables (lookup.h) probe its filters through this interface,
// hashing each key once per HashSpec, on the same path as the built-in ones.
//
// Part of the core API, with table/ and lookup/: this header carries no
// filter's internals, no SIMD code and no intrinsics
// (tests:core_headers_test). The blocked filter's own API and its fast
// tier are blocked_bloom.h and blocked_bloom-inl.h, for code that uses the
// filter directly.

#ifndef LSMBLOOM_FILTER_FILTER_POLICY_H_
#define LSMBLOOM_FILTER_FILTER_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lsmbloom/filter/blocked_bloom_options.h"
#include "lsmbloom/filter/key_hash.h"

namespace lsmbloom {
namespace internal {
struct FilterProbe;  // How lookups probe a reader (src/filter/filter_probe.h).
}  // namespace internal

// Collects the keys of one filter. Call order: (AddKey | AddHash)* Finish,
// once.
class FilterBuilder {
 public:
  virtual ~FilterBuilder() = default;
  virtual void AddKey(std::string_view key) = 0;

  // Builders that place keys by a KeyHash() return its HashSpec, so a caller
  // that has hashed a key already can hand over the hash; others return null.
  virtual const HashSpec* hash_spec() const { return nullptr; }
  // Same as AddKey(key) for hash == KeyHash(key, *hash_spec()). A builder
  // without a HashSpec cannot place a bare hash: FailedPrecondition, the key
  // not added (the caller must AddKey it, or its filter would lose it).
  virtual absl::Status AddHash(uint64_t hash);

  virtual absl::StatusOr<std::string> Finish() = 0;
};

// Answers queries on one filter's bytes (which must outlive it). Const
// methods are safe to call from many threads.
class FilterReader {
 public:
  virtual ~FilterReader() = default;

  // False only if `key` was certainly not added.
  virtual bool KeyMayMatch(std::string_view key) const = 0;

  // Readers that accept precomputed hashes return their HashSpec, so a
  // lookup across many filters can hash a key once; others return null.
  virtual const HashSpec* hash_spec() const { return nullptr; }
  // REQUIRES: hash_spec() != nullptr, hash == KeyHash(key, *hash_spec()).
  virtual bool HashMayMatch(uint64_t /*hash*/) const { return true; }
  // Batched HashMayMatch; the default loops. REQUIRES: sizes equal.
  virtual void HashesMayMatch(absl::Span<const uint64_t> hashes, absl::Span<bool> out) const;

  // One line for humans: kind and parameters ("blocked bloom, k=6, ...").
  virtual std::string Describe() const = 0;
  // Filter bits per key, and the predicted false-positive rate, if known;
  // 0 by default. (Defined out of line: floating point compiled inline here
  // would differ with each includer's target flags.)
  virtual double bits_per_key() const;
  virtual double predicted_fpr() const;

 private:
  friend struct internal::FilterProbe;
  // The library's own: how lookups across many tables probe this filter.
  // The built-in kinds hand over their bits to be probed in batches; any
  // other reader, left as it is, is probed through this interface.
  virtual void DescribeProbe(internal::FilterProbe* probe) const;
};

class FilterPolicy {
 public:
  virtual ~FilterPolicy() = default;
  // Stored in every table; must change whenever the encoding changes.
  virtual std::string Name() const = 0;
  virtual std::unique_ptr<FilterBuilder> NewBuilder() const = 0;
  // An error (DataLoss, InvalidArgument, ...) says why `filter` cannot be
  // trusted; the caller must then not filter at all.
  virtual absl::StatusOr<std::unique_ptr<FilterReader>> NewReader(
      std::string_view filter) const = 0;
};

// The built-in policies' names, as tables record them.
inline constexpr char kBlockedBloomPolicyName[] = "lsmbloom.BlockedBloom.v1";
inline constexpr char kClassicBloomPolicyName[] = "lsmbloom.ClassicBloom.v1";

// The cache-line-blocked Bloom filter (kBlockedBloomPolicyName). Its reader
// verifies the filter's own header and checksums. InvalidArgument, naming
// the field, if ValidateBlockedBloomOptions(options) fails.
absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewBlockedBloomPolicy(
    const BlockedBloomOptions& options);

// A standard Bloom filter over one bit array (no blocks), k probes from
// 64-bit double hashing of XXH3-64; the accuracy reference for the blocked
// filter (kClassicBloomPolicyName). InvalidArgument unless
// 0 < bits_per_key <= 1000.
absl::StatusOr<std::shared_ptr<const FilterPolicy>> NewClassicBloomPolicy(double bits_per_key);

// The blocked Bloom filter with default options (10 bits/key): what
// TableOptions writes unless told otherwise. Never null.
std::shared_ptr<const FilterPolicy> DefaultFilterPolicy();

// Every built-in policy (blocked, classic, Ribbon), with default options:
// what a table reader loads filters with when TableReadOptions names no
// policies. A reader needs no
// options: each filter describes itself.
std::vector<std::shared_ptr<const FilterPolicy>> BuiltinFilterPolicies();

}  // namespace lsmbloom

#endif  // LSMBLOOM_FILTER_FILTER_POLICY_H_
