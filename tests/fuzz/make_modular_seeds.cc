// Writes the seed corpus of the modular filter's fuzz target (run once from
// the workspace root:
//   bazel run //tests/fuzz:make_modular_seeds -- $PWD/tests/fuzz/corpus/modular_reader):
// real modular filters (whole, cut inside a module, one module damaged) for
// the read half, and key lists in the round-trip half's form (module count,
// bits/key of each module, separator, keys).

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "lsmbloom/filter/modular_bloom.h"

namespace {

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Filter(int keys, const std::vector<double>& bits) {
  lsmbloom::ModularBloomOptions o;
  o.module_bits_per_key = bits;
  auto b = (*lsmbloom::NewModularBloomPolicy(o))->NewBuilder();
  for (int i = 0; i < keys; ++i) b->AddKey("key" + std::to_string(i));
  return *b->Finish();
}

// A round-trip input (first byte's top bit set): modules of bits[m] / 2 +
// 0.5 bits/key (bits[m] < 60), keys "k0" .. "k<n-1>" separated by ','.
std::string KeyList(const std::vector<int>& bits, int keys) {
  std::string in(1, static_cast<char>(0x80 | (bits.size() - 1)));
  for (int b : bits) in.push_back(static_cast<char>(b));
  in.push_back(',');
  for (int i = 0; i < keys; ++i) {
    if (i > 0) in.push_back(',');
    in += "k" + std::to_string(i);
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_modular_seeds CORPUS_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<double> eight_of_two(8, 2.0);
  Write(dir + "/empty_filter", Filter(0, eight_of_two));
  Write(dir + "/one_key", Filter(1, eight_of_two));
  Write(dir + "/hundred_keys", Filter(100, eight_of_two));
  Write(dir + "/uneven_modules", Filter(300, {6, 3, 1.5, 0.5}));
  Write(dir + "/sixteen_modules", Filter(50, std::vector<double>(16, 1.0)));
  // Cut inside module 2, and module 2 damaged (one byte of its bits).
  const std::string filter = Filter(100, {4, 4, 4, 4});
  const auto header = lsmbloom::ParseModularBloomHeader(filter);
  if (!header.ok()) return 1;
  const lsmbloom::FilterModuleInfo& two = header->modules[2];
  Write(dir + "/cut_in_module_2", filter.substr(0, two.offset + two.size / 2));
  std::string damaged = filter;
  damaged[two.offset + 64 + 5] ^= 0x10;
  Write(dir + "/damaged_module_2", damaged);
  Write(dir + "/keys_3_modules", KeyList({15, 7, 3}, 200));
  Write(dir + "/keys_1_module", KeyList({19}, 40));
  Write(dir + "/keys_16_modules", KeyList(std::vector<int>(16, 0), 300));
  return 0;
}
