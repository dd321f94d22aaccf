// Writes the seed corpora under tests/fuzz/corpus/ (run once from the
// workspace root: bazel run //tests/fuzz:make_seeds -- $PWD/tests/fuzz/corpus).
// Tables get fixed unique ids and creation times, so every run writes the
// same bytes (//tests/fuzz:seed_corpus_test checks the checked-in seeds are
// what this writes today). table/v1_small_table is not written here: it is a table of format
// version 1 (tests/testdata/small_table.v1), which this builder no longer
// writes, kept so the fuzzer explores the version 1 reader too.

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
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

std::string Table(int entries, uint64_t unique_id = 0x5eed5eed5eed5eedull) {
  std::string bytes;
  lsmbloom::TableOptions options;
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
  Write(dir + "/table/empty_table", Table(0));
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
  Write(dir + "/roundtrip/few_keys", std::string("\x50\x00\x00,alpha,beta,gamma,delta", 26));
  Write(dir + "/roundtrip/many_probes", std::string("\xff\x10\x07\x00k1\x00k2\x00k3", 12));
  return 0;
}
