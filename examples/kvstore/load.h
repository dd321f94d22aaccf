// Loading a TSV file into the store: one KEY<TAB>VALUE per line, each
// escaped as escape.h says, which is what `scan` writes: loading a scan's
// output restores exactly those keys and values, whatever their bytes. The
// key may not be empty; the value may (KEY<TAB> and nothing more). The
// value is the rest of the line: a raw tab there is kept, as is a
// trailing '\r' (a file written on Windows), though scan writes neither.

#ifndef KVSTORE_LOAD_H_
#define KVSTORE_LOAD_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "store.h"

namespace kvstore {

// One line of a TSV file: Escape(key) TAB Escape(value) LF. What `scan`
// prints and LoadTsv reads back.
std::string TsvLine(std::string_view key, std::string_view value);

// Checks the whole file first, so that a bad line (InvalidArgument naming
// the file and line number) writes nothing; then writes it in atomic write
// batches of about 1 MiB. Reports progress to `progress` if not null.
// Returns the number of keys written.
absl::StatusOr<uint64_t> LoadTsv(Store& store, const std::string& path, std::FILE* progress);

}  // namespace kvstore

#endif  // KVSTORE_LOAD_H_
