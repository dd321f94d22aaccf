// Writes the seed corpora under tests/fuzz/corpus/ (run once from the
// workspace root: bazel run //tests/fuzz:make_seeds -- $PWD/tests/fuzz/corpus).
// Tables get fixed unique ids and creation times, so every run writes the
// same bytes (//tests/fuzz:seed_corpus_test checks that the checked-in seeds
// are what this writes today). table/v1_small_table is not written here: it
// is a table of format version 1 (tests/testdata/small_table.v1), which this
// builder no longer writes, kept so the fuzzer explores the version 1 reader.

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/table/table_builder.h"
#include "tests/table_surgery.h"

namespace {

using lsmbloom::testutil::Region;

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Filter(int keys, double bits) {
  lsmbloom::BlockedBloomOptions o;
  o.bits_per_key = bits;
  auto b = lsmbloom::BlockedBloomBuilder::Create(o);
  for (int i = 0; i < keys; ++i) b->AddKey("key" + std::to_string(i));
  return *b->Finish();
}

std::string Table(int entries, uint64_t unique_id = 0x5eed5eed5eed5eedull,
                  lsmbloom::TableOptions options = lsmbloom::TableOptions()) {
  std::string bytes;
  options.block_size = 256;
  options.unique_id = unique_id;
  options.creation_time = 1796321039;
  lsmbloom::TableBuilder t(options, lsmbloom::NewMemWritableFile(&bytes));
  for (int i = 0; i < entries; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%05d", i);
    (void)t.Add(key, 10, i % 5 == 0 ? lsmbloom::EntryType::kDeletion : lsmbloom::EntryType::kValue,
                "value" + std::to_string(i));
  }
  (void)t.Finish();
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  Write(dir + "/filter_reader/empty_filter", Filter(0, 10));
  Write(dir + "/filter_reader/one_key", Filter(1, 10));
  Write(dir + "/filter_reader/hundred_keys", Filter(100, 10));
  Write(dir + "/filter_reader/truncated", Filter(100, 10).substr(0, 100));
  auto classic = (*lsmbloom::NewClassicBloomPolicy(10))->NewBuilder();
  classic->AddKey("a");
  classic->AddKey("b");
  Write(dir + "/filter_reader/classic", *classic->Finish());
  Write(dir + "/table/empty_table", Table(0, 0x5eed000000000005ull));  // Its own id too.
  Write(dir + "/table/small_table", Table(60));
  Write(dir + "/table/truncated_table", Table(60).substr(0, 700));
  // Blocks out of place, which only a v2 reader can tell: two same-size
  // blocks swapped, and blocks of a same-shape table with another id.
  const std::string table = Table(60);
  const std::string twin = Table(60, 0x7e1a7e1a7e1a7e1aull);
  std::vector<Region> regions;
  if (!lsmbloom::testutil::FindRegions(table, &regions)) return 1;
  const std::vector<Region> data = lsmbloom::testutil::RegionsNamed(regions, "data");
  const auto pairs = lsmbloom::testutil::SameSizePairs(data);
  if (pairs.empty() || data.size() < 2) return 1;
  std::string swapped = table;
  lsmbloom::testutil::SwapRegions(&swapped, data[pairs[0].first], data[pairs[0].second]);
  Write(dir + "/table/swapped_blocks", swapped);
  std::string foreign = table;
  lsmbloom::testutil::CopyRegion(&foreign, data[1], twin, data[1].begin);
  Write(dir + "/table/foreign_data_block", foreign);
  foreign = table;
  const Region filter = lsmbloom::testutil::RegionsNamed(regions, "filter").at(0);
  lsmbloom::testutil::CopyRegion(&foreign, filter, twin, filter.begin);
  Write(dir + "/table/foreign_filter", foreign);
  // What else the reader has code for: compressed blocks, hash indexes
  // (version 3), a modular filter (header, modules read on demand).
  // Each its own unique id, as every table has: a block of one would
  // otherwise pass its checksum in another (the fuzzer's oracle trusts a
  // table whose checksums hold).
  lsmbloom::TableOptions options;
  options.compression = lsmbloom::Compression::kSnappy;
  Write(dir + "/table/snappy_table", Table(60, 0x5eed000000000001ull, options));
  options.compression = lsmbloom::Compression::kZstd;
  Write(dir + "/table/zstd_table", Table(60, 0x5eed000000000002ull, options));
  options = lsmbloom::TableOptions();
  options.data_block_hash_index = true;
  Write(dir + "/table/hash_index_table", Table(60, 0x5eed000000000003ull, options));
  lsmbloom::ModularBloomOptions modular;
  modular.module_bits_per_key = {4, 2, 2};
  options = lsmbloom::TableOptions();
  options.filter_policy = *lsmbloom::NewModularBloomPolicy(modular);
  Write(dir + "/table/modular_table", Table(60, 0x5eed000000000004ull, options));
  Write(dir + "/roundtrip/few_keys", std::string("\x50\x00\x00,alpha,beta,gamma,delta", 26));
  Write(dir + "/roundtrip/many_probes", std::string("\xff\x10\x07\x00k1\x00k2\x00k3", 12));
  return 0;
}
