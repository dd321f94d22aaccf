// Lookups across tables read from storage: direct reads and pread, with and
// without a block cache, through Get and both MultiGet read paths, answer
// as the model; MultiGet reads exactly the blocks the same Gets read; read
// errors end a lookup naming file and offset, never a wrong answer; and the
// cache stays correct and within capacity while edits remove tables.

#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/block_cache.h"
#include "src/util/random.h"
#include "tests/lsm_testutil.h"
#include "tests/storage_testutil.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;
using testutil::FaultyFile;

Entry Put(const std::string& k, uint64_t seq, const std::string& v) {
  return Entry{k, seq, EntryType::kValue, v};
}
Entry Del(const std::string& k, uint64_t seq) { return Entry{k, seq, EntryType::kDeletion, ""}; }

struct StorageSetup {
  FileAccess access = FileAccess::kPread;
  std::shared_ptr<BlockCache> cache;
  LookupOptions lookup;
};

// An LSM whose tables are files in the test directory, opened as `setup`
// says, beside the newest entry of each key.
class StorageLsm {
 public:
  explicit StorageLsm(StorageSetup setup) : setup_(std::move(setup)), set_(setup_.lookup) {}

  // Writes a table of `entries` (sorted here) and adds it at `level`;
  // returns its file if faults are wanted (null otherwise).
  FaultyFile* AddFile(int level, std::vector<Entry> entries, bool faulty = false) {
    for (const Entry& e : entries) {
      auto it = truth_.find(e.key);
      if (it == truth_.end() || it->second.seq < e.seq) truth_[e.key] = e;
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.key != b.key ? a.key < b.key : a.seq > b.seq;
    });
    TableOptions options;
    BlockedBloomOptions bloom;
    bloom.bits_per_key = 10;
    options.filter_policy = *NewBlockedBloomPolicy(bloom);
    options.data_block_hash_index = next_file_ % 2 == 0;
    const uint64_t number = next_file_++;
    const std::string path = testutil::WriteTestFile(
        "storage_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" +
            std::to_string(number) + ".sst",
        testutil::BuildTable(entries, options));
    auto file = OpenPosixFile(path, setup_.access);
    EXPECT_TRUE(file.ok()) << file.status();
    std::unique_ptr<RandomAccessFile> f = std::move(*file);
    FaultyFile* fault = nullptr;
    if (faulty) {
      auto wrapped = std::make_unique<FaultyFile>(std::move(f));
      fault = wrapped.get();
      f = std::move(wrapped);
    }
    TableReadOptions read;
    read.block_cache = setup_.cache;
    auto table = Table::Open(std::move(f), read);
    EXPECT_TRUE(table.ok()) << table.status();
    VersionEdit edit;
    edit.added.push_back({level, number, std::shared_ptr<const Table>(std::move(*table))});
    EXPECT_TRUE(set_.Apply(edit).ok());
    return fault;
  }

  LookupResult Expected(const std::string& key) const {
    return testutil::ExpectedAnswer(truth_, key);
  }

  TableSet& set() { return set_; }

 private:
  StorageSetup setup_;
  TableSet set_;
  std::map<std::string, Entry> truth_;
  uint64_t next_file_ = 1;
};

// Three levels of overlapping keys, some deleted: 2,000 keys in all.
void Fill(StorageLsm& lsm) {
  uint64_t seq = 1;
  std::vector<Entry> l2, l1a, l1b, l0;
  for (int i = 0; i < 2000; ++i) {
    l2.push_back(Put(testutil::TableKey(2 * i), seq++, "l2-" + std::string(40 + i % 90, 'v')));
  }
  for (int i = 0; i < 1000; i += 7) l1a.push_back(Put(testutil::TableKey(2 * i), seq++, "l1a"));
  for (int i = 1000; i < 2000; i += 9) l1b.push_back(Del(testutil::TableKey(2 * i), seq++));
  for (int i = 0; i < 2000; i += 31) l0.push_back(Put(testutil::TableKey(2 * i), seq++, "l0"));
  lsm.AddFile(2, l2);
  lsm.AddFile(1, l1a);
  lsm.AddFile(1, l1b);
  lsm.AddFile(0, l0);
}

std::vector<std::string> Probes() {
  std::vector<std::string> probes;
  for (int i = 0; i < 4010; ++i) probes.push_back(testutil::TableKey(i));  // Odd: absent.
  return probes;
}

void ExpectGetsMatchModel(StorageLsm& lsm, const std::vector<std::string>& probes) {
  size_t wrong = 0;
  for (const std::string& k : probes) {
    auto got = lsm.set().Get(k);
    ASSERT_TRUE(got.ok()) << got.status();
    wrong += !testutil::SameAsModel(*got, lsm.Expected(k));
  }
  EXPECT_EQ(wrong, 0u);
}

