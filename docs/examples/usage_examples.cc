// The code of docs/USAGE.md, compiled and run: each region between
// "[START name]" and "[END name]" is shown there, and
// //tests:doc_examples_test fails if the two part. The region
// "blocked_bloom_header" is the example in lsmbloom/filter/blocked_bloom.h's
// comment. Every answer is checked; a wrong one exits with status 1.
//
//   bazel test //docs/examples:usage_examples_test
//
// Table files go to a new directory under $TEST_TMPDIR (or /tmp), removed
// at the end.

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/inspect/inspect.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/lookup/filter_budget.h"
#include "lsmbloom/lookup/lookup.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"

namespace lsmbloom {
namespace usage {

int failures = 0;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "usage_examples: WRONG: " << what << "\n";
    ++failures;
  }
}

std::vector<std::string> MakeKeys(const std::string& prefix, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(prefix + std::to_string(100000 + i));
  return keys;
}

void BlockedBloomHeaderExample() {
  std::vector<std::string> keys = MakeKeys("user", 1000);
  // clang-format off
  // [START blocked_bloom_header]
  BlockedBloomOptions options;
  options.bits_per_key = 10;
  auto builder = BlockedBloomBuilder::Create(options);
  for (auto& key : keys) builder->AddKey(key);
  absl::StatusOr<std::string> filter = builder->Finish();
  auto reader = BlockedBloomReader::Open(*filter);
  if (reader.ok() && !reader->MayMatch("k")) { /* "k" is certainly absent */ }
  // [END blocked_bloom_header]
  // clang-format on
  Check(reader.ok(), "the header's example builds a filter");
  for (const std::string& key : keys) Check(reader->MayMatch(key), "no false negative");
}

void RibbonHeaderExample() {
  std::vector<std::string> keys = MakeKeys("user", 1000);
  // clang-format off
  // [START ribbon_header]
  RibbonOptions options;
  options.target_fpr = 0.01;
  auto builder = RibbonBuilder::Create(options);
  for (auto& key : keys) builder->AddKey(key);
  absl::StatusOr<std::string> filter = builder->Finish();
  auto reader = RibbonReader::Open(*filter);
  if (reader.ok() && !reader->MayMatch("k")) { /* "k" is certainly absent */ }
  // [END ribbon_header]
  // clang-format on
  Check(reader.ok(), "the Ribbon header's example builds a filter");
  for (const std::string& key : keys) Check(reader->MayMatch(key), "no false negative");
}

void ModularHeaderExample() {
  // clang-format off
  // [START modular_header]
  ModularBloomOptions options;
  options.module_bits_per_key = {2, 2, 2, 2};
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy =
      NewModularBloomPolicy(options);
  TableOptions table_options;
  table_options.filter_policy = *policy;
  // [END modular_header]
  // clang-format on
  Check(policy.ok(), "the modular header's example makes a policy");
  Check(table_options.filter_policy->Name() == kModularBloomPolicyName, "a modular policy");
}

// [START filter_alone]
// A filter for `keys` that errs on about 1% of absent keys.
absl::StatusOr<std::string> BuildFilter(const std::vector<std::string>& keys) {
  BlockedBloomOptions options;
  options.target_fpr = 0.01;  // Or bits_per_key; k then follows the blocked model.
  absl::StatusOr<BlockedBloomBuilder> builder = BlockedBloomBuilder::Create(options);
  if (!builder.ok()) return builder.status();  // InvalidArgument, naming the option.
  builder->AddKeys(keys);                      // Or AddKey(key) one at a time.
  return builder->Finish();                    // The builder is then empty again.
}
// [END filter_alone]

