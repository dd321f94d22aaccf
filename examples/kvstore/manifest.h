// The MANIFEST: which table files make up the store, at which level, and
// the counters a reopened store continues from.
//
// A small text file in the store directory:
//
//   kvstore-manifest v1
//   next_file_number 12
//   last_sequence 3456
//   log_number 13
//   file 0 11
//   file 1 7
//   end
//
// It is rewritten whole after every flush and compaction, through a
// temporary file that is synced and renamed over the old one, then the
// directory is synced: a crash leaves the old or the new list, never a mix.
// Table files the MANIFEST does not list are leftovers of an interrupted
// flush or compaction.

#ifndef KVSTORE_MANIFEST_H_
#define KVSTORE_MANIFEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kvstore {

struct ManifestFile {
  int level = 0;
  uint64_t number = 0;
};

struct Manifest {
  // Numbers below this may have been used; new files take it and up.
  uint64_t next_file_number = 1;
  // The highest sequence number handed out.
  uint64_t last_sequence = 0;
  // Write-ahead logs numbered below this are in tables already; the others
  // hold writes to replay. Absent from manifests written before the store
  // had a log: 0, every log is replayed.
  uint64_t log_number = 0;
  std::vector<ManifestFile> files;
};

std::string EncodeManifest(const Manifest& manifest);

// DataLoss, naming the line, unless `text` is a complete, well-formed
// manifest: levels in range, file numbers distinct and below
// next_file_number.
absl::StatusOr<Manifest> DecodeManifest(std::string_view text);

// Reads dir/MANIFEST; NotFound if there is none.
absl::StatusOr<Manifest> ReadManifest(const std::string& dir);

// Replaces dir/MANIFEST atomically and durably.
absl::Status WriteManifest(const std::string& dir, const Manifest& manifest);

std::string ManifestPath(const std::string& dir);

}  // namespace kvstore

#endif  // KVSTORE_MANIFEST_H_
