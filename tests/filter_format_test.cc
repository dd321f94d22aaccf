// The serialized filter: golden bytes, and every way bytes can be untrustworthy.

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "tests/test_keys.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "src/util/checksum.h"

namespace lsmbloom {
namespace {

std::string BuildFromHashes(const std::vector<uint64_t>& hashes, double bits_per_key, int k) {
  BlockedBloomOptions options;
  options.bits_per_key = bits_per_key;
  options.num_probes = k;
  auto builder = BlockedBloomBuilder::Create(options);
  for (uint64_t h : hashes) builder->AddHash(h);
  return *builder->Finish();
}

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// Recomputes the header checksum after a test edits header fields, so the
// edit reaches the field checks instead of stopping at the checksum.
void Reseal(std::string& filter) {
  const uint64_t sum = XXH3_64bits(filter.data(), 56);
  for (int i = 0; i < 8; ++i) filter[56 + i] = static_cast<char>(sum >> (8 * i));
}

void PutFixed64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
}

std::string SampleFilter() {
  std::vector<uint64_t> hashes;
  for (uint64_t i = 0; i < 2000; ++i) hashes.push_back(testutil::SplitMix64(i));
  return BuildFromHashes(hashes, 10, 0);
}

absl::Status OpenStatus(std::string_view bytes, bool verify = true) {
  FilterReadOptions options;
  options.verify_checksum = verify;
  return BlockedBloomReader::Open(bytes, options).status();
}

// ---- Golden vectors: a change of hash, layout or header shows up here. ----

TEST(FilterFormatTest, KeyHashIsXxh3SixtyFour) {
  EXPECT_EQ(KeyHash(""), 0x2D06800538D394C2ull);  // XXH3-64 of no bytes.
  EXPECT_EQ(KeyHash("lsmbloom"), XXH3_64bits("lsmbloom", 8));
  HashSpec seeded;
  seeded.seed = 42;
  EXPECT_EQ(KeyHash("lsmbloom", seeded), XXH3_64bits_withSeed("lsmbloom", 8, 42));
}

TEST(FilterFormatTest, ChecksumsOnWideVectorsAreXxh3SixtyFour) {
  // Stored checksums use xxHash's dispatched code; every length and seed
  // must give what the portable code gives.
  std::string bytes(9000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(testutil::SplitMix64(i));
  }
  size_t mismatches = 0, checked = 0;
  for (size_t len = 0; len <= bytes.size(); len += len < 300 ? 1 : 97) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{0x9e3779b97f4a7c15}}) {
      mismatches += internal::Checksum64(bytes.data(), len, seed) !=
                    XXH3_64bits_withSeed(bytes.data(), len, seed);
      ++checked;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << checked;
}

TEST(FilterFormatTest, GoldenBitsFromHandComputedLayout) {
  // Expected bits computed outside this codebase from the layout rules in
  // docs/FORMAT.md: 3 hashes, k = 6, 300 bits/key -> 2 blocks.
  const std::string filter = BuildFromHashes(
      {0x0123456789abcdefull, 0xfedcba9876543210ull, 0xdeadbeefcafebabeull}, 300, 6);
  ASSERT_EQ(filter.size(), 64u + 128u);
  EXPECT_EQ(Hex(std::string_view(filter).substr(64)),
            "0008000100000000000000000000000000000000000000000010000000000000"
            "0000000000001000000000000000400000000000000000000004000000000000"
            "0000080000000000000000000000000000000040000000000001000000001010"
            "0080000030400000000000000080000000000100000000000000000000400000");
  // Header fields: magic, version 1, XXH3 = 1, 64-byte blocks, k = 6,
  // seed 0, 2 blocks, 3 keys.
  EXPECT_EQ(Hex(std::string_view(filter).substr(0, 32)),
            "4c424246010106060000000000000000"
            "02000000000000000300000000000000");
  EXPECT_EQ(Hex(std::string_view(filter).substr(40, 16)), std::string(32, '0'));
}

TEST(FilterFormatTest, GoldenChecksumOfAThousandKeyFilter) {
  auto builder = BlockedBloomBuilder::Create();
  for (int i = 0; i < 1000; ++i) builder->AddKey("key-" + std::to_string(i));
  const std::string filter = *builder->Finish();
  EXPECT_EQ(filter.size(), 64u + 20 * 64);
  EXPECT_EQ(XXH3_64bits(filter.data(), filter.size()), 0x22f0f964b837be26ull)
      << "filter bytes changed: if deliberate, bump the format version";
}

// ---- Untrustworthy bytes: each is refused with a reason, never a crash. ----

TEST(FilterFormatTest, EmptyInputIsTruncated) {
  const absl::Status s = OpenStatus("");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s;
}