void ExpectMultiGetsMatchModel(StorageLsm& lsm, const std::vector<std::string>& probes) {
  size_t wrong = 0;
  for (size_t start = 0; start < probes.size(); start += 300) {
    std::vector<std::string_view> batch;
    for (size_t i = start; i < std::min(probes.size(), start + 300); ++i) batch.push_back(probes[i]);
    auto results = lsm.set().MultiGet(batch);
    for (size_t i = 0; i < batch.size(); ++i) {
      ASSERT_TRUE(results[i].ok()) << results[i].status();
      wrong += !testutil::SameAsModel(*results[i], lsm.Expected(std::string(batch[i])));
    }
  }
  EXPECT_EQ(wrong, 0u);
}

struct Mode {
  const char* name;
  bool direct;
  bool cache;
  LookupOptions::StorageReads reads;
};

class StorageLookupTest : public ::testing::TestWithParam<Mode> {
 protected:
  StorageSetup MakeSetup() {
    StorageSetup s;
    s.access = FileAccess::kPread;
    if (GetParam().direct) {
      const std::string why = testutil::DirectReadsUnavailable();
      if (!why.empty()) {
        std::printf("direct reads unavailable here (%s): testing pread instead\n", why.c_str());
      } else {
        s.access = FileAccess::kDirect;
      }
    }
    if (GetParam().cache) s.cache = *BlockCache::Create(BlockCacheOptions{64 << 10, 1});
    s.lookup.multiget_reads = GetParam().reads;
    return s;
  }
};

TEST_P(StorageLookupTest, GetAndMultiGetAnswerAsTheModel) {
  StorageLsm lsm(MakeSetup());
  Fill(lsm);
  const std::vector<std::string> probes = Probes();
  ExpectGetsMatchModel(lsm, probes);
  ExpectMultiGetsMatchModel(lsm, probes);
  ExpectGetsMatchModel(lsm, probes);  // Again, now that the cache holds blocks.
  const LookupStats s = lsm.set().stats();
  uint64_t searched = 0, had = 0;
  for (const LevelStats& l : s.levels) {
    searched += l.data_block_reads;
    had += l.file_reads + l.block_cache_hits + l.shared_reads;
  }
  EXPECT_GT(searched, 0u);
  EXPECT_EQ(had, searched) << "every block searched came from the file, the cache or a shared read";
}

INSTANTIATE_TEST_SUITE_P(
    Modes, StorageLookupTest,
    ::testing::Values(Mode{"DirectInFlight", true, false, LookupOptions::StorageReads::kInFlight},
                      Mode{"DirectCachedInFlight", true, true,
                           LookupOptions::StorageReads::kInFlight},
                      Mode{"DirectCachedOneAfterAnother", true, true,
                           LookupOptions::StorageReads::kOneAfterAnother},
                      Mode{"PreadOneAfterAnother", false, false,
                           LookupOptions::StorageReads::kOneAfterAnother},
                      Mode{"PreadCachedInFlight", false, true,
                           LookupOptions::StorageReads::kInFlight}),
    [](const auto& info) { return std::string(info.param.name); });

// Without a cache every block is read from the file, so the reads a
// MultiGet makes can be counted against the same Gets': the same blocks,
// each read once per round however many keys of the round need it.
TEST(StorageLookupReadsTest, MultiGetReadsExactlyTheBlocksTheSameGetsRead) {
  for (bool direct : {true, false}) {
    for (auto reads : {LookupOptions::StorageReads::kInFlight,
                       LookupOptions::StorageReads::kOneAfterAnother}) {
      StorageSetup setup;
      if (direct && testutil::DirectReadsUnavailable().empty()) setup.access = FileAccess::kDirect;
      setup.lookup.multiget_reads = reads;
      StorageLsm lsm(setup);
      Fill(lsm);
      const std::vector<std::string> probes = Probes();
      for (const std::string& k : probes) ASSERT_TRUE(lsm.set().Get(k).ok());
      const LookupStats by_get = lsm.set().stats();
      lsm.set().ResetStats();
      ExpectMultiGetsMatchModel(lsm, probes);
      const LookupStats by_multiget = lsm.set().stats();
      for (int l = 0; l < kNumLevels; ++l) {
        const LevelStats& a = by_get.levels[l];
        const LevelStats& b = by_multiget.levels[l];
        // A block two keys of one round need is read once for both.
        EXPECT_EQ(b.file_reads + b.shared_reads, a.file_reads) << "level " << l;
        EXPECT_LE(b.file_read_bytes, a.file_read_bytes) << "level " << l;
        EXPECT_EQ(a.shared_reads, 0u) << "Get never shares a read";
        EXPECT_EQ(b.data_block_reads, a.data_block_reads) << "level " << l;
        EXPECT_EQ(b.filters_true_positive, a.filters_true_positive) << "level " << l;
      }
      EXPECT_GT(by_get.file_reads_per_lookup(), 0.3);
      uint64_t shared = 0;
      for (const LevelStats& l : by_multiget.levels) shared += l.shared_reads;
      EXPECT_GT(shared, 0u) << "neighbouring keys of a batch share their blocks' reads";
    }
  }
}

