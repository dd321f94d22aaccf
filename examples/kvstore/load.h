// Loading a TSV file into the store: one key<TAB>value per line. The value
// is the rest of the line and may contain tabs; the key may not be empty.
// A trailing '\r' (a file written on Windows) is part of the value.

#ifndef KVSTORE_LOAD_H_
#define KVSTORE_LOAD_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "store.h"

namespace kvstore {

// Checks the whole file first, so that a bad line (InvalidArgument naming
// the file and line number) writes nothing; then writes it in atomic write
// batches of about 1 MiB. Reports progress to `progress` if not null.
// Returns the number of keys written.
absl::StatusOr<uint64_t> LoadTsv(Store& store, const std::string& path, std::FILE* progress);

}  // namespace kvstore

#endif  // KVSTORE_LOAD_H_