absl::Status FilterAlone() {
  const std::vector<std::string> keys = MakeKeys("user", 100000);
  // [START filter_query]
  absl::StatusOr<std::string> filter = BuildFilter(keys);
  if (!filter.ok()) return filter.status();
  // The reader works on the bytes in place: they must outlive it.
  absl::StatusOr<BlockedBloomReader> reader = BlockedBloomReader::Open(*filter);
  if (!reader.ok()) return reader.status();  // DataLoss or InvalidArgument: untrusted bytes.
  const BlockedBloomGeometry& shape = reader->geometry();
  std::cout << shape.num_keys << " keys, " << shape.bits_per_key()
            << " bits/key, k = " << shape.num_probes << ", predicted FPR " << shape.predicted_fpr()
            << "\n";

  bool maybe = reader->MayMatch("user100042");  // Added: always true.
  // Hash once, probe many filters that share the hash and seed:
  uint64_t hash = KeyHash("no such user", shape.hash);
  bool absent_maybe = reader->MayMatchHash(hash);  // False but for a false positive.
  // [END filter_query]
  Check(maybe, "an added key may match");
  (void)absent_maybe;

  int false_positives = 0;
  for (const std::string& key : MakeKeys("absent", 100000)) {
    false_positives += reader->MayMatch(key);
  }
  Check(false_positives > 500 && false_positives < 1500, "about 1% false positives");
  Check(shape.predicted_fpr() <= 0.01, "the target FPR is met by the model");
  return absl::OkStatus();
}

absl::Status WriteTable(const std::string& path, const std::vector<std::string>& keys,
                        uint64_t first_seq) {
  // [START table_options]
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy =
      NewBlockedBloomPolicy(BlockedBloomOptions{});  // 10 bits/key, k from the model.
  if (!policy.ok()) return policy.status();
  TableOptions options;
  options.filter_policy = *policy;       // Null: a table without a filter.
  options.block_size = 4096;             // Data block target, before compression.
  options.data_block_hash_index = true;  // Format 3: one interval read per lookup.
  options.compression = Compression::kNone;
  // [END table_options]
  // [START table_builder]
  absl::StatusOr<std::unique_ptr<WritableFile>> file = NewPosixWritableFile(path);
  if (!file.ok()) return file.status();
  TableBuilder builder(options, std::move(*file));
  uint64_t seq = first_seq;
  for (const std::string& key : keys) {  // Sorted, as a memtable or a merge yields them.
    builder.Add(key, seq++, EntryType::kValue, "value of " + key).IgnoreError();
  }
  // Add's errors are latched: Finish() returns the first one and publishes
  // nothing, so checking Finish() alone never loses an entry silently.
  return builder.Finish();
  // [END table_builder]
}

absl::StatusOr<std::shared_ptr<const Table>> OpenTable(const std::string& path) {
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenPosixFile(path, /*mmap=*/true);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file));
  if (!table.ok()) return table.status();
  return std::shared_ptr<const Table>(std::move(*table));
}

absl::Status OneTable(const std::string& dir) {
  const std::vector<std::string> keys = MakeKeys("user", 10000);
  const std::string path = dir + "/one.sst";
  absl::Status written = WriteTable(path, keys, 1);
  if (!written.ok()) return written;

  // [START table_read]
  // Mapped into memory on 64-bit systems, as LevelDB does.
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenPosixFile(path);
  if (!file.ok()) return file.status();
  TableReadOptions read_options;  // Default: the built-in filter policies.
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file), read_options);
  if (!table.ok()) return table.status();

  absl::StatusOr<LookupResult> got = (*table)->Get("user100007");
  if (!got.ok()) return got.status();
  bool ruled_out = !(*table)->KeyMayMatch("nobody");  // The filter alone, no data read.

  std::unique_ptr<TableIterator> it = (*table)->NewIterator();  // Must not outlive the table.
  uint64_t entries = 0;
  for (it->Seek("user105000"); it->Valid(); it->Next()) ++entries;
  if (!it->status().ok()) return it->status();  // DataLoss: a damaged block.

  const TableProperties& props = (*table)->properties();
  std::cout << props.num_entries << " entries, filter " << props.filter_policy << " ("
            << props.filter_params << "), " << (*table)->filter_memory() << " bytes\n";
  // [END table_read]
  Check(got->kind == LookupResult::Kind::kFound && got->value == "value of user100007",
        "Table::Get finds a key");
  (void)ruled_out;
  Check(entries == 5000, "the iterator yields the keys from user105000 on");
  Check(props.num_entries == 10000, "properties count the entries");
  Check((*table)->filter_status().ok(), "the filter is in use");
  return absl::OkStatus();
}