TEST(StorageLookupHotKeyTest, AHotKeyIsReadFromTheFileOnceThenFromTheCache) {
  StorageSetup setup;
  if (testutil::DirectReadsUnavailable().empty()) setup.access = FileAccess::kDirect;
  setup.cache = *BlockCache::Create(BlockCacheOptions{1 << 20, 0});
  StorageLsm lsm(setup);
  Fill(lsm);
  const std::string key = testutil::TableKey(2 * 1500);
  for (int i = 0; i < 10; ++i) {
    auto got = lsm.set().Get(key);
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(testutil::SameAsModel(*got, lsm.Expected(key)));
  }
  const LookupStats s = lsm.set().stats();
  uint64_t reads = 0, hits = 0;
  for (const LevelStats& l : s.levels) {
    reads += l.file_reads;
    hits += l.block_cache_hits;
  }
  EXPECT_EQ(reads, 1u);
  EXPECT_EQ(hits, 9u);
  EXPECT_DOUBLE_EQ(s.block_cache_hit_rate(), 0.9);
}

// A read that fails (EIO) or comes back short ends the lookups that need
// it with an error naming the file and the offset, in Get and in both
// MultiGet paths; every other key of the batch still answers correctly.
TEST(StorageLookupFaultTest, ReadErrorsEndOnlyTheirLookupsNamingFileAndOffset) {
  for (bool short_read : {false, true}) {
    for (auto reads : {LookupOptions::StorageReads::kInFlight,
                       LookupOptions::StorageReads::kOneAfterAnother}) {
      StorageSetup setup;
      setup.lookup.multiget_reads = reads;
      StorageLsm lsm(setup);
      std::vector<Entry> entries;
      for (int i = 0; i < 3000; ++i) {
        entries.push_back(Put(testutil::TableKey(i), i + 1, std::string(50, 'a' + i % 26)));
      }
      FaultyFile* file = lsm.AddFile(1, entries, /*faulty=*/true);
      const std::string bad_key = testutil::TableKey(1234);
      // The offset of bad_key's block: the last read its Get makes.
      uint64_t offset = 0;
      {
        const int before = file->reads();
        ASSERT_TRUE(lsm.set().Get(bad_key).ok());
        ASSERT_EQ(file->reads(), before + 1);
        offset = file->last_offset();
      }
      if (short_read) {
        file->ShortenReadsAt(offset);
      } else {
        file->FailReadsAt(offset);
      }
      auto got = lsm.set().Get(bad_key);
      ASSERT_FALSE(got.ok()) << "a failed read must not answer";
      EXPECT_NE(got.status().message().find("level 1 file 1"), std::string_view::npos)
          << got.status();
      EXPECT_NE(got.status().message().find("offset " + std::to_string(offset)),
                std::string_view::npos)
          << got.status();
      std::vector<std::string> keys = {testutil::TableKey(10), bad_key, testutil::TableKey(2999),
                                       testutil::TableKey(1234) + "x"};
      std::vector<std::string_view> views(keys.begin(), keys.end());
      auto results = lsm.set().MultiGet(views);
      ASSERT_FALSE(results[1].ok());
      EXPECT_EQ(results[1].status(), got.status()) << "MultiGet fails as Get does";
      for (size_t i : {0, 2, 3}) {
        if (keys[i].size() > bad_key.size()) continue;  // Its block may be bad_key's.
        ASSERT_TRUE(results[i].ok()) << results[i].status();
        EXPECT_TRUE(testutil::SameAsModel(*results[i], lsm.Expected(keys[i])));
      }
    }
  }
}

