// Many reads in flight at once: the data blocks a MultiGet still needs after
// its filters, across any number of files.
//
// Reads of POSIX files opened with pread or direct reads go to the kernel
// together through io_uring (Debian's liburing) where the kernel allows it;
// the others (mapped or in-memory files, a store's own files, fault
// injectors), and all of them where io_uring is unavailable (disabled by
// kernel.io_uring_disabled, a container's seccomp profile, an old kernel),
// are read one after another through RandomAccessFile::Read. Either way each
// read ends as Read would have ended it: the same bytes, the same short
// result at the end of the file, an error naming the file, offset and length.
//
// The kernel reads into buffers of the batch reader's own, copied out to
// each request's scratch: if a wait for completions fails, the reads still
// in flight are cancelled and reaped before anything is read again, and
// where even that fails their buffer is abandoned to them, so a read the
// kernel completes late never writes where a later read or caller looks.

#ifndef LSMBLOOM_SRC_IO_BATCH_READ_H_
#define LSMBLOOM_SRC_IO_BATCH_READ_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "lsmbloom/io/file.h"

namespace lsmbloom {
namespace internal {

struct BatchRead {
  // In: up to n bytes of `file` at `offset`, into `scratch` (n bytes).
  const RandomAccessFile* file = nullptr;
  uint64_t offset = 0;
  size_t n = 0;
  char* scratch = nullptr;
  // Out: as RandomAccessFile::Read's *result and status.
  std::string_view result;
  absl::Status status;
};

enum class BatchReadEngine {
  kAuto,     // io_uring where available, else one after another.
  kIoUring,  // io_uring; where unavailable, one after another all the same.
  kSerial,   // One after another through Read: the fallback, to test it.
};

// Reads every request of `reads` (in place), with `engine`.
void ReadBatch(absl::Span<BatchRead> reads, BatchReadEngine engine = BatchReadEngine::kAuto);

// Whether this thread can read through io_uring; if not, *why (if given)
// says what refused it.
bool IoUringAvailable(std::string* why = nullptr);

// For tests: io_uring reads of raw descriptors, each request's fd standing
// for a file (so a test can make a completion fail: a descriptor not open
// for reading). paths name them in errors. REQUIRES: IoUringAvailable().
struct RawRead {
  int fd = -1;
  bool direct = false;
  std::string path;
  uint64_t offset = 0;
  size_t n = 0;
  char* scratch = nullptr;
  std::string_view result;
  absl::Status status;
};
void ReadRawWithIoUring(absl::Span<RawRead> reads);

// For tests: rounds whose reads could not all be reaped after a failed
// wait (their buffer left to the kernel, the ring made anew), in all
// threads; and the completions waiting in this thread's ring, which is
// none whenever no batch is being read.
uint64_t IoUringRoundsAbandoned();
unsigned IoUringCompletionsWaiting();

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_IO_BATCH_READ_H_