absl::Status Levels(const std::string& dir) {
  // Two level-0 files (flushes), then a compaction merging them into level 1.
  const std::vector<std::string> a = MakeKeys("user", 2000);
  const std::vector<std::string> b = MakeKeys("item", 2000);
  for (const auto& [name, keys, seq] : {std::tuple{"5.sst", &a, 1}, {"6.sst", &b, 3000}}) {
    absl::Status s = WriteTable(dir + "/" + name, *keys, seq);
    if (!s.ok()) return s;
  }
  std::vector<std::string> merged = b;
  merged.insert(merged.end(), a.begin(), a.end());  // "item..." sorts before "user...".
  absl::Status s = WriteTable(dir + "/7.sst", merged, 10000);
  if (!s.ok()) return s;

  absl::StatusOr<std::shared_ptr<const Table>> t5 = OpenTable(dir + "/5.sst");
  absl::StatusOr<std::shared_ptr<const Table>> t6 = OpenTable(dir + "/6.sst");
  absl::StatusOr<std::shared_ptr<const Table>> t7 = OpenTable(dir + "/7.sst");
  for (const auto* t : {&t5, &t6, &t7}) {
    if (!t->ok()) return t->status();
  }

  // [START lookup_options]
  LookupOptions lookup_options;
  lookup_options.count_stats = true;               // Per-level counters for stats().
  lookup_options.skip_last_level_filters = false;  // RocksDB's optimize_filters_for_hits.
  TableSet tables(lookup_options);
  // [END lookup_options]

  // [START flush_and_compaction]
  VersionEdit flush;  // Each flush adds one level-0 file; a higher number is newer.
  flush.added.push_back(TableFile{0, 5, *t5});
  flush.added.push_back(TableFile{0, 6, *t6});
  absl::Status applied = tables.Apply(flush);
  if (!applied.ok()) return applied;

  VersionEdit compaction;  // Replaces both level-0 files with one level-1 file, atomically.
  compaction.removed.push_back({0, 5});
  compaction.removed.push_back({0, 6});
  compaction.added.push_back(TableFile{1, 7, *t7});
  applied = tables.Apply(compaction);
  if (!applied.ok()) return applied;
  // The set now holds its own references: tables removed from it are
  // freed when the last lookup still using them ends.
  // [END flush_and_compaction]

  std::vector<std::vector<TableFile>> files = tables.files();
  Check(files[0].empty() && files[1].size() == 1 && files[1][0].file_number == 7,
        "the compaction left one level-1 file");

  VersionEdit overlapping;
  overlapping.added.push_back(TableFile{1, 8, *t7});
  Check(absl::IsInvalidArgument(tables.Apply(overlapping)),
        "overlapping level-1 files are refused");

  absl::StatusOr<LookupResult> r = tables.Get("item100001");
  Check(r.ok() && r->kind == LookupResult::Kind::kFound, "found after the compaction");

  // [START filter_budget]
  // Bits/key per level for the current files, at the memory of 10 bits/key
  // everywhere: more bits for the small levels, fewer for the last.
  LookupStats stats = tables.stats();
  std::vector<LevelFilterShape> shapes = FilterShapesOf(stats);
  absl::StatusOr<FilterAllocation> budget = AllocateFilterBitsPerKey(shapes, 10.0);
  if (!budget.ok()) return budget.status();
  for (size_t level = 0; level < budget->levels.size(); ++level) {
    if (shapes[level].num_keys == 0) continue;
    std::cout << "level " << level << ": write with " << budget->levels[level].bits_per_key
              << " bits/key\n";
  }
  std::cout << budget->expected_cost << " false-positive reads per absent lookup\n";
  // [END filter_budget]
  Check(budget->levels[1].bits_per_key > 9 && budget->levels[1].bits_per_key <= 30,
        "the one level keeps about 10 bits/key");

  // [START filter_kinds]
  // Bloom or Ribbon per level, for the least lookup time: a Ribbon filter
  // needs ~30% fewer bits for an FPR but probes slower, so it goes where the
  // reads it saves cost more than its probes (set the costs you measure).
  FilterBudgetOptions kinds;
  kinds.allow_ribbon = true;
  kinds.objective = FilterObjective::kLookupTime;
  kinds.false_positive_read_ns = 3000;  // Say, tables read through pread.
  absl::StatusOr<FilterAllocation> split = AllocateFilterBitsPerKey(shapes, 10.0, kinds);
  if (!split.ok()) return split.status();
  for (size_t level = 0; level < split->levels.size(); ++level) {
    if (shapes[level].num_keys == 0) continue;
    absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy =
        FilterPolicyFor(split->levels[level]);  // Null for a level without a filter.
    if (!policy.ok()) return policy.status();
    std::cout << "level " << level << ": "
              << (*policy == nullptr ? std::string("no filter") : (*policy)->Name()) << "\n";
  }
  // [END filter_kinds]

  // [START filter_memory_cap]
  // Tables written with modular filters: the set holds module 0 of each,
  // and within 1 MiB more modules of the files its lookups check most,
  // chosen again at every Apply and when asked.
  ModularBloomOptions modular;  // 8 modules of 2 bits/key.
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> modular_policy =
      NewModularBloomPolicy(modular);
  if (!modular_policy.ok()) return modular_policy.status();
  TableOptions modular_tables;
  modular_tables.filter_policy = *modular_policy;
  LookupOptions capped;
  capped.filter_memory_cap_bytes = 1 << 20;
  TableSet capped_set(capped);
  // Apply edits as above; after lookups have run, and whenever it suits:
  capped_set.RebalanceFilterMemory();
  // [END filter_memory_cap]
  Check(capped_set.stats().total_filter_bytes == 0, "an empty capped set holds no filter");
  for (size_t level = 0; level < split->levels.size(); ++level) {
    Check(shapes[level].num_keys == 0 || split->levels[level].kind != FilterKind::kNone,
          "with 3 us reads every level with keys keeps a filter");
  }
  return absl::OkStatus();
}

