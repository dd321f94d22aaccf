#include "src/util/search.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {
namespace {

// Every size around the points where the search switches from halving to
// counting, with runs of equal values, against std::lower_bound for every
// value present, between and beyond.
TEST(SearchTest, BranchlessLowerBoundAgreesWithStdLowerBound) {
  std::mt19937_64 rng(5);
  for (size_t n = 0; n <= 200; ++n) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<uint64_t> values(n);
      for (uint64_t& v : values) v = 2 * (rng() % (n / 2 + 2));  // Even, with repeats.
      std::sort(values.begin(), values.end());
      for (uint64_t x = 0; x <= 2 * (n / 2 + 2) + 1; ++x) {
        const size_t want = std::lower_bound(values.begin(), values.end(), x) - values.begin();
        ASSERT_EQ(BranchlessLowerBound(values.data(), n, x), want) << "n " << n << " x " << x;
      }
      ASSERT_EQ(BranchlessLowerBound(values.data(), n, UINT64_MAX),
                std::lower_bound(values.begin(), values.end(), UINT64_MAX) - values.begin());
    }
  }
}

// The two-step search agrees with std::lower_bound for every size around
// whole and partial groups, values present, between, and beyond.
TEST(SearchTest, GroupedLowerBoundAgreesWithStdLowerBound) {
  std::mt19937_64 rng(23);
  for (size_t n = 0; n <= 200; ++n) {
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) v = 2 * (rng() % (n + 2));  // Even, with repeats.
    std::sort(values.begin(), values.end());
    const std::vector<uint64_t> group_last =
        GroupLastValues(n, [&](size_t i) { return values[i]; });
    for (uint64_t x = 0; x <= 2 * (n + 2) + 1; ++x) {
      const size_t want = std::lower_bound(values.begin(), values.end(), x) - values.begin();
      ASSERT_EQ(GroupedLowerBound(group_last.data(), n, x, [&](size_t i) { return values[i]; }),
                want)
          << "n " << n << " x " << x;
    }
  }
}

// The bucketed search agrees with std::lower_bound for every size, for
// values spread evenly, crowded into one bucket (a few far apart from a
// dense run), and spanning the whole 64-bit range, at values present,
// between, just outside and at the extremes.
TEST(SearchTest, BucketedLowerBoundAgreesWithStdLowerBound) {
  std::mt19937_64 rng(31);
  for (size_t n = 0; n <= 300; n += (n < 20 ? 1 : 7)) {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<uint64_t> values(n);
      for (size_t i = 0; i < n; ++i) {
        if (shape == 0) values[i] = 1000 + 2 * (rng() % (4 * n + 1));
        if (shape == 1) values[i] = i % 10 == 0 ? rng() : 5000 + rng() % 50;
        if (shape == 2) values[i] = rng();
      }
      std::sort(values.begin(), values.end());
      const BucketedLowerBound index(values);
      ASSERT_EQ(index.size(), n);
      std::vector<uint64_t> probes = {0, 1, UINT64_MAX, UINT64_MAX - 1};
      for (uint64_t v : values) {
        probes.push_back(v);
        probes.push_back(v - 1);
        probes.push_back(v + 1);
      }
      for (int i = 0; i < 200; ++i) probes.push_back(shape == 0 ? rng() % (10 * n + 2000) : rng());
      for (uint64_t x : probes) {
        const size_t want = std::lower_bound(values.begin(), values.end(), x) - values.begin();
        ASSERT_EQ(index.Find(x), want) << "n " << n << " shape " << shape << " x " << x;
      }
    }
  }
}