TEST(FilterFormatTest, EveryTruncationIsRefused) {
  const std::string filter = SampleFilter();
  for (size_t len = 0; len < filter.size(); ++len) {
    // A fresh copy of exactly `len` bytes, so reading past it would be seen
    // by sanitizers.
    const std::string prefix = filter.substr(0, len);
    EXPECT_FALSE(OpenStatus(prefix).ok()) << len;
  }
  EXPECT_TRUE(OpenStatus(filter).ok());
}

TEST(FilterFormatTest, TrailingBytesAreASizeMismatch) {
  const absl::Status s = OpenStatus(SampleFilter() + '\0');
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("size mismatch"), std::string::npos) << s;
}

TEST(FilterFormatTest, EveryHeaderByteFlipIsCaught) {
  const std::string filter = SampleFilter();
  for (size_t i = 0; i < 64; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = filter;
      bad[i] ^= static_cast<char>(1 << bit);
      EXPECT_FALSE(OpenStatus(bad).ok()) << "byte " << i << " bit " << bit;
    }
  }
}

TEST(FilterFormatTest, BitFlipInTheBitsFailsTheChecksum) {
  const std::string filter = SampleFilter();
  for (size_t i = 64; i < filter.size(); i += 97) {
    std::string bad = filter;
    bad[i] ^= 0x10;
    const absl::Status s = OpenStatus(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(s.message().find("checksum mismatch in the filter bits"), std::string::npos) << s;
    // An outer layer that verified the bytes itself may skip the pass.
    EXPECT_TRUE(OpenStatus(bad, /*verify=*/false).ok());
  }
}

TEST(FilterFormatTest, BadMagicSaysNotAFilter) {
  std::string bad = SampleFilter();
  bad[0] = 'X';
  EXPECT_NE(OpenStatus(bad).message().find("bad magic"), std::string::npos);
}

TEST(FilterFormatTest, UnknownVersionIsInvalidArgument) {
  std::string bad = SampleFilter();
  bad[4] = 2;
  Reseal(bad);
  const absl::Status s = OpenStatus(bad);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unsupported format version 2"), std::string::npos) << s;
}

TEST(FilterFormatTest, UnknownHashIdIsInvalidArgument) {
  for (int id : {0, 2, 255}) {
    std::string bad = SampleFilter();
    bad[5] = static_cast<char>(id);
    Reseal(bad);
    const absl::Status s = OpenStatus(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("unknown hash id"), std::string::npos) << s;
  }
}

TEST(FilterFormatTest, OtherBlockSizesAreRefused) {
  for (int log2 : {0, 5, 7, 12}) {
    std::string bad = SampleFilter();
    bad[6] = static_cast<char>(log2);
    Reseal(bad);
    EXPECT_NE(OpenStatus(bad).message().find("block size"), std::string::npos);
  }
}

TEST(FilterFormatTest, ProbeCountOutsideOneToSixteenIsRefused) {
  for (int k : {0, 17, 255}) {
    std::string bad = SampleFilter();
    bad[7] = static_cast<char>(k);
    Reseal(bad);
    const absl::Status s = OpenStatus(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(s.message().find("outside [1, 16]"), std::string::npos) << s;
  }
}

TEST(FilterFormatTest, InconsistentGeometryIsRefused) {
  const std::string good = SampleFilter();
  std::string more_blocks = good;
  PutFixed64(more_blocks, 16, 1000);
  Reseal(more_blocks);
  EXPECT_NE(OpenStatus(more_blocks).message().find("size mismatch"), std::string::npos);

  std::string huge = good;
  PutFixed64(huge, 16, (uint64_t{1} << 32) + 1);
  Reseal(huge);
  EXPECT_NE(OpenStatus(huge).message().find("2^32"), std::string::npos);

  std::string overflow = good;  // blocks * 64 would wrap around 2^64.
  PutFixed64(overflow, 16, uint64_t{1} << 58);
  Reseal(overflow);
  EXPECT_FALSE(OpenStatus(overflow).ok());

  std::string no_keys = good;
  PutFixed64(no_keys, 24, 0);
  Reseal(no_keys);
  EXPECT_NE(OpenStatus(no_keys).message().find("inconsistent"), std::string::npos);
}

TEST(FilterFormatTest, ReservedBytesMustBeZero) {
  for (size_t i = 40; i < 56; ++i) {
    std::string bad = SampleFilter();
    bad[i] = 1;
    Reseal(bad);
    EXPECT_NE(OpenStatus(bad).message().find("reserved byte"), std::string::npos) << i;
  }
}

TEST(FilterFormatTest, RandomGarbageIsNeverAccepted) {
  std::mt19937_64 rng(20261202);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string garbage(rng() % 300, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    if (trial % 2 == 0 && garbage.size() >= 4) std::memcpy(&garbage[0], "LBBF", 4);
    EXPECT_FALSE(OpenStatus(garbage).ok());
  }
}

}  // namespace
}  // namespace lsmbloom
