// The MANIFEST: which table files make up the store, at which level, and
// the counters a reopened store continues from.
//
// A small text file in the store directory:
//
//   kvstore-manifest v2
//   next_file_number 12
//   last_sequence 3456
//   log_number 13
//   ribbon_from_level 2
//   file 0 11 size=40960 id=8f3a0c1d22e4b790
//   file 1 7 size=2101248 id=05d1e6c3a9f87b12
//   end
//
// A file line gives the level, the file number, and what the table must
// be: its size in bytes and its unique id (lsmbloom's Table::unique_id(),
// 16 hex digits; 0 for a format-1 table, which has none). A file that is a
// valid table but not this one (an older generation, another level's file
// copied over it) fails these checks on open, where it would otherwise
// answer with stale values. Version 1 manifests, written before the store
// recorded them, have bare "file LEVEL NUMBER" lines; they still open, with
// nothing to check, and the next rewrite records the tables as found.
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
#include "env.h"

namespace kvstore {

struct ManifestFile {
  int level = 0;
  uint64_t number = 0;
  // What the table must be; both 0 when not recorded (a v1 manifest).
  uint64_t file_size = 0;
  uint64_t unique_id = 0;
  bool recorded() const { return file_size != 0; }
};

struct Manifest {
  // The format it was read in (1 or 2); always written as 2.
  int version = 2;
  // Numbers below this may have been used; new files take it and up.
  uint64_t next_file_number = 1;
  // The highest sequence number handed out.
  uint64_t last_sequence = 0;
  // Write-ahead logs numbered below this are in tables already; the others
  // hold writes to replay. Absent from manifests written before the store
  // had a log: 0, every log is replayed.
  uint64_t log_number = 0;
  // New tables of this level and deeper get Ribbon filters (-1: none; the
  // line is written only when >= 0, so stores without Ribbon filters keep
  // manifests older builds read).
  int ribbon_from_level = -1;
  std::vector<ManifestFile> files;
};

// Always version 2. REQUIRES: every file recorded().
std::string EncodeManifest(const Manifest& manifest);

// DataLoss, naming the line, unless `text` is a complete, well-formed
// manifest of version 1 or 2: levels in range, file numbers distinct and
// below next_file_number, and in version 2 every file's size (not 0) and
// id given.
absl::StatusOr<Manifest> DecodeManifest(std::string_view text);

// Reads dir/MANIFEST; NotFound if there is none.
absl::StatusOr<Manifest> ReadManifest(const std::string& dir, Env* env = Env::Default());

// Replaces dir/MANIFEST atomically and durably.
absl::Status WriteManifest(const std::string& dir, const Manifest& manifest,
                           Env* env = Env::Default());

std::string ManifestPath(const std::string& dir);

}  // namespace kvstore

#endif  // KVSTORE_MANIFEST_H_
