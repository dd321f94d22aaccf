// The names of the files in a store directory:
//
//   NNNNNN.sst      a table
//   NNNNNN.log      a write-ahead log
//   MANIFEST        the live tables and counters (manifest.h)
//   *.tmp           a table or MANIFEST being written
//   LOCK            held while the store is open
//
// Tables and logs share one sequence of numbers.

#ifndef KVSTORE_FILENAMES_H_
#define KVSTORE_FILENAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace kvstore {

enum class FileKind { kTable, kLog, kTemp, kOther };

struct ParsedFileName {
  FileKind kind = FileKind::kOther;
  uint64_t number = 0;  // kTable and kLog only.
};

// What `name` (no directory) is; kOther for names the store does not write.
ParsedFileName ParseFileName(std::string_view name);

std::string TableFileName(const std::string& dir, uint64_t number);
std::string LogFileName(const std::string& dir, uint64_t number);

}  // namespace kvstore

#endif  // KVSTORE_FILENAMES_H_