// The 8 bytes after a shared prefix, as numbers, order strings as their
// bytes do (ties left to a full compare), whether the string has all 8 bytes
// (one load) or fewer (zero-padded); each number is exactly those bytes.
TEST(SearchTest, OrderedPrefix8OrdersStringsAsTheirBytesDo) {
  std::mt19937_64 rng(11);
  const std::string alphabet = {'\x00', '\x01', '\x7f', '\x80', '\xfe', 'a', 'b'};
  for (size_t from : {0, 3, 8}) {
    std::vector<std::string> strings;
    for (int i = 0; i < 400; ++i) {
      std::string s(from, 'p');
      const size_t tail = rng() % 13;
      for (size_t j = 0; j < tail; ++j) s += alphabet[rng() % alphabet.size()];
      strings.push_back(s);
    }
    for (const std::string& a : strings) {
      uint64_t want = 0;
      for (size_t i = 0; i < 8; ++i) {
        want = (want << 8) | (from + i < a.size() ? static_cast<uint8_t>(a[from + i]) : 0);
      }
      ASSERT_EQ(OrderedPrefix8(a, from), want) << a.size();
      for (const std::string& b : strings) {
        const uint64_t pa = OrderedPrefix8(a, from), pb = OrderedPrefix8(b, from);
        if (pa < pb) {
          ASSERT_LT(a, b);
        } else if (pa > pb) {
          ASSERT_GT(a, b);
        }
      }
    }
  }
}

// The word-at-a-time prefix test answers as a byte compare, for prefixes
// shorter than, as long as and longer than a word, differing in any byte.
TEST(SearchTest, StartsWithAgreesWithAByteCompare) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string s, prefix;
    const size_t s_size = rng() % 21, prefix_size = rng() % 21;
    for (size_t i = 0; i < s_size; ++i) s += "ab"[rng() % 2];
    // Mostly a true prefix of s with at most one byte changed.
    prefix = s.substr(0, prefix_size);
    while (prefix.size() < prefix_size) prefix += 'a';
    if (!prefix.empty() && rng() % 2 == 0) prefix[rng() % prefix.size()] ^= 1;
    const bool want = s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
    ASSERT_EQ(StartsWith(s, prefix), want) << "s " << s << " prefix " << prefix;
  }
}

// The word-at-a-time compare orders strings as their bytes do (unsigned),
// with a shorter string first on a tie: two strings sharing a prefix of any
// length, then differing in random bytes (0x00, 0x80 and 0xff among them,
// where signed and unsigned orders part), or one cut short.
TEST(SearchTest, CompareBytesAgreesWithStringCompare) {
  std::mt19937_64 rng(23);
  const char kBytes[] = {'\x00', '\x01', 'a', 'b', '\x7f', '\x80', '\xff'};
  for (int trial = 0; trial < 50000; ++trial) {
    std::string a;
    const size_t size = rng() % 26;
    for (size_t i = 0; i < size; ++i) a += kBytes[rng() % sizeof(kBytes)];
    std::string b = a.substr(0, rng() % (a.size() + 1));
    if (rng() % 4 != 0) {
      const size_t tail = rng() % 12;
      for (size_t i = 0; i < tail; ++i) b += kBytes[rng() % sizeof(kBytes)];
    }
    if (rng() % 2 == 0) std::swap(a, b);
    const int want = a.compare(b);
    const int got = CompareBytes(a, b);
    ASSERT_EQ(got < 0, want < 0) << "sizes " << a.size() << " " << b.size();
    ASSERT_EQ(got > 0, want > 0) << "sizes " << a.size() << " " << b.size();
  }
}

TEST(SearchTest, CommonPrefixLengthAgreesWithAByteLoop) {
  std::mt19937_64 rng(29);
  const char kBytes[] = {'\x00', '\x01', 'a', '\x80', '\xff'};
  for (int trial = 0; trial < 50000; ++trial) {
    std::string a;
    const size_t size = rng() % 30;
    for (size_t i = 0; i < size; ++i) a += kBytes[rng() % sizeof(kBytes)];
    // b shares a random prefix of a, then goes its own way.
    std::string b = a.substr(0, rng() % (a.size() + 1));
    const size_t tail = rng() % 12;
    for (size_t i = 0; i < tail; ++i) b += kBytes[rng() % sizeof(kBytes)];
    size_t want = 0;
    while (want < a.size() && want < b.size() && a[want] == b[want]) ++want;
    ASSERT_EQ(CommonPrefixLength(a, b), want) << "sizes " << a.size() << " " << b.size();
    ASSERT_EQ(CommonPrefixLength(b, a), want) << "sizes " << a.size() << " " << b.size();
  }
}

}  // namespace
}  // namespace internal
}  // namespace lsmbloom
