// Modular blocked Bloom filters: the filter and its format alone, in a
// table, and in a TableSet under a filter memory cap. What must hold in
// every case: no key added is ever rejected, whichever modules are held
// (on every SIMD target), and more modules held means fewer false
// positives, at the product of the modules' predicted FPRs.

#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/simd.h"
#include "lsmbloom/lookup/lookup.h"
#include "src/lookup/filter_residency.h"
#include "tests/lsm_testutil.h"
#include "tests/storage_testutil.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;

std::string Key(int i) { return "key" + std::to_string(i); }

// A modular filter of keys Key(0..n) with the given module bits/key.
std::string Build(int n, const std::vector<double>& bits) {
  ModularBloomOptions options;
  options.module_bits_per_key = bits;
  auto policy = NewModularBloomPolicy(options);
  EXPECT_TRUE(policy.ok()) << policy.status();
  auto builder = (*policy)->NewBuilder();
  for (int i = 0; i < n; ++i) builder->AddKey(Key(i));
  absl::StatusOr<std::string> filter = builder->Finish();
  EXPECT_TRUE(filter.ok()) << filter.status();
  return *filter;
}

std::unique_ptr<FilterReader> Open(std::string_view bytes) {
  auto policy = NewModularBloomPolicy(ModularBloomOptions());
  auto reader = (*policy)->NewReader(bytes);
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? std::move(*reader) : nullptr;
}

double MeasuredFpr(const FilterReader& reader, int n) {
  int positives = 0;
  constexpr int kAbsent = 200000;
  for (int i = 0; i < kAbsent; ++i) positives += reader.KeyMayMatch("absent" + std::to_string(i));
  (void)n;
  return static_cast<double>(positives) / kAbsent;
}

TEST(ModularFilterTest, EveryPrefixOfModulesFindsEveryKeyAtTheProductOfTheirFprs) {
  const int n = 20000;
  const std::string filter = Build(n, {2, 2, 3, 4});
  absl::StatusOr<ModularBloomHeader> header = ParseModularBloomHeader(filter);
  ASSERT_TRUE(header.ok()) << header.status();
  ASSERT_EQ(header->modules.size(), 4u);
  double product = 1;
  double last_fpr = 1;
  for (int m = 0; m < 4; ++m) {
    product *= header->modules[m].predicted_fpr;
    std::unique_ptr<FilterReader> reader =
        Open(std::string_view(filter).substr(0, header->PrefixSize(m)));
    ASSERT_NE(reader, nullptr);
    for (int i = 0; i < n; ++i) ASSERT_TRUE(reader->KeyMayMatch(Key(i))) << "module " << m;
    EXPECT_NEAR(reader->predicted_fpr(), product, product * 1e-9);
    const double measured = MeasuredFpr(*reader, n);
    // An observation of a rate near `product`: within 20% and 3 sigma.
    EXPECT_NEAR(measured, product, 0.2 * product + 3 * std::sqrt(product / 200000)) << m;
    EXPECT_LT(measured, last_fpr);
    last_fpr = measured;
  }
}

TEST(ModularFilterTest, ADamagedLaterModuleIsLeftOutNeverRejectingAKey) {
  const int n = 5000;
  std::string filter = Build(n, {2, 2, 2});
  const ModularBloomHeader header = *ParseModularBloomHeader(filter);
  filter[header.modules[1].offset + 100] ^= 0x10;
  std::unique_ptr<FilterReader> reader = Open(filter);
  ASSERT_NE(reader, nullptr);
  EXPECT_NE(reader->Describe().find("1 damaged"), std::string::npos) << reader->Describe();
  for (int i = 0; i < n; ++i) ASSERT_TRUE(reader->KeyMayMatch(Key(i)));
  EXPECT_NEAR(reader->predicted_fpr(),
              header.modules[0].predicted_fpr * header.modules[2].predicted_fpr, 1e-12);
}

