// The write-ahead log: every write batch is appended to the log before it
// is applied to the memtable, so writes not yet in a table survive a crash.
//
// A log is a sequence of records, each a 16-byte header and a payload:
//
//   payload length    fixed32, little-endian
//   payload checksum  fixed64, XXH3-64 of the payload
//   header checksum   fixed32, low 32 bits of XXH3-64 of the 12 bytes above
//   payload           `length` bytes
//
// The header checksum lets the reader tell a record boundary from garbage
// without trusting the length; the payload checksum catches damage to the
// payload. A crash can leave the last record cut short or, on some
// filesystems, followed by zeros or stale bytes. Replay therefore treats
// a bad record after which nothing valid follows as a torn tail: the
// records before it are the log, and the report says what was dropped. A
// bad record with a valid one after it is damage in the middle of the log,
// which replay refuses (DataLoss) rather than lose the records around it.
//
// Each Append writes the whole record with one write(2), so a process that
// is killed (kill -9) loses no appended record; what a power failure or OS
// crash may lose depends on the sync policy. A failed sync ends the log:
// nothing more is appended or acknowledged (WalWriter::Sync).

#ifndef KVSTORE_WAL_H_
#define KVSTORE_WAL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "env.h"

namespace kvstore {

// When the log is made durable with fdatasync.
struct WalSync {
  enum class Mode {
    kAlways,    // Before each write is acknowledged: no acknowledged write is
                // lost to a power failure.
    kInterval,  // By a background thread at most `interval` after a write:
                // a power failure loses at most that much. A failed
                // background sync fails the next write.
    kNever,     // Left to the OS; a power failure can lose any write not yet
                // in a table. A killed process loses nothing.
  };
  Mode mode = Mode::kAlways;
  absl::Duration interval = absl::Milliseconds(100);
};

// Parses "always", "never" or "interval:MS" (e.g. "interval:100").
absl::StatusOr<WalSync> ParseWalSync(std::string_view text);

class WalWriter {
 public:
  // Creates `path`, or appends to it if it exists (after a replay that
  // truncated any torn tail).
  static absl::StatusOr<std::unique_ptr<WalWriter>> Open(const std::string& path,
                                                         const WalSync& sync,
                                                         Env* env = Env::Default());
  // Syncs unless the policy is kNever or a sync has failed, then closes.
  ~WalWriter();
  WalWriter(const WalWriter&) = delete;
  WalWriter& operator=(const WalWriter&) = delete;

  // Appends one record; with kAlways, returns once it is durable. Fails
  // without writing once a sync has failed (sync_error()).
  absl::Status Append(std::string_view payload);
  // Makes every appended record durable. A failed sync is never retried:
  // Linux reports a writeback error once and may have dropped the pages,
  // so a second fdatasync could succeed with records lost. The first
  // failure is kept, and this and every later Sync and Append return it.
  absl::Status Sync();
  // The kept sync failure, the kInterval thread's included; OK if none.
  absl::Status sync_error() const;
  uint64_t size() const { return size_; }

 private:
  WalWriter(std::string path, std::unique_ptr<lsmbloom::WritableFile> file, uint64_t size,
            const WalSync& sync);
  void SyncLoop();

  const std::string path_;
  const std::unique_ptr<lsmbloom::WritableFile> file_;
  const WalSync sync_;
  uint64_t size_;
  // Guards the fields below; the kInterval thread syncs while Append
  // writes, which the Env allows.
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool dirty_ = false;
  bool closing_ = false;
  absl::Status sync_error_;
  std::thread syncer_;
};

// What a replay found.
struct WalReplayReport {
  uint64_t records = 0;
  // The length of the valid prefix: where appending may resume.
  uint64_t valid_bytes = 0;
  // Bytes after the valid prefix that were not a complete, intact record.
  uint64_t dropped_bytes = 0;
  // Why they were dropped; empty if nothing was.
  std::string tail_problem;
};

// Calls apply(payload) for each record of the log at `path` in order. OK
// with a report if the log is intact or only its tail is torn; DataLoss,
// naming the offset, if a bad record has valid ones after it; apply's
// error if it fails.
absl::StatusOr<WalReplayReport> ReplayWal(
    const std::string& path, const std::function<absl::Status(std::string_view)>& apply,
    Env* env = Env::Default());

// Encodes one record (header and payload); for tests that damage logs.
std::string EncodeWalRecord(std::string_view payload);
inline constexpr size_t kWalHeaderSize = 16;

}  // namespace kvstore

#endif  // KVSTORE_WAL_H_
