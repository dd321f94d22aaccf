// KeyHash is XXH3-64 with the spec's seed, whichever path computes it: the
// inline one for keys of up to 16 bytes, libxxhash's for longer keys, and
// KeyHashBatch. The filter format depends on it (docs/FORMAT.md).

#include "lsmbloom/filter/key_hash.h"

#include <xxhash.h>

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_keys.h"

namespace lsmbloom {
namespace {

TEST(KeyHashTest, EveryLengthMatchesLibxxhashForManySeeds) {
  std::string bytes(300, '\0');
  size_t mismatches = 0, checked = 0;
  for (uint64_t trial = 0; trial < 2000; ++trial) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<char>(testutil::SplitMix64(trial * 1000 + i));
    }
    // Seed 0 (the default), small seeds, and seeds with high bits set, which
    // the 4-8 byte path folds into its upper half.
    const uint64_t seed = trial % 3 == 0 ? 0 : trial % 3 == 1 ? trial : testutil::SplitMix64(trial);
    const HashSpec spec{HashId::kXxh3_64, seed};
    for (size_t len = 0; len <= 40; ++len) {
      // The key at an odd offset too: the inline path reads unaligned.
      for (size_t offset : {size_t{0}, size_t{3}}) {
        const std::string_view key(bytes.data() + offset, len);
        ++checked;
        mismatches += KeyHash(key, spec) != XXH3_64bits_withSeed(key.data(), len, seed);
      }
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << checked;
}

TEST(KeyHashTest, ShortKeysOfEveryByteValueMatchLibxxhash) {
  // Lengths 1-3 mix individual bytes: every byte value in each position.
  for (size_t len = 1; len <= 3; ++len) {
    for (int value = 0; value < 256; ++value) {
      for (size_t pos = 0; pos < len; ++pos) {
        std::string key(len, 'a');
        key[pos] = static_cast<char>(value);
        EXPECT_EQ(KeyHash(key), XXH3_64bits(key.data(), len)) << len << " " << value;
      }
    }
  }
}

TEST(KeyHashTest, BatchMatchesOneByOne) {
  std::vector<std::string> keys;
  for (size_t len = 0; len <= 64; ++len) {
    std::string key(len, '\0');
    for (size_t i = 0; i < len; ++i) key[i] = static_cast<char>(testutil::SplitMix64(len * 64 + i));
    keys.push_back(key);
  }
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<uint64_t> hashes(keys.size());
  const HashSpec spec{HashId::kXxh3_64, 12345};
  KeyHashBatch(views, absl::MakeSpan(hashes), spec);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(hashes[i], KeyHash(keys[i], spec)) << i;
}

}  // namespace
}  // namespace lsmbloom
