// Crafted tables: handles and lengths rewritten, and every checksum over
// them recomputed (a crafted file's checksums hold; XXH3 is not a MAC).
// Read mapped, through pread, and through direct reads with a block cache,
// by Get, a scan, a TableSet's Get and both MultiGet read paths, the filter's
// modules and the read-cost measure, each is an error (or, for a filter,
// the filter dropped and every key still found): never a crash, a read out
// of bounds, or an allocation larger than the file.

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/block_cache.h"
#include "lsmbloom/table/table.h"
#include "tests/storage_testutil.h"
#include "tests/table_surgery.h"
#include "tests/table_testutil.h"

// The largest allocation asked of operator new since the last reset: a
// crafted length must never size one.
namespace {
std::atomic<size_t> largest_allocation{0};
}  // namespace

void* operator new(size_t n) {
  size_t seen = largest_allocation.load(std::memory_order_relaxed);
  while (n > seen && !largest_allocation.compare_exchange_weak(seen, n)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// Paired with the malloc above (AddressSanitizer checks the pair). GCC,
// seeing free() inlined where new's memory is released, warns wrongly.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace lsmbloom {
namespace {

using testutil::EncodeHandle;
using testutil::Entries;
using testutil::TableTail;

constexpr uint64_t kHuge = uint64_t{1} << 40;

// The crafted handles tried everywhere: a huge size, sizes whose sum with
// the trailer (or the offset) wraps past 2^64, an offset past the end, and
// an offset near 2^64.
std::vector<std::string> CraftedHandles(uint64_t offset, uint64_t file_size) {
  return {EncodeHandle(offset, kHuge),
          EncodeHandle(offset, ~uint64_t{0} - 4),  // size + trailer wraps to 4.
          EncodeHandle(offset, ~uint64_t{0} - 8),  // size + trailer wraps to 0.
          EncodeHandle(file_size + 4096, 100),     // Past the end.
          EncodeHandle(~uint64_t{0} - 100, 200)};  // offset + size wraps.
}

enum class Path { kMapped, kPread, kDirectCached };

struct Answers {
  absl::Status open;
  absl::Status filter;
  size_t lookups = 0;
  size_t found = 0;  // Lookups that found their key's newest entry.
  size_t errors = 0;
};

class CraftedTableTest : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (GetParam() == Path::kDirectCached) {
      const std::string why = testutil::DirectReadsUnavailable();
      if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
    }
    for (int i = 0; i < 3000; ++i) {
      entries_.push_back(
          {testutil::TableKey(i), 7, EntryType::kValue, "value" + std::to_string(i)});
    }
  }

  std::string Build(TableOptions options) const { return testutil::BuildTable(entries_, options); }

  // Opens `bytes` on the path under test and reads every key every way.
  // Every error must be DataLoss; no allocation may exceed the file.
  Answers ReadEverywhere(const std::string& bytes) {
    const std::string path = testutil::WriteTestFile("crafted.sst", bytes);
    const FileAccess access = GetParam() == Path::kMapped  ? FileAccess::kMmap
                              : GetParam() == Path::kPread ? FileAccess::kPread
                                                           : FileAccess::kDirect;
    largest_allocation = 0;
    Answers a;
    {
      auto file = OpenPosixFile(path, access);
      EXPECT_TRUE(file.ok()) << file.status();
      if (!file.ok()) return a;
      TableReadOptions options;
      if (GetParam() == Path::kDirectCached) {
        options.block_cache = *BlockCache::Create(BlockCacheOptions{1 << 20, 0});
      }
      auto table = Table::Open(std::move(*file), options);
      a.open = table.status();
      if (table.ok()) ReadTable(std::shared_ptr<const Table>(std::move(*table)), &a);
    }
    EXPECT_LE(largest_allocation.load(), bytes.size()) << "an allocation larger than the file";
    return a;
  }

  void ReadTable(std::shared_ptr<const Table> table, Answers* a) {
    a->filter = table->filter_status();
    std::vector<std::string> keys;
    for (size_t i = 0; i < entries_.size(); i += 97) keys.push_back(entries_[i].key);
    auto count = [&](const absl::StatusOr<LookupResult>& got, const std::string& key) {
      ++a->lookups;
      if (!got.ok()) {
        ++a->errors;
        EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << got.status();
      } else if (got->kind == LookupResult::Kind::kFound && got->value == Value(key)) {
        ++a->found;
      }
    };
    for (const std::string& k : keys) count(table->Get(k), k);
    auto it = table->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
    if (!it->status().ok()) {
      EXPECT_EQ(it->status().code(), absl::StatusCode::kDataLoss) << it->status();
    }
    for (auto reads :
         {LookupOptions::StorageReads::kInFlight, LookupOptions::StorageReads::kOneAfterAnother}) {
      LookupOptions lookup;
      lookup.multiget_reads = reads;
      TableSet set(lookup);
      VersionEdit edit;
      edit.added.push_back({1, 1, table});
      ASSERT_TRUE(set.Apply(edit).ok());
      std::vector<std::string_view> batch(keys.begin(), keys.end());
      const auto results = set.MultiGet(batch);
      for (size_t i = 0; i < keys.size(); ++i) count(results[i], keys[i]);
      for (size_t i = 0; i < keys.size(); i += 5) count(set.Get(keys[i]), keys[i]);
    }
    (void)MeasureFalsePositiveReadNanos(*table, 8);
    if (const ModularBloomHeader* modules = table->filter_modules()) {
      for (int m = 1; m < static_cast<int>(modules->modules.size()); ++m) {
        (void)table->ReadFilterModule(m);
      }
    }
  }

  std::string Value(const std::string& key) const {
    for (const testutil::Entry& e : entries_) {
      if (e.key == key) return e.value;
    }
    return "";
  }

  std::vector<testutil::Entry> entries_;
};

TableTail Split(const std::string& bytes) {
  TableTail tail;
  EXPECT_TRUE(testutil::SplitTable(bytes, &tail));
  return tail;
}

// The forging itself leaves a table that reads as written: the errors
// below come from the crafted values alone.
TEST_P(CraftedTableTest, AReassembledTableAnswersEveryKey) {
  const std::string bytes = testutil::AssembleTable(Split(Build(TableOptions())));
  const Answers a = ReadEverywhere(bytes);
  ASSERT_TRUE(a.open.ok()) << a.open;
  EXPECT_TRUE(a.filter.ok()) << a.filter;
  EXPECT_GT(a.lookups, 0u);
  EXPECT_EQ(a.found, a.lookups);
}

TEST_P(CraftedTableTest, CraftedIndexHandlesAreDataLossAtOpen) {
  const TableTail base = Split(Build(TableOptions()));
  ASSERT_GT(base.index.size(), 2u);
  std::string_view first = base.index[1].second;
  uint64_t offset = 0;
  ASSERT_TRUE(testutil::GetVarint(&first, &offset));
  for (const std::string& crafted : CraftedHandles(offset, base.head.size())) {
    for (size_t entry : {size_t{1}, base.index.size() - 1}) {
      TableTail tail = base;
      tail.index[entry].second = crafted;
      const Answers a = ReadEverywhere(testutil::AssembleTable(tail));
      EXPECT_EQ(a.open.code(), absl::StatusCode::kDataLoss) << a.open;
      EXPECT_NE(a.open.message().find("index block: entry for data block"), std::string::npos)
          << a.open;
    }
  }
}

TEST_P(CraftedTableTest, CraftedFooterAndPropertiesHandlesAreDataLossAtOpen) {
  const TableTail base = Split(Build(TableOptions()));
  for (const std::string& crafted : CraftedHandles(base.head.size(), base.head.size() + 4096)) {
    for (std::string TableTail::*handle :
         {&TableTail::index_handle, &TableTail::metaindex_handle, &TableTail::properties_handle}) {
      TableTail tail = base;
      tail.*handle = crafted;
      const Answers a = ReadEverywhere(testutil::AssembleTable(tail));
      EXPECT_EQ(a.open.code(), absl::StatusCode::kDataLoss) << a.open;
    }
  }
}

// A filter is advisory: one whose handle is crafted is dropped, and the
// table answers every key without it.
TEST_P(CraftedTableTest, CraftedFilterHandlesDropTheFilterAndKeepEveryKey) {
  const TableTail base = Split(Build(TableOptions()));
  size_t filter = base.metaindex.size();
  for (size_t i = 0; i < base.metaindex.size(); ++i) {
    if (base.metaindex[i].first.rfind("filter.", 0) == 0) filter = i;
  }
  ASSERT_LT(filter, base.metaindex.size());
  std::string_view handle = base.metaindex[filter].second;
  uint64_t offset = 0;
  ASSERT_TRUE(testutil::GetVarint(&handle, &offset));
  for (const std::string& crafted : CraftedHandles(offset, base.head.size())) {
    TableTail tail = base;
    tail.metaindex[filter].second = crafted;
    const Answers a = ReadEverywhere(testutil::AssembleTable(tail));
    ASSERT_TRUE(a.open.ok()) << a.open;
    EXPECT_EQ(a.filter.code(), absl::StatusCode::kDataLoss) << a.filter;
    EXPECT_EQ(a.found, a.lookups);
  }
}

// A modular filter's header gives each module's size (up to 2^40), bound
// to the table by the properties' checksum of it: crafted, with that
// checksum recomputed, a module past the filter block drops the filter.
TEST_P(CraftedTableTest, CraftedModuleSizesDropTheFilterAndKeepEveryKey) {
  ModularBloomOptions modular;
  modular.module_bits_per_key = {4, 2, 2};
  TableOptions options;
  options.filter_policy = *NewModularBloomPolicy(modular);
  const std::string base = Build(options);
  std::vector<testutil::Region> regions;
  ASSERT_TRUE(testutil::FindRegions(base, &regions));
  const testutil::Region filter = testutil::RegionsNamed(regions, "filter").at(0);
  const size_t num_modules = static_cast<uint8_t>(base[filter.begin + 5]);
  ASSERT_EQ(num_modules, 3u);
  const size_t last_size_at = filter.begin + 16 + 32 * (num_modules - 1) + 8;
  for (uint64_t size : {kHuge, uint64_t{filter.block_size()}}) {
    std::string bytes = base;
    testutil::PutFixed64At(&bytes, last_size_at, size);
    testutil::FixAllTrailers(&bytes);  // And the header's checksums.
    const Answers a = ReadEverywhere(bytes);
    ASSERT_TRUE(a.open.ok()) << a.open;
    EXPECT_EQ(a.filter.code(), absl::StatusCode::kDataLoss) << a.filter;
    EXPECT_NE(a.filter.message().find("past its block"), std::string::npos) << a.filter;
    EXPECT_EQ(a.found, a.lookups);
  }
}

// A compressed data block states its own decompressed size: one a block of
// that many compressed bytes cannot hold is refused before it is allocated.
TEST_P(CraftedTableTest, CraftedDecompressedSizesAreDataLossWithoutTheAllocation) {
  for (Compression compression : {Compression::kSnappy, Compression::kZstd}) {
    TableOptions options;
    options.compression = compression;
    std::string bytes = Build(options);
    std::vector<testutil::Region> regions;
    ASSERT_TRUE(testutil::FindRegions(bytes, &regions));
    const testutil::Region block = testutil::RegionsNamed(regions, "data").at(1);
    ASSERT_EQ(bytes[block.end - testutil::kTrailerSize], static_cast<char>(compression));
    std::string claim;  // 2^30 - 1 bytes, the most any block may decompress to.
    if (compression == Compression::kSnappy) {
      testutil::PutVarint(&claim, (uint64_t{1} << 30) - 1);
    } else {
      testutil::PutFixed(&claim, 0xFD2FB528, 4);  // Frame magic.
      claim.push_back(static_cast<char>(0xA0));   // Single segment, 4-byte content size.
      testutil::PutFixed(&claim, (uint64_t{1} << 30) - 1, 4);
    }
    bytes.replace(block.begin, claim.size(), claim);
    testutil::FixTrailer(&bytes, block, testutil::Kind::kData);
    const Answers a = ReadEverywhere(bytes);
    ASSERT_TRUE(a.open.ok()) << a.open;
    EXPECT_GT(a.errors, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, CraftedTableTest,
                         ::testing::Values(Path::kMapped, Path::kPread, Path::kDirectCached),
                         [](const ::testing::TestParamInfo<Path>& info) {
                           return info.param == Path::kMapped  ? "Mapped"
                                  : info.param == Path::kPread ? "Pread"
                                                               : "DirectCached";
                         });

}  // namespace
}  // namespace lsmbloom
