// Writes the seed corpora under tests/fuzz/corpus/ (run once from the
// workspace root: bazel run //tests/fuzz:make_seeds -- $PWD/tests/fuzz/corpus).

#include <cstdio>
#include <fstream>
#include <string>

#include "lsmbloom/blocked_bloom.h"
#include "lsmbloom/filter_policy.h"
#include "lsmbloom/table_builder.h"

namespace {

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

std::string Table(int entries) {
  std::string bytes;
  lsmbloom::TableOptions options;
  options.block_size = 256;
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
  auto classic = lsmbloom::NewClassicBloomPolicy()->NewBuilder();
  classic->AddKey("a");
  classic->AddKey("b");
  Write(dir + "/filter_reader/classic", *classic->Finish());
  Write(dir + "/table/empty_table", Table(0));
  Write(dir + "/table/small_table", Table(60));
  Write(dir + "/table/truncated_table", Table(60).substr(0, 700));
  Write(dir + "/roundtrip/few_keys", std::string("\x50\x00\x00,alpha,beta,gamma,delta", 26));
  Write(dir + "/roundtrip/many_probes", std::string("\xff\x10\x07\x00k1\x00k2\x00k3", 12));
  return 0;
}
