// Fuzz target: table open, get and iterate on arbitrary file bytes. Any
// outcome but a crash or an out-of-bounds read is acceptable here; answer
// correctness under corruption is checked by table_corruption_test.

#include <cstddef>
#include <cstdint>
#include <string>

#include "lsmbloom/table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto table = lsmbloom::Table::Open(lsmbloom::NewMemRandomAccessFile(bytes));
  if (!table.ok()) return 0;
  (void)(*table)->Get("key");
  (void)(*table)->Get(std::string(bytes.data(), size % 17));
  auto it = (*table)->NewIterator();
  int steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < 10000; it->Next(), ++steps) {
    (void)(*table)->Get(it->entry().user_key);
  }
  it->Seek("m");
  return 0;
}
