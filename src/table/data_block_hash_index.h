// The hash index of a data block (table format 3, docs/FORMAT.md): one byte
// per bucket naming the restart interval that holds the first entry of the
// user keys hashing there. A point lookup then reads that interval alone,
// or, when the bucket is empty, nothing past the block's tail; a bucket
// whose keys start in several intervals sends it to the binary search.

#ifndef LSMBLOOM_SRC_TABLE_DATA_BLOCK_HASH_INDEX_H_
#define LSMBLOOM_SRC_TABLE_DATA_BLOCK_HASH_INDEX_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lsmbloom {
namespace internal {

// Set in a block's restart count when the index is there.
inline constexpr uint32_t kHashIndexFlag = 0x80000000u;
// Bucket values below this name a restart interval; blocks with more
// restarts get no index.
inline constexpr uint32_t kMaxIndexedRestarts = 253;
inline constexpr uint8_t kBucketCollision = 254;  // Keys of several intervals.
inline constexpr uint8_t kBucketEmpty = 255;      // No key hashes here.

// Two buckets per user key: an absent key finds its bucket empty about 60%
// of the time (e^-0.5), for 2 bytes a key.
inline size_t HashIndexBuckets(size_t user_keys) {
  return std::clamp<size_t>(2 * user_keys, 1, 65535);
}

// `hash` is KeyHash(user key) with the default HashSpec.
inline size_t BucketOf(uint64_t hash, size_t num_buckets) {
  return static_cast<size_t>((uint64_t{static_cast<uint32_t>(hash)} * num_buckets) >> 32);
}

// The buckets for (hash, restart interval) of each user key of a block.
inline std::string BuildHashIndex(const std::vector<std::pair<uint64_t, uint32_t>>& user_keys) {
  std::string buckets(HashIndexBuckets(user_keys.size()), static_cast<char>(kBucketEmpty));
  for (const auto& [hash, restart] : user_keys) {
    char& b = buckets[BucketOf(hash, buckets.size())];
    const uint8_t now = static_cast<uint8_t>(b);
    if (now == kBucketEmpty) {
      b = static_cast<char>(restart);
    } else if (now != restart) {
      b = static_cast<char>(kBucketCollision);
    }
  }
  return buckets;
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_DATA_BLOCK_HASH_INDEX_H_