TEST(ModularFilterTest, ADamagedHeaderOrModuleZeroIsRefused) {
  const std::string good = Build(1000, {2, 2});
  const ModularBloomHeader header = *ParseModularBloomHeader(good);
  auto policy = *NewModularBloomPolicy(ModularBloomOptions());
  std::string bad_header = good;
  bad_header[9] ^= 1;  // The key count, under the header's checksum.
  EXPECT_EQ(policy->NewReader(bad_header).status().code(), absl::StatusCode::kDataLoss);
  std::string bad_module0 = good;
  bad_module0[header.modules[0].offset + 80] ^= 1;
  EXPECT_EQ(policy->NewReader(bad_module0).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(policy->NewReader(std::string_view(good).substr(0, header.header_size)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(ParseModularBloomHeader("LSM").status().code(), absl::StatusCode::kDataLoss);
}

TEST(ModularFilterTest, BadOptionsAreRefusedNamingTheField) {
  ModularBloomOptions options;
  options.module_bits_per_key = {};
  EXPECT_EQ(NewModularBloomPolicy(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.module_bits_per_key = std::vector<double>(kMaxFilterModules + 1, 2);
  EXPECT_FALSE(ValidateModularBloomOptions(options).ok());
  options.module_bits_per_key = {2, 0.1};
  const absl::Status s = ValidateModularBloomOptions(options);
  EXPECT_NE(s.message().find("module_bits_per_key[1]"), std::string::npos) << s;
}

TEST(ModularFilterTest, ModuleHashIsTheKeyHashForModuleZeroAndDiffersForTheOthers) {
  EXPECT_EQ(ModuleHash(12345, 0), 12345u);
  EXPECT_NE(ModuleHash(12345, 1), ModuleHash(12345, 2));
  EXPECT_NE(ModuleHash(12345, 1), 12345u);
  // The high half, which picks a key's block, is the key hash's own.
  const uint64_t h = 0x0123456789abcdefull;
  for (int m = 1; m < kMaxFilterModules; ++m) EXPECT_EQ(ModuleHash(h, m) >> 32, h >> 32);
}

// Tables of modular filters, written and opened from memory.
TableOptions ModularTableOptions(const std::vector<double>& bits) {
  ModularBloomOptions options;
  options.module_bits_per_key = bits;
  TableOptions table;
  table.filter_policy = *NewModularBloomPolicy(options);
  return table;
}

TEST(ModularFilterTest, ATableHoldsModuleZeroAndReadsTheOthersVerified) {
  std::vector<Entry> entries;
  for (int i = 0; i < 3000; ++i) entries.push_back({testutil::TableKey(i), 1, EntryType::kValue, "v"});
  const std::string bytes = testutil::BuildTable(entries, ModularTableOptions({2, 3, 4}));
  auto table = Table::Open(NewMemRandomAccessFile(bytes));
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
  const ModularBloomHeader* header = (*table)->filter_modules();
  ASSERT_NE(header, nullptr);
  EXPECT_EQ((*table)->filter_memory(), header->PrefixSize(0));
  for (int m = 1; m < 3; ++m) {
    absl::StatusOr<std::shared_ptr<const FilterModule>> module = (*table)->ReadFilterModule(m);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_EQ((*module)->memory(), header->modules[m].size);
    for (int i = 0; i < 3000; ++i) {
      ASSERT_TRUE((*module)->reader().MayMatchHash(ModuleHash(KeyHash(testutil::TableKey(i)), m)));
    }
  }
  EXPECT_EQ((*table)->ReadFilterModule(3).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*table)->ReadFilterModule(0).status().code(), absl::StatusCode::kInvalidArgument);

  // Module 2 damaged on disk: its read fails, naming the offset.
  const uint64_t filter_start = bytes.find(std::string("LSMM", 4));
  ASSERT_NE(filter_start, std::string::npos);
  std::string damaged = bytes;
  damaged[filter_start + header->modules[2].offset + 70] ^= 4;
  auto reopened = Table::Open(NewMemRandomAccessFile(damaged));
  ASSERT_TRUE(reopened.ok());
  absl::StatusOr<std::shared_ptr<const FilterModule>> bad = (*reopened)->ReadFilterModule(2);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(bad.status().message().find("offset"), std::string::npos) << bad.status();
}

TEST(ModularFilterTest, AFilterBlockFromAnotherTableIsRefusedAndKeysStillFound) {
  // Two tables alike but for their keys (even ids, odd ids): same layout,
  // same filter size and offset, different filter bits.
  std::vector<Entry> even, odd;
  for (int i = 0; i < 3000; ++i) {
    even.push_back({testutil::TableKey(2 * i), 1, EntryType::kValue, "v"});
    odd.push_back({testutil::TableKey(2 * i + 1), 1, EntryType::kValue, "v"});
  }
  const TableOptions options = ModularTableOptions({2, 2, 2});
  std::string a = testutil::BuildTable(even, options);
  const std::string b = testutil::BuildTable(odd, options);
  ASSERT_EQ(a.size(), b.size());
  const size_t start = a.find(std::string("LSMM", 4));
  ASSERT_EQ(start, b.find(std::string("LSMM", 4)));
  const ModularBloomHeader header = *ParseModularBloomHeader(std::string_view(b).substr(start));
  const size_t size = header.modules.back().offset + header.modules.back().size;
  a.replace(start, size, b, start, size);  // B's filter in A's place.
  auto table = Table::Open(NewMemRandomAccessFile(a));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kDataLoss)
      << (*table)->filter_status();
  EXPECT_EQ((*table)->filter_modules(), nullptr);
  for (const Entry& e : even) {
    absl::StatusOr<LookupResult> r = (*table)->Get(e.key);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->kind, LookupResult::Kind::kFound) << e.key;
  }
}

// A TableSet over levels of modular files: the absent keys of a model LSM.
struct ModularLsm {
  testutil::ModelLsm lsm;
  std::vector<std::shared_ptr<const Table>> tables;
  // Modules 1.. of one size: held interleaved; else each apart.
  std::vector<double> bits = {2, 2, 2, 2, 2, 2};
  explicit ModularLsm(const LookupOptions& options) : lsm(options) {}

  // Level 1: 4 files of 1000 keys each; level 2: 4 files of 10000.
  void Build() {
    uint64_t seq = 1;
    for (int level : {2, 1}) {
      const int per_file = level == 2 ? 10000 : 1000;
      for (int f = 0; f < 4; ++f) {
        std::vector<Entry> entries;
        for (int i = 0; i < per_file; ++i) {
          // Keys of file f span [f * 100000, (f + 1) * 100000): even ones.
          const int id = f * 100000 + 2 * i * (level == 2 ? 1 : 10);
          entries.push_back({testutil::TableKey(id), seq++, EntryType::kValue, "v"});
        }
        tables.push_back(lsm.AddFile(level, std::move(entries), ModularTableOptions(bits)));
        ASSERT_NE(tables.back(), nullptr);
      }
    }
  }
  // Every key of the model found, every answer the model's.
  void CheckEveryKey() {
    for (const auto& [key, entry] : lsm.truth) {
      absl::StatusOr<LookupResult> r = lsm.set.Get(key);
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_EQ(r->kind, LookupResult::Kind::kFound) << key;
    }
    std::vector<std::string> keys;
    for (const auto& [key, entry] : lsm.truth) keys.push_back(key);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    auto results = lsm.set.MultiGet(views);
    for (size_t i = 0; i < results.size(); ++i) {
      ASSERT_TRUE(results[i].ok());
      ASSERT_EQ(results[i]->kind, LookupResult::Kind::kFound) << keys[i];
    }
  }
  // False positives per absent lookup over `n` odd keys of file `f`'s range.
  double FalsePositives(int file, int n) {
    lsm.set.ResetStats();
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<LookupResult> r = lsm.set.Get(testutil::TableKey(file * 100000 + 2 * i + 1));
      EXPECT_TRUE(r.ok());
      EXPECT_EQ(r->kind, LookupResult::Kind::kNotFound);
    }
    return lsm.set.stats().false_positives_per_lookup();
  }
};

// A cap of what ModularLsm's tables hold (headers and module 0s, ~16 KB)
// and `extra` bytes more (8 KB: room for the modules of about two files of
// each level).
LookupOptions CapAboveWhatTablesHold(uint64_t extra) {
  LookupOptions options;
  options.filter_memory_cap_bytes = 1;
  ModularLsm probe(options);
  probe.Build();
  options.filter_memory_cap_bytes = probe.lsm.set.stats().total_filter_bytes + extra;
  return options;
}

TEST(ModularFilterTest, WithoutACapEveryModuleIsHeldAndEveryKeyFoundOnEveryTarget) {
  // Modules held interleaved (one size), and apart (sizes that differ).
  for (const std::vector<double>& bits :
       {std::vector<double>{2, 2, 2, 2, 2, 2}, std::vector<double>{2, 1, 2, 3, 2, 2}}) {
    for (const std::string& target : AvailableSimdTargets()) {
      ASSERT_TRUE(PinSimdTarget(target).ok());
      ModularLsm m{LookupOptions()};
      m.bits = bits;
      m.Build();
      m.CheckEveryKey();
      const LookupStats s = m.lsm.set.stats();
      EXPECT_EQ(s.levels[1].filter_modules_held, 4u * 6) << target;
      EXPECT_EQ(s.levels[2].filter_module_loads, 4u * 5) << target;
      EXPECT_GT(s.levels[2].filter_module_bytes, 0u);
      // 12 bits/key held: about 0.4^6 = 0.4% per check, two checks a
      // lookup, as the model predicts.
      const double fp = m.FalsePositives(0, 4000);
      EXPECT_LT(fp, 0.03) << target;
      const double predicted = m.lsm.set.stats().expected_false_positives_per_lookup();
      EXPECT_NEAR(fp, predicted, 0.5 * predicted + 3 * std::sqrt(predicted / 4000)) << target;
    }
  }
  ASSERT_TRUE(PinSimdTarget("best").ok());
}

TEST(ModularFilterTest, UnderATinyCapOnlyModuleZeroIsHeldAndKeysAreStillFound) {
  LookupOptions options;
  options.filter_memory_cap_bytes = 1;
  ModularLsm m(options);
  m.Build();
  m.CheckEveryKey();
  const LookupStats s = m.lsm.set.stats();
  EXPECT_EQ(s.levels[2].filter_modules_held, 4u);
  EXPECT_EQ(s.levels[2].filter_module_bytes, 0u);
  EXPECT_EQ(s.levels[2].filter_module_loads, 0u);
  // Module 0 alone at 2 bits/key: about 0.4 per check.
  EXPECT_GT(m.FalsePositives(0, 2000), 0.3);
}

TEST(ModularFilterTest, TheFilesLookupsReachGetTheModulesAndTheOthersGiveThemUp) {
  const LookupOptions options = CapAboveWhatTablesHold(8000);
  ModularLsm m(options);
  m.Build();
  const double before = m.FalsePositives(3, 4000);
  // Lookups go to file 3's range only; then the choice follows them.
  m.lsm.set.RebalanceFilterMemory();
  const double after = m.FalsePositives(3, 4000);
  EXPECT_LT(after, before * 0.5) << before << " -> " << after;
  const LookupStats s = m.lsm.set.stats();
  uint64_t held = 0;
  for (const LevelStats& l : s.levels) held += l.filter_bytes;
  EXPECT_LE(held, options.filter_memory_cap_bytes);
  m.CheckEveryKey();
  // The other files' lookups now: modules move to them, some dropped here.
  const double file0_before = m.FalsePositives(0, 4000);
  uint64_t evictions = 0;
  for (int round = 0; round < 3; ++round) {
    m.lsm.set.RebalanceFilterMemory();
    for (const LevelStats& l : m.lsm.set.stats().levels) evictions += l.filter_module_evictions;
    m.FalsePositives(0, 4000);  // Resets the counters.
  }
  EXPECT_GT(evictions, 0u);
  EXPECT_LT(m.FalsePositives(0, 4000), file0_before * 0.5);
  m.CheckEveryKey();
}

// On every SIMD target (a reader binds its kernels when it opens, so each
// target's tree is built after pinning it). Run under TSan in CI.
TEST(ModularFilterTest, LookupsRunningWhileModulesMoveFindEveryKeyOnEveryTarget) {
  for (const std::string& target : AvailableSimdTargets()) {
    ASSERT_TRUE(PinSimdTarget(target).ok());
    ModularLsm m(CapAboveWhatTablesHold(8000));
    m.Build();
    std::vector<std::string> keys;
    for (const auto& [key, entry] : m.lsm.truth) keys.push_back(key);
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> wrong{0}, lookups{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 2; ++t) {
      readers.emplace_back([&, t] {
        LookupResult r;
        std::vector<std::string_view> batch;
        for (size_t i = t; !stop.load(); i = (i + 7) % keys.size()) {
          if (t == 0) {
            if (!m.lsm.set.Get(keys[i], &r).ok() || r.kind != LookupResult::Kind::kFound) ++wrong;
          } else {
            batch.assign({keys[i], keys[(i + 101) % keys.size()], keys[(i + 5003) % keys.size()]});
            for (const auto& got : m.lsm.set.MultiGet(batch)) {
              if (!got.ok() || got->kind != LookupResult::Kind::kFound) ++wrong;
            }
          }
          ++lookups;
        }
      });
    }
    // Lookups of one file's range, then another's, each followed by a
    // rebalance: modules are read and dropped under the readers. (Each
    // FalsePositives resets the counters: they are summed per round.)
    uint64_t moved = 0;
    for (int round = 0; round < 8; ++round) {
      m.FalsePositives(round % 4, 500);
      m.lsm.set.RebalanceFilterMemory();
      for (const LevelStats& l : m.lsm.set.stats().levels) {
        moved += l.filter_module_loads + l.filter_module_evictions;
      }
    }
    while (lookups.load() < 1000) std::this_thread::yield();
    stop = true;
    for (std::thread& t : readers) t.join();
    EXPECT_EQ(wrong.load(), 0u) << target;
    EXPECT_GT(moved, 0u) << target;
  }
  ASSERT_TRUE(PinSimdTarget("best").ok());
}

// A later module of a file damaged on disk (its checksum fails when the
// residency reads it) or unreadable (the file's read of it fails): the
// load is counted as an error, the file keeps the modules before it, and
// every key is still found.
TEST(ModularFilterTest, AModuleThatFailsToLoadIsCountedAndEveryKeyIsStillFound) {
  for (bool unreadable : {false, true}) {
    SCOPED_TRACE(unreadable ? "unreadable" : "damaged");
    ModularLsm m{LookupOptions()};  // No cap: every module is wanted.
    m.Build();
    const LookupStats before = m.lsm.set.stats();
    ASSERT_EQ(before.levels[1].filter_module_load_errors, 0u);
    // A fifth file of level 1, past the others' keys, module 3 of 6 bad.
    std::vector<Entry> entries;
    for (int i = 0; i < 1000; ++i) {
      entries.push_back(
          {testutil::TableKey(500000 + 20 * i), uint64_t{900000} + i, EntryType::kValue, "v"});
    }
    std::string bytes = testutil::BuildTable(entries, ModularTableOptions(m.bits));
    const size_t filter_start = bytes.find(std::string("LSMM", 4));
    ASSERT_NE(filter_start, std::string::npos);
    const ModularBloomHeader header =
        *ParseModularBloomHeader(std::string_view(bytes).substr(filter_start));
    const uint64_t module3 = filter_start + header.modules[3].offset;
    if (!unreadable) bytes[module3 + 70] ^= 4;
    auto wrapped = std::make_unique<testutil::FaultyFile>(NewMemRandomAccessFile(bytes));
    if (unreadable) wrapped->FailReadsAt(module3);
    auto table = Table::Open(std::move(wrapped));
    ASSERT_TRUE(table.ok()) << table.status();
    ASSERT_TRUE((*table)->filter_status().ok()) << (*table)->filter_status();
    VersionEdit edit;
    edit.added.push_back({1, 100, std::shared_ptr<const Table>(std::move(*table))});
    ASSERT_TRUE(m.lsm.set.Apply(edit).ok());
    for (const Entry& e : entries) m.lsm.truth[e.key] = e;

    const LookupStats s = m.lsm.set.stats();
    EXPECT_EQ(s.levels[1].filter_module_load_errors, 1u);
    // Modules 1 and 2 of the new file held, beside every module of the others.
    EXPECT_EQ(s.levels[1].filter_modules_held, before.levels[1].filter_modules_held + 3);
    m.CheckEveryKey();
  }
}

TEST(ModularFilterTest, AFileNumberGivenToAnotherTableNeverUsesTheOldTablesModules) {
  ModularLsm m{LookupOptions()};  // No cap: every module held.
  m.Build();
  // Level 2's first file (number 1) replaced, in one edit, by a table of
  // other keys under the same number.
  std::vector<Entry> entries;
  for (int i = 0; i < 10000; ++i) {
    entries.push_back({testutil::TableKey(700000 + 2 * i), 1000000, EntryType::kValue, "new"});
  }
  std::shared_ptr<const Table> table =
      testutil::OpenTable(entries, ModularTableOptions(m.bits));
  ASSERT_NE(table, nullptr);
  VersionEdit edit;
  edit.removed.push_back({2, 1});
  edit.added.push_back({2, 1, table});
  ASSERT_TRUE(m.lsm.set.Apply(edit).ok());
  for (const Entry& e : entries) {
    absl::StatusOr<LookupResult> r = m.lsm.set.Get(e.key);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->kind, LookupResult::Kind::kFound) << e.key;
  }
}