absl::Status Inspect(const std::string& dir) {
  const std::string path = dir + "/one.sst";
  // [START inspect]
  absl::StatusOr<InspectedTable> t = InspectedTable::Open(path);
  if (!t.ok()) return t.status();
  TableLayout layout = LayoutOf(t->table());
  std::cout << "filter block at " << layout.filter.offset << ", " << layout.filter.size
            << " bytes; policy " << t->filter().policy() << "\n";
  absl::StatusOr<std::vector<DataBlockInfo>> blocks = DescribeDataBlocks(*t);
  if (!blocks.ok()) return blocks.status();
  for (const DataBlockInfo& block : *blocks) {
    if (!block.status.ok()) std::cout << "block " << block.number << ": " << block.status << "\n";
  }
  // [END inspect]
  Check(blocks->size() > 1, "several data blocks");
  Check(t->filter().blocked() != nullptr, "a blocked Bloom filter");
  return absl::OkStatus();
}

absl::Status Errors(const std::string& dir) {
  // [START errors]
  BlockedBloomOptions bad;
  bad.bits_per_key = 0;  // Out of range.
  absl::StatusOr<std::shared_ptr<const FilterPolicy>> policy = NewBlockedBloomPolicy(bad);
  bool invalid = absl::IsInvalidArgument(policy.status());  // True.

  std::string junk(200, 'x');
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(NewMemRandomAccessFile(junk));
  bool damaged = absl::IsDataLoss(table.status());  // True: not a table.
  // [END errors]
  Check(invalid, "bits_per_key = 0 is InvalidArgument");
  Check(damaged, "junk is DataLoss");

  // Out-of-order entries: Add says so and Finish() repeats it.
  std::string contents;
  TableBuilder builder(TableOptions(), NewMemWritableFile(&contents));
  Check(builder.Add("b", 1, EntryType::kValue, "").ok(), "first entry accepted");
  Check(absl::IsInvalidArgument(builder.Add("a", 2, EntryType::kValue, "")),
        "an entry out of order is refused");
  Check(absl::IsInvalidArgument(builder.Finish()) && contents.empty(),
        "Finish() returns the latched error and publishes nothing");
  (void)dir;
  return absl::OkStatus();
}

