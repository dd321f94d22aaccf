// The serialized Ribbon filter: golden bytes, and every way bytes can be
// untrustworthy (each refused with a Status saying why).

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_math.h"
#include "src/filter/ribbon/ribbon_layout.h"
#include "tests/test_keys.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace lsmbloom {
namespace {

std::string BuildFromHashes(const std::vector<uint64_t>& hashes, const RibbonOptions& options) {
  auto builder = RibbonBuilder::Create(options);
  for (uint64_t h : hashes) builder->AddHash(h);
  return *builder->Finish();
}

std::vector<uint64_t> SplitMixHashes(size_t n) {
  std::vector<uint64_t> hashes;
  for (uint64_t i = 0; i < n; ++i) hashes.push_back(testutil::SplitMix64(i));
  return hashes;
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

// 200 keys at 5.5 bits/key: 5 segments, r = 3, the last 2 segments with 4
// columns (17 words).
std::string SampleFilter() {
  RibbonOptions options;
  options.bits_per_key = 5.5;
  return BuildFromHashes(SplitMixHashes(200), options);
}

absl::Status OpenStatus(std::string_view bytes, bool verify = true) {
  return RibbonReader::Open(bytes, FilterReadOptions{verify}).status();
}

// ---- Golden vectors: a change of hash use, layout or header shows up here. ----

TEST(RibbonFormatTest, GoldenSolutionFromAnIndependentImplementation) {
  // Expected words computed outside this codebase (a plain Python
  // transcription of docs/FORMAT.md, "Ribbon filter": banding in hash order,
  // back-substitution slot by slot, free slots from Remix) for SplitMix64(0..199).
  const std::string filter = SampleFilter();
  ASSERT_EQ(filter.size(), 64u + 17 * 8);
  EXPECT_EQ(Hex(std::string_view(filter).substr(64)),
            "707141a32b3f4999ab2e4c3e3ead4ad99171515dd136da83a9d266d7d96ef938"
            "13ed2f28fe1dc3f4d2ec392eb35f319defdc2f615ba8f73931dd16c1e9c9120c"
            "06160bf649019f0e36a6e524e3801bf7bd1ac7dd395aaae86e72abd4117a78c4"
            "c8ba6d64feeb7f5e330e41d76dcafa1b9a7f0d0930c00961b3fc1a5456825123"
            "3f32325781fe20c6");
  // Header: magic, version 1, XXH3 = 1, 128-bit rows (2^7), r = 3, seed 0,
  // 5 segments, 200 keys, upper segments from 3; reserved zero.
  EXPECT_EQ(Hex(std::string_view(filter).substr(0, 40)),
            "4c524246010107030000000000000000"
            "0500000000000000c800000000000000"
            "0300000000000000");
}

TEST(RibbonFormatTest, GoldenChecksumsOfAThousandKeyFilter) {
  RibbonOptions options;
  options.target_fpr = 0.01;
  const std::string filter = BuildFromHashes(SplitMixHashes(1000), options);
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->geometry().num_segments, 18u);
  EXPECT_EQ(reader->geometry().num_columns, 6);
  EXPECT_EQ(XXH3_64bits(filter.data(), filter.size()), 0x57dbf314fd6f6352u);
}

TEST(RibbonFormatTest, EmptyFilterIsAHeaderAlone) {
  const std::string filter = BuildFromHashes({}, RibbonOptions());
  EXPECT_EQ(Hex(std::string_view(filter).substr(0, 48)),
            "4c524246010107010000000000000000"
            "00000000000000000000000000000000"
            "0000000000000000c294d3380580062d");  // XXH3-64 of no bytes.
}

// ---- Refusals. ----

TEST(RibbonFormatTest, EmptyInputIsTruncated) {
  const absl::Status s = OpenStatus("");
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s;
}

TEST(RibbonFormatTest, EveryTruncationIsRefused) {
  const std::string filter = SampleFilter();
  for (size_t len = 0; len < filter.size(); ++len) {
    const absl::Status s = OpenStatus(std::string_view(filter).substr(0, len));
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << len;
    EXPECT_NE(s.message().find(len < 64 ? "truncated" : "size mismatch"), std::string::npos)
        << len << ": " << s;
  }
}

TEST(RibbonFormatTest, TrailingBytesAreASizeMismatch) {
  const absl::Status s = OpenStatus(SampleFilter() + "x");
  EXPECT_NE(s.message().find("size mismatch"), std::string::npos) << s;
}

TEST(RibbonFormatTest, EveryHeaderBitFlipIsCaught) {
  const std::string filter = SampleFilter();
  for (size_t bit = 0; bit < 64 * 8; ++bit) {
    std::string bad = filter;
    bad[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    EXPECT_FALSE(OpenStatus(bad).ok()) << "bit " << bit;
  }
}

TEST(RibbonFormatTest, SolutionBitFlipFailsTheChecksumUnlessVerifiedElsewhere) {
  std::string bad = SampleFilter();
  bad[64 + 17] ^= 4;
  const absl::Status s = OpenStatus(bad);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("checksum mismatch in the solution"), std::string::npos) << s;
  EXPECT_TRUE(OpenStatus(bad, /*verify=*/false).ok());
}

TEST(RibbonFormatTest, BadMagicSaysNotARibbonFilter) {
  std::string bad = SampleFilter();
  bad[1] = 'B';  // "LBBF": a blocked Bloom filter is not a Ribbon filter.
  EXPECT_NE(OpenStatus(bad).message().find("not a Ribbon filter"), std::string::npos);
}

TEST(RibbonFormatTest, HeaderChecksumIsCheckedBeforeFields) {
  std::string bad = SampleFilter();
  bad[4] = 2;
  EXPECT_NE(OpenStatus(bad).message().find("header checksum"), std::string::npos);
}

TEST(RibbonFormatTest, UnknownVersionHashOrWidthIsInvalidArgument) {
  struct Case {
    size_t at;
    char value;
    const char* says;
  };
  for (const Case& c : {Case{4, 2, "version 2"}, Case{5, 7, "hash id 7"},
                        Case{6, 6, "coefficient width 2^6"}}) {
    std::string bad = SampleFilter();
    bad[c.at] = c.value;
    Reseal(bad);
    const absl::Status s = OpenStatus(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s;
  }
}

TEST(RibbonFormatTest, ReservedBytesMustBeZero) {
  for (size_t at = 53; at < 56; ++at) {
    std::string bad = SampleFilter();
    bad[at] = 1;
    Reseal(bad);
    const absl::Status s = OpenStatus(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(s.message().find("reserved byte"), std::string::npos) << s;
  }
}

TEST(RibbonFormatTest, MeasuredDependentFractionIsReadAndEntersTheModel) {
  std::string filter = SampleFilter();
  const RibbonGeometry plain = RibbonReader::Open(filter)->geometry();
  EXPECT_EQ(plain.measured_dependent, 0u);
  // d = 2^-10, little-endian at offset 48.
  filter[48] = 0;
  filter[49] = 0;
  filter[50] = 0x40;
  filter[51] = 0;
  Reseal(filter);
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const RibbonGeometry& g = reader->geometry();
  EXPECT_EQ(g.measured_dependent, uint32_t{1} << 22);
  EXPECT_DOUBLE_EQ(g.dependent_fraction(), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(g.predicted_fpr(),
                   RibbonFpr(g.num_columns, g.upper_fraction(), 1.0 / 1024));
  EXPECT_GT(g.predicted_fpr(), plain.predicted_fpr());
}

TEST(RibbonFormatTest, LayoutSeedIsReadAndMovesEveryStart) {
  std::string filter = SampleFilter();
  filter[52] = 3;
  Reseal(filter);
  auto reader = RibbonReader::Open(filter);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ(reader->geometry().layout_seed, 3);
  EXPECT_EQ(reader->view().start_multiplier, internal::RibbonStartMultiplier(3));
  EXPECT_EQ(internal::RibbonStartMultiplier(0), 1u);
  EXPECT_EQ(internal::RibbonStartMultiplier(3) % 2, 1u);
  // The same hash starts elsewhere under seed 3 (for all but a few).
  int moved = 0;
  for (uint64_t h : SplitMixHashes(100)) {
    const uint64_t n = reader->view().num_starts;
    moved += internal::RibbonStart(h, n) !=
             internal::RibbonStart(h * internal::RibbonStartMultiplier(3), n);
  }
  EXPECT_GT(moved, 50);
}

TEST(RibbonFormatTest, InconsistentGeometryIsRefused) {
  struct Case {
    size_t at;
    uint64_t value;  // 1 byte at offset 7, 8 bytes elsewhere.
    const char* says;
  };
  for (const Case& c : {
           Case{7, 0, "outside [1, 32]"},
           Case{7, 33, "outside [1, 32]"},
           Case{16, 0, "inconsistent"},                // Keys without segments.
           Case{16, 1, "1 segment"},
           Case{16, (uint64_t{1} << 26) + 1, "2^26"},
           Case{24, 0, "inconsistent"},                // Segments without keys.
           Case{24, 321, "exceed the 320 slots"},
           Case{32, 6, "upper segments start at 6"},
           Case{16, 3, "exceed the 192 slots"},
           Case{16, 6, "size mismatch"},               // More segments than the bytes hold.
           Case{7, 4, "size mismatch"},                // More columns than the bytes hold.
           Case{32, 0, "size mismatch"},               // More upper segments.
       }) {
    std::string bad = SampleFilter();
    if (c.at == 7) {
      bad[7] = static_cast<char>(c.value);
    } else {
      PutFixed64(bad, c.at, c.value);
    }
    Reseal(bad);
    const absl::Status s = OpenStatus(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.at << "=" << c.value << ": " << s;
  }
}

TEST(RibbonFormatTest, ThirtyTwoColumnsLeaveNoRoomForUpperSegments) {
  RibbonOptions options;
  options.bits_per_key = 33;
  std::string filter = BuildFromHashes(SplitMixHashes(100), options);
  ASSERT_TRUE(OpenStatus(filter).ok());
  filter[7] = 32;
  PutFixed64(filter, 32, 0);  // Every segment an upper one.
  Reseal(filter);
  EXPECT_NE(OpenStatus(filter).message().find("33 columns"), std::string::npos);
}

TEST(RibbonFormatTest, RandomGarbageIsNeverAccepted) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes(64 + rng() % 200, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (i % 2 == 0) std::memcpy(&bytes[0], "LRBF", 4);
    EXPECT_FALSE(OpenStatus(bytes).ok());
  }
}

}  // namespace
}  // namespace lsmbloom
