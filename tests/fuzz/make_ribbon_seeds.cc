// Writes the seed corpora of the two Ribbon fuzz targets (run once from the
// workspace root: bazel run //tests/fuzz:make_ribbon_seeds -- $PWD/tests/fuzz/corpus):
// serialized filters for ribbon_reader; the same bytes, read as hash lists,
// and one list of clustered hashes for ribbon_builder.

#include <cstdio>
#include <fstream>
#include <string>

#include "lsmbloom/filter/ribbon.h"

namespace {

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Filter(int keys, double bits) {
  lsmbloom::RibbonOptions o;
  o.bits_per_key = bits;
  auto b = lsmbloom::RibbonBuilder::Create(o);
  for (int i = 0; i < keys; ++i) b->AddKey("key" + std::to_string(i));
  return *b->Finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_ribbon_seeds CORPUS_ROOT\n");
    return 2;
  }
  const std::string root = argv[1];
  for (const std::string& dir : {root + "/ribbon_reader", root + "/ribbon_builder"}) {
    Write(dir + "/empty_filter", Filter(0, 7));
    Write(dir + "/one_key", Filter(1, 7));
    Write(dir + "/hundred_keys", Filter(100, 7));
    Write(dir + "/thousand_keys_fractional", Filter(1000, 7.05));
    Write(dir + "/fifty_keys_33_bits", Filter(50, 33));
    Write(dir + "/truncated", Filter(100, 7).substr(0, 100));
  }
  // Hash lists for the build half: repeats, zeros, one run of equal starts.
  std::string hashes(1, '\x0c');
  for (int i = 0; i < 300; ++i) {
    const uint64_t h = (i % 7 == 0) ? 0 : (uint64_t{0x1234} << 32) | static_cast<uint32_t>(i);
    hashes.append(reinterpret_cast<const char*>(&h), 8);
  }
  Write(root + "/ribbon_builder/hashes_clustered", hashes);
  return 0;
}