TEST(ModularFilterTest, UniformWorthsGiveTheSmallerLevelMoreBitsPerKeyAsMonkeyDoes) {
  // Two levels of one file each: 1,000 and 100,000 keys, 8 modules of 2
  // bits/key; the cap is 4 bits/key on average.
  std::vector<internal::ModularFile> files(2);
  const uint64_t keys[2] = {1000, 100000};
  uint64_t fixed = 0;
  for (int f = 0; f < 2; ++f) {
    files[f].worth = 1;  // One check of each per lookup.
    fixed += keys[f] * 2 / 8;  // Module 0, held always.
    for (int m = 0; m < 8; ++m) {
      files[f].module_fpr.push_back(0.4);
      if (m > 0) files[f].module_bytes.push_back(keys[f] * 2 / 8);
    }
  }
  const std::vector<int> held = internal::ChooseModules(files, fixed, 101000 * 4 / 8);
  EXPECT_EQ(held[0], 8);  // The small level: everything (it costs little).
  EXPECT_GE(held[1], 1);
  EXPECT_LE(held[1], 2);
  // Nothing fits: module 0 alone everywhere.
  EXPECT_EQ(internal::ChooseModules(files, fixed, fixed), std::vector<int>({1, 1}));
}

}  // namespace
}  // namespace lsmbloom