// Readers look keys up while an editor replaces a file by a copy of itself
// over and over, so answers never change while tables come and go; the
// cache is small, so blocks are evicted all along. Run under TSan in CI.
TEST(StorageLookupConcurrencyTest, LookupsStayCorrectWhileEditsRemoveTables) {
  StorageSetup setup;
  setup.cache = *BlockCache::Create(BlockCacheOptions{96 << 10, 2});
  StorageLsm lsm(setup);
  Fill(lsm);
  std::vector<Entry> extra;
  // Keys among the probes' (so lookups search it) that no probe asks for.
  for (int i = 0; i < 1000; ++i) extra.push_back(Put(testutil::TableKey(4 * i) + "~", 5, "x"));
  const std::string path = testutil::WriteTestFile("storage_swapped.sst",
                                                   testutil::BuildTable(extra, TableOptions()));
  const std::vector<std::string> probes = Probes();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> wrong{0}, errors{0}, over_capacity{0}, lookups{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::vector<std::string_view> batch;
      for (uint64_t i = 0; !stop.load(); ++i) {
        const std::string& k = probes[internal::SplitMix64(i * 2 + t) % probes.size()];
        if (t == 0) {
          auto got = lsm.set().Get(k);
          if (!got.ok()) ++errors;
          else if (!testutil::SameAsModel(*got, lsm.Expected(k))) ++wrong;
        } else {
          batch.clear();
          for (int j = 0; j < 16; ++j) {
            batch.push_back(probes[internal::SplitMix64(i * 16 + j) % probes.size()]);
          }
          auto results = lsm.set().MultiGet(batch);
          for (size_t j = 0; j < batch.size(); ++j) {
            if (!results[j].ok()) ++errors;
            else if (!testutil::SameAsModel(*results[j], lsm.Expected(std::string(batch[j]))))
              ++wrong;
          }
        }
        const BlockCacheStats s = setup.cache->stats();
        if (s.usage_bytes > s.capacity_bytes) ++over_capacity;
        ++lookups;
      }
    });
  }
  uint64_t number = 1000;
  for (int round = 0; round < 60; ++round) {
    // Each version serves some lookups before the next replaces it.
    for (const uint64_t seen = lookups.load(); lookups.load() < seen + 20;) {
      std::this_thread::yield();
    }
    auto file = OpenPosixFile(path, FileAccess::kPread);
    ASSERT_TRUE(file.ok());
    TableReadOptions read;
    read.block_cache = setup.cache;
    auto table = Table::Open(std::move(*file), read);
    ASSERT_TRUE(table.ok());
    VersionEdit edit;
    if (round > 0) edit.removed.push_back({3, number - 1});
    edit.added.push_back({3, number++, std::shared_ptr<const Table>(std::move(*table))});
    ASSERT_TRUE(lsm.set().Apply(edit).ok());
  }
  stop = true;
  for (auto& r : readers) r.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(errors.load(), 0u);
  EXPECT_EQ(over_capacity.load(), 0u);
  EXPECT_GT(setup.cache->stats().evictions, 0u);
}

// The read cost measured on a table's own file feeds the time objective,
// and the split follows it: where reads are dear (a device), Ribbon's
// longer probe buys more than it costs in more levels than where a read is
// a memory access.
TEST(StorageBudgetTest, TheMeasuredReadCostFeedsTheTimeObjectiveAndTheSplitFollowsIt) {
  StorageSetup setup;
  if (testutil::DirectReadsUnavailable().empty()) setup.access = FileAccess::kDirect;
  StorageLsm lsm(setup);
  Fill(lsm);
  const std::shared_ptr<const Table> table = lsm.set().files()[2][0].table;
  absl::StatusOr<double> measured = MeasureFalsePositiveReadNanos(*table, 16);
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_GT(*measured, 0);
  EXPECT_TRUE(std::isfinite(*measured));
  EXPECT_EQ(MeasureFalsePositiveReadNanos(*table, 0).status().code(),
            absl::StatusCode::kInvalidArgument);

  // A tree of 4 levels, 10x apart, 10 bits/key on average.
  const std::vector<LevelFilterShape> levels = {
      LevelFilterShape(10000, 4), LevelFilterShape(100000, 1), LevelFilterShape(1000000, 1),
      LevelFilterShape(10000000, 1)};
  auto ribbon_levels = [&](double read_ns) {
    FilterBudgetOptions o;
    o.allow_ribbon = true;
    o.objective = FilterObjective::kLookupTime;
    o.false_positive_read_ns = read_ns;
    absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, 10, o);
    EXPECT_TRUE(a.ok()) << a.status();
    int n = 0;
    for (const LevelFilterAllocation& l : a->levels) n += l.kind == FilterKind::kRibbon;
    return n;
  };
  const int in_memory = ribbon_levels(225);
  const int on_a_device = ribbon_levels(std::max(*measured, 60000.0));
  EXPECT_GT(on_a_device, in_memory);
}

}  // namespace
}  // namespace lsmbloom
