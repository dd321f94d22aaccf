// Lookups across tables read from storage: direct reads and pread, with and
// without a block cache, through Get and both MultiGet read paths, answer
// as the model; MultiGet reads exactly the blocks the same Gets read; read
// errors (of a wrapped file, and a device's on real io_uring completions
// and preads) end a lookup naming file and offset, never a wrong answer;
// and the cache stays correct and within capacity while edits remove
// tables. Cases of direct reads or io_uring skip, saying why, where the
// machine refuses them.

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
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
#include "src/io/batch_read.h"
#include "src/io/read_faults.h"
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
    paths_[number] = path;
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
  const std::string& path(uint64_t number) { return paths_[number]; }

 private:
  StorageSetup setup_;
  TableSet set_;
  std::map<uint64_t, std::string> paths_;
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
  void SetUp() override {
    const std::string why = GetParam().direct ? testutil::DirectReadsUnavailable() : "";
    if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
  }
  StorageSetup MakeSetup() {
    StorageSetup s;
    s.access = GetParam().direct ? FileAccess::kDirect : FileAccess::kPread;
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
void ExpectMultiGetReadsTheBlocksTheSameGetsRead(FileAccess access) {
  for (auto reads : {LookupOptions::StorageReads::kInFlight,
                     LookupOptions::StorageReads::kOneAfterAnother}) {
    StorageSetup setup;
    setup.access = access;
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

TEST(StorageLookupReadsTest, MultiGetReadsExactlyTheBlocksTheSameGetsReadThroughPread) {
  ExpectMultiGetReadsTheBlocksTheSameGetsRead(FileAccess::kPread);
}

TEST(StorageLookupReadsTest, MultiGetReadsExactlyTheBlocksTheSameGetsReadThroughDirectReads) {
  const std::string why = testutil::DirectReadsUnavailable();
  if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
  ExpectMultiGetReadsTheBlocksTheSameGetsRead(FileAccess::kDirect);
}

TEST(StorageLookupHotKeyTest, AHotKeyIsReadFromTheFileOnceThenFromTheCache) {
  StorageSetup setup;  // pread: what the cache saves is the same for every access.
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

// A file without a descriptor (a wrapper, FaultyFile: both MultiGet
// settings read it through Read) whose read fails (EIO) or comes back
// short: the lookups that need it end with an error naming the file and
// the offset, in Get and MultiGet; every other key of the batch still
// answers correctly.
TEST(StorageLookupFaultTest, ReadErrorsOfAWrappedFileEndOnlyTheirLookupsNamingFileAndOffset) {
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

// What a failing device answers the kernel's reads reaching into one
// range: an error, a cancellation, or the bytes before it and then
// nothing.
enum class DeviceFault { kEio, kCancelled, kShort };

struct DeviceFaultMode {
  const char* name;
  bool direct;
  LookupOptions::StorageReads reads;
};

class StorageDeviceFaultTest : public ::testing::TestWithParam<DeviceFaultMode> {
 protected:
  void SetUp() override {
    std::string why;
    if (GetParam().direct) why = testutil::DirectReadsUnavailable();
    if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here: " << why;
    if (GetParam().reads == LookupOptions::StorageReads::kInFlight &&
        !internal::IoUringAvailable(&why)) {
      GTEST_SKIP() << "io_uring unavailable here (" << why << "): the fallback is tested";
    }
  }
};

// Files read through pread or direct reads, the kernel's answers rewritten
// where they reach into one data block: Get (pread) and MultiGet (io_uring
// completions in flight, or preads one after another) end that block's
// lookups with an error naming the file and offset, never an answer; the
// other keys of the same batch answer as the model. Then, the faults gone,
// every key answers again.
TEST_P(StorageDeviceFaultTest, DeviceFaultsEndOnlyTheirLookupsOnEveryReadPath) {
  const bool in_flight = GetParam().reads == LookupOptions::StorageReads::kInFlight;
  for (DeviceFault fault : {DeviceFault::kEio, DeviceFault::kCancelled, DeviceFault::kShort}) {
    SCOPED_TRACE(static_cast<int>(fault));
    StorageSetup setup;
    setup.access = GetParam().direct ? FileAccess::kDirect : FileAccess::kPread;
    setup.lookup.multiget_reads = GetParam().reads;
    StorageLsm lsm(setup);
    std::vector<Entry> entries;
    for (int i = 0; i < 3000; ++i) {
      entries.push_back(Put(testutil::TableKey(i), i + 1, std::string(50, 'a' + i % 26)));
    }
    lsm.AddFile(1, entries);
    const std::string bad_key = testutil::TableKey(1234);
    // The kernel read of bad_key's block: the one read its Get makes.
    std::vector<internal::KernelRead> seen;
    {
      internal::ReadFaults recording;
      recording.answer = [&](const internal::KernelRead& read, int64_t answer) {
        seen.push_back(read);
        return answer;
      };
      internal::ScopedReadFaults installed(recording);
      ASSERT_TRUE(lsm.set().Get(bad_key).ok());
    }
    ASSERT_EQ(seen.size(), 1u);
    const uint64_t from = seen[0].offset, to = seen[0].offset + seen[0].length;
    std::atomic<uint64_t> uring_answers{0}, faulted{0};
    internal::ReadFaults device;
    device.answer = [&](const internal::KernelRead& read, int64_t answer) -> int64_t {
      uring_answers += read.path == internal::KernelReadPath::kIoUring;
      if (answer < 0 || read.offset >= to || read.offset + read.length <= from) return answer;
      ++faulted;
      if (fault == DeviceFault::kEio) return -EIO;
      if (fault == DeviceFault::kCancelled) return -ECANCELED;
      return std::min<int64_t>(answer, std::max<int64_t>(0, int64_t(from) - int64_t(read.offset)));
    };
    absl::StatusOr<LookupResult> got;
    std::vector<absl::StatusOr<LookupResult>> results;
    const std::vector<std::string> keys = {testutil::TableKey(10), bad_key,
                                           testutil::TableKey(2999), testutil::TableKey(3500)};
    {
      internal::ScopedReadFaults installed(device);
      got = lsm.set().Get(bad_key);
      std::vector<std::string_view> views(keys.begin(), keys.end());
      uring_answers = 0;
      results = lsm.set().MultiGet(views);
    }
    EXPECT_GT(faulted.load(), 0u);
    ASSERT_FALSE(got.ok()) << "a failed read must not answer";
    EXPECT_NE(got.status().message().find("level 1 file 1"), std::string_view::npos)
        << got.status();
    // The block's offset (a direct read's kernel read starts at the aligned
    // offset below it).
    const std::string named = GetParam().direct ? "offset " : "offset " + std::to_string(from);
    EXPECT_NE(got.status().message().find(named), std::string_view::npos) << got.status();
    if (fault == DeviceFault::kShort) {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << got.status();
    } else {
      EXPECT_NE(got.status().message().find(std::strerror(fault == DeviceFault::kEio ? EIO
                                                                                      : ECANCELED)),
                std::string_view::npos)
          << got.status();
    }
    ASSERT_EQ(results.size(), keys.size());
    ASSERT_FALSE(results[1].ok()) << "a failed read must not answer";
    EXPECT_EQ(results[1].status(), got.status()) << "MultiGet fails as Get does";
    for (size_t i : {0, 2, 3}) {
      ASSERT_TRUE(results[i].ok()) << keys[i] << ": " << results[i].status();
      EXPECT_TRUE(testutil::SameAsModel(*results[i], lsm.Expected(keys[i]))) << keys[i];
    }
    // The batch went through io_uring completions, or through preads alone.
    EXPECT_EQ(uring_answers.load() > 0, in_flight) << uring_answers.load();
    // The device mended: nothing latched, every key answers.
    ExpectGetsMatchModel(lsm, keys);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    auto again = lsm.set().MultiGet(views);
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(again[i].ok()) << again[i].status();
      EXPECT_TRUE(testutil::SameAsModel(*again[i], lsm.Expected(keys[i])));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Paths, StorageDeviceFaultTest,
    ::testing::Values(
        DeviceFaultMode{"PreadInFlight", false, LookupOptions::StorageReads::kInFlight},
        DeviceFaultMode{"PreadOneAfterAnother", false,
                        LookupOptions::StorageReads::kOneAfterAnother},
        DeviceFaultMode{"DirectInFlight", true, LookupOptions::StorageReads::kInFlight},
        DeviceFaultMode{"DirectOneAfterAnother", true,
                        LookupOptions::StorageReads::kOneAfterAnother}),
    [](const auto& info) { return std::string(info.param.name); });

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
// and the split follows it: read through direct reads (the device) a block
// costs more than read from the same file mapped (memory), and the split
// chosen for each measured cost is the cheapest at that cost; where reads
// are dearer, Ribbon's longer probe buys its lower FPR in no fewer levels.
TEST(StorageBudgetTest, TheMeasuredReadCostFeedsTheTimeObjectiveAndTheSplitFollowsIt) {
  const std::string why = testutil::DirectReadsUnavailable();
  if (!why.empty()) GTEST_SKIP() << "direct reads unavailable here (the device's cost): " << why;
  StorageSetup setup;
  setup.access = FileAccess::kDirect;
  StorageLsm lsm(setup);
  Fill(lsm);
  const std::shared_ptr<const Table> table = lsm.set().files()[2][0].table;
  absl::StatusOr<double> device = MeasureFalsePositiveReadNanos(*table, 32);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_TRUE(std::isfinite(*device));
  EXPECT_EQ(MeasureFalsePositiveReadNanos(*table, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto mapped_file = OpenPosixFile(lsm.path(lsm.set().files()[2][0].file_number), FileAccess::kMmap);
  ASSERT_TRUE(mapped_file.ok()) << mapped_file.status();
  auto mapped = Table::Open(std::move(*mapped_file));
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  absl::StatusOr<double> memory = MeasureFalsePositiveReadNanos(**mapped, 32);
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_GT(*memory, 0);
  EXPECT_GT(*device, *memory) << "a block read from the device costs more than from memory";
  std::printf("false-positive read: %.0f ns direct, %.0f ns mapped\n", *device, *memory);

  // A tree of 4 levels, 10x apart, 10 bits/key on average.
  const std::vector<LevelFilterShape> levels = {
      LevelFilterShape(10000, 4), LevelFilterShape(100000, 1), LevelFilterShape(1000000, 1),
      LevelFilterShape(10000000, 1)};
  auto split_for = [&](double read_ns) {
    FilterBudgetOptions o;
    o.allow_ribbon = true;
    o.objective = FilterObjective::kLookupTime;
    o.false_positive_read_ns = read_ns;
    absl::StatusOr<FilterAllocation> a = AllocateFilterBitsPerKey(levels, 10, o);
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? *a : FilterAllocation();
  };
  // The objective of `a`'s split where a false-positive read costs read_ns.
  auto time_ns = [&](const FilterAllocation& a, double read_ns) {
    const FilterBudgetOptions defaults;
    double t = 0;
    for (size_t i = 0; i < levels.size(); ++i) {
      const LevelFilterAllocation& l = a.levels[i];
      const double probe = l.kind == FilterKind::kRibbon   ? defaults.ribbon_probe_ns
                           : l.kind == FilterKind::kNone ? 0
                                                         : defaults.bloom_probe_ns;
      t += levels[i].checks * (probe + l.fpr * read_ns);
    }
    return t;
  };
  auto ribbon_levels = [](const FilterAllocation& a) {
    int n = 0;
    for (const LevelFilterAllocation& l : a.levels) n += l.kind == FilterKind::kRibbon;
    return n;
  };
  const FilterAllocation on_device = split_for(*device);
  const FilterAllocation in_memory = split_for(*memory);
  ASSERT_EQ(on_device.levels.size(), levels.size());
  ASSERT_EQ(in_memory.levels.size(), levels.size());
  // Each split is costed at its own measured read, and is the cheaper
  // there of the two.
  EXPECT_NEAR(on_device.expected_time_ns, time_ns(on_device, *device), 1e-6 * *device);
  EXPECT_NEAR(in_memory.expected_time_ns, time_ns(in_memory, *memory), 1e-6 * *device);
  EXPECT_LE(time_ns(on_device, *device), time_ns(in_memory, *device) * (1 + 1e-9));
  EXPECT_LE(time_ns(in_memory, *memory), time_ns(on_device, *memory) * (1 + 1e-9));
  EXPECT_GE(ribbon_levels(on_device), ribbon_levels(in_memory));
}

}  // namespace
}  // namespace lsmbloom