absl::Status OnStorage(const std::string& dir) {
  absl::Status s = WriteTable(dir + "/8.sst", MakeKeys("user", 10000), 1);
  if (!s.ok()) return s;
  const std::string path = dir + "/8.sst";

  // One cache for every table of the store: 5% of its data, say.
  BlockCacheOptions cache_options;
  cache_options.capacity_bytes = 64 << 20;
  absl::StatusOr<std::shared_ptr<BlockCache>> cache = BlockCache::Create(cache_options);
  if (!cache.ok()) return cache.status();

  // O_DIRECT: reads bypass the page cache. InvalidArgument, naming the
  // path, where the file system refuses it: open with kPread there.
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenPosixFile(path, FileAccess::kDirect);
  if (absl::IsInvalidArgument(file.status())) file = OpenPosixFile(path, FileAccess::kPread);
  if (!file.ok()) return file.status();
  TableReadOptions read_options;
  read_options.block_cache = *cache;
  absl::StatusOr<std::unique_ptr<Table>> table = Table::Open(std::move(*file), read_options);
  if (!table.ok()) return table.status();

  // What a false-positive read costs on this device, for the budget.
  absl::StatusOr<double> read_ns = MeasureFalsePositiveReadNanos(**table);
  if (!read_ns.ok()) return read_ns.status();
  FilterBudgetOptions budget;
  budget.allow_ribbon = true;
  budget.objective = FilterObjective::kLookupTime;
  budget.false_positive_read_ns = *read_ns;

  VersionEdit edit;
  edit.added.push_back(TableFile{1, 8, std::move(*table)});
  TableSet tables;  // MultiGet's reads from storage go out together.
  s = tables.Apply(edit);
  if (!s.ok()) return s;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<LookupResult> got = tables.Get("user100007");
    if (!got.ok()) return got.status();  // An I/O error names file and offset.
  }
  const LookupStats stats = tables.stats();
  const LevelStats& level1 = stats.levels[1];
  std::cout << level1.file_reads << " read from the file, " << level1.block_cache_hits
            << " from the cache\n";
  Check(level1.file_reads == 1 && level1.block_cache_hits == 2,
        "a hot key is read from the device once, then from the cache");
  Check(*read_ns > 0 && budget.false_positive_read_ns == *read_ns, "a read cost was measured");
  return absl::OkStatus();
}

}  // namespace usage
}  // namespace lsmbloom

int main() {
  using namespace lsmbloom::usage;  // NOLINT: the program's own namespace.
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/usage-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) {
    std::perror("usage_examples: mkdtemp");
    return 1;
  }
  BlockedBloomHeaderExample();
  RibbonHeaderExample();
  ModularHeaderExample();
  absl::Status status = FilterAlone();
  if (status.ok()) status = OneTable(dir);
  if (status.ok()) status = Levels(dir);
  if (status.ok()) status = Inspect(dir);
  if (status.ok()) status = Errors(dir);
  if (status.ok()) status = OnStorage(dir);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (!status.ok()) {
    std::cerr << "usage_examples: " << status << "\n";
    return 1;
  }
  if (failures > 0) return 1;
  std::cout << "usage_examples: every answer as expected\n";
  return 0;
}
