// Replays a fuzz target's checked-in corpus as an ordinary test, so inputs
// that once crashed stay fixed in every build (no libFuzzer needed).
// Usage: <binary> DIR... ; runs every file in each DIR through the target.

#include <dirent.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  int files = 0;
  for (int a = 1; a < argc; ++a) {
    DIR* dir = opendir(argv[a]);
    if (dir == nullptr) {
      std::fprintf(stderr, "cannot open corpus %s\n", argv[a]);
      return 1;
    }
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream in(std::string(argv[a]) + "/" + e->d_name, std::ios::binary);
      std::stringstream buf;
      buf << in.rdbuf();
      const std::string bytes = buf.str();
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++files;
    }
    closedir(dir);
  }
  std::printf("replayed %d corpus files\n", files);
  return files > 0 ? 0 : 1;
}
