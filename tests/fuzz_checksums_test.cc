// The fuzz targets' checksum fixer (tests/fuzz/fix_checksums.h) recomputes
// exactly the checksums the writers compute, for every filter format: a
// built filter is left byte for byte as it is, and an edited one gets past
// its checksums to the checks behind them. Without this, a fixer with a
// wrong offset would leave the reader targets stopping at the checksums
// with nothing failing.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "tests/fuzz/fix_checksums.h"

namespace lsmbloom {
namespace {

using fuzz::FixFilterChecksums;

std::vector<std::string> Keys(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back("key" + std::to_string(i));
  return keys;
}

std::string Blocked(int n) {
  auto builder = BlockedBloomBuilder::Create(BlockedBloomOptions());
  for (const std::string& k : Keys(n)) builder->AddKey(k);
  return *builder->Finish();
}

std::string Ribbon(int n) {
  auto builder = RibbonBuilder::Create(RibbonOptions());
  for (const std::string& k : Keys(n)) builder->AddKey(k);
  return *builder->Finish();
}

std::string ByPolicy(const FilterPolicy& policy, int n) {
  std::unique_ptr<FilterBuilder> builder = policy.NewBuilder();
  for (const std::string& k : Keys(n)) builder->AddKey(k);
  return *builder->Finish();
}

std::string Classic(int n) { return ByPolicy(**NewClassicBloomPolicy(10), n); }

std::shared_ptr<const FilterPolicy> Modular() {
  ModularBloomOptions options;
  options.module_bits_per_key = {4, 2, 2};
  return *NewModularBloomPolicy(options);
}

// Contains `what`, and names no checksum: the reader got past them.
void ExpectPastChecksums(const absl::Status& status, const std::string& what) {
  EXPECT_NE(status.message().find(what), std::string_view::npos) << status;
  EXPECT_EQ(status.message().find("checksum"), std::string_view::npos) << status;
}

void ExpectChecksumError(const absl::Status& status) {
  EXPECT_NE(status.message().find("checksum mismatch"), std::string_view::npos) << status;
}

TEST(FuzzChecksumsTest, LeavesEveryBuiltFilterAsItIs) {
  const std::vector<std::string> filters = {
      Blocked(0), Blocked(300),  Ribbon(0),           Ribbon(300),
      Classic(0), Classic(300),  ByPolicy(*Modular(), 0), ByPolicy(*Modular(), 300)};
  for (size_t i = 0; i < filters.size(); ++i) {
    std::string fixed = filters[i];
    FixFilterChecksums(&fixed);
    EXPECT_EQ(fixed, filters[i]) << "filter " << i;
  }
}

TEST(FuzzChecksumsTest, BlockedBitsAndGeometryGetPastTheChecksums) {
  std::string filter = Blocked(300);
  filter[100] ^= 1;  // A filter bit.
  ExpectChecksumError(BlockedBloomReader::Open(filter).status());
  FixFilterChecksums(&filter);
  EXPECT_TRUE(BlockedBloomReader::Open(filter).ok());

  filter[7] = 17;  // k.
  ExpectChecksumError(BlockedBloomReader::Open(filter).status());
  FixFilterChecksums(&filter);
  ExpectPastChecksums(BlockedBloomReader::Open(filter).status(), "k = 17");
}

TEST(FuzzChecksumsTest, RibbonSolutionAndGeometryGetPastTheChecksums) {
  std::string filter = Ribbon(300);
  filter[100] ^= 1;  // A solution bit.
  ExpectChecksumError(RibbonReader::Open(filter).status());
  FixFilterChecksums(&filter);
  EXPECT_TRUE(RibbonReader::Open(filter).ok());

  filter[7] = 0;  // r.
  ExpectChecksumError(RibbonReader::Open(filter).status());
  FixFilterChecksums(&filter);
  ExpectPastChecksums(RibbonReader::Open(filter).status(), "r = 0");
}

TEST(FuzzChecksumsTest, ClassicBitsGetPastTheChecksum) {
  const auto policy = *NewClassicBloomPolicy(10);
  std::string filter = Classic(300);
  filter[100] ^= 1;
  ExpectChecksumError(policy->NewReader(filter).status());
  FixFilterChecksums(&filter);
  EXPECT_TRUE(policy->NewReader(filter).ok());
}

TEST(FuzzChecksumsTest, ModularEntriesAndModulesGetPastTheChecksums) {
  const std::string built = ByPolicy(*Modular(), 300);
  const ModularBloomHeader header = *ParseModularBloomHeader(built);
  ASSERT_EQ(header.modules.size(), 3u);
  const FilterModuleInfo& second = header.modules[1];
  auto open_second = [&](const std::string& filter) {
    const ModularBloomHeader h = *ParseModularBloomHeader(filter);
    return FilterModule::Open(std::string_view(filter).substr(second.offset, second.size),
                              h.modules[1], h.num_keys)
        .status();
  };

  // A bit of module 1: its entry's checksum, then nothing.
  std::string filter = built;
  filter[second.offset + 100] ^= 1;
  ExpectChecksumError(open_second(filter));
  FixFilterChecksums(&filter);
  EXPECT_TRUE(open_second(filter).ok());

  // Module 1's own k (byte 7 of its header): its header's checksum and its
  // entry's, then the module's geometry check.
  filter = built;
  filter[second.offset + 7] = 17;
  FixFilterChecksums(&filter);
  ExpectPastChecksums(open_second(filter), "k = 17");

  // Module 1's entry (k at byte 28 of the entry): the header's checksum,
  // then the entry check.
  filter = built;
  filter[16 + 32 + 28] = 17;
  ExpectChecksumError(ParseModularBloomHeader(filter).status());
  FixFilterChecksums(&filter);
  ExpectPastChecksums(ParseModularBloomHeader(filter).status(), "module 1: bad entry");
}

TEST(FuzzChecksumsTest, LeavesShortAndForeignBytesAsTheyAre) {
  for (std::string bytes : {std::string("LBBF"), std::string("LRBF\1\1"), std::string("LCBF"),
                            std::string("LSMM\1\1"), std::string("LSMM\1\20") + std::string(64, 0),
                            std::string(100, 'x')}) {
    const std::string before = bytes;
    FixFilterChecksums(&bytes);
    EXPECT_EQ(bytes, before);
  }
}

}  // namespace
}  // namespace lsmbloom
