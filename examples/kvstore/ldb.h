// What RocksDB's ldb gives its users, for this store: the MANIFEST with
// each live table as it is on disk, the write-ahead logs record by record,
// and the files a lookup of a key consults. All of it only reads.
//
// Keys and values are printed escaped (escape.h) and, where they sit among
// other words, in double quotes, with a quote itself as \x22.

#ifndef KVSTORE_LDB_H_
#define KVSTORE_LDB_H_

#include <cstdio>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "store.h"

namespace kvstore {

// The MANIFEST of the store in `dir`, its counters, then each level's
// files: size and unique id as recorded (version 2) and as found, key
// range, entries and deletions, and the range of sequence numbers (which
// reads each table whole). Works when the store cannot open. DataLoss,
// after printing everything, if a table is missing, unreadable or not the
// one recorded; the MANIFEST's own errors as ReadManifest gives them.
absl::Status DumpManifest(const std::string& dir, std::FILE* out);

// Each record of the log at `path`: its offset, first sequence number and
// operations (put<TAB>KEY<TAB>VALUE, delete<TAB>KEY), then a summary
// line with any torn tail. DataLoss for damage in the middle of the log,
// after the records before it.
absl::Status DumpWal(const std::string& path, std::FILE* out);

// DumpWal for each log of the store in `dir` that the next open would
// replay (numbered at least the MANIFEST's log_number), oldest first.
absl::Status DumpWals(const std::string& dir, std::FILE* out);

// The search for `key` as Get does it: the memtable, then per level in
// search order each file with whether its key range rules the key out,
// whether its filter does, and what reading it found, until one answers;
// then the answer, checked against Get's. Errors as Get's.
absl::Status ExplainLookup(const Store& store, std::string_view key, std::FILE* out);

}  // namespace kvstore

#endif  // KVSTORE_LDB_H_
