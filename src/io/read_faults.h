// For tests: a seam where what the kernel answered to a read of a POSIX
// file is rewritten as a failing device would have answered it: an error
// (-EIO), fewer bytes than asked, a cancelled request (-ECANCELED). It sees
// every read of a file opened with pread or direct reads, on both paths
// tables read through: each synchronous pread (Get, the serial fallback)
// and each io_uring completion of a batch read (MultiGet), and each wait
// for an io_uring completion. Off (one atomic load per read) unless
// a test installs faults.

#ifndef LSMBLOOM_SRC_IO_READ_FAULTS_H_
#define LSMBLOOM_SRC_IO_READ_FAULTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>

namespace lsmbloom {
namespace internal {

enum class KernelReadPath { kPread, kIoUring };

// One read as the kernel was asked it.
struct KernelRead {
  int fd = -1;
  uint64_t offset = 0;
  size_t length = 0;
  KernelReadPath path = KernelReadPath::kPread;
};

struct ReadFaults {
  // Each answer (bytes read, or -errno): the answer to act on instead.
  // Unset: the kernel's.
  std::function<int64_t(const KernelRead& read, int64_t answer)> answer;
  // Before each wait for an io_uring completion: 0 to wait, or a -errno
  // that fails the wait as io_uring_wait_cqe would. Unset: wait.
  std::function<int()> wait;
};

// Installs `faults` for its lifetime. REQUIRES: one at a time; no reads
// while it is made or destroyed; the functions thread-safe if reads run
// on several threads.
class ScopedReadFaults {
 public:
  explicit ScopedReadFaults(ReadFaults faults);
  ~ScopedReadFaults();
  ScopedReadFaults(const ScopedReadFaults&) = delete;
  ScopedReadFaults& operator=(const ScopedReadFaults&) = delete;

 private:
  ReadFaults faults_;
};

// What the installed faults make of `answer` (`answer` if none).
int64_t FaultedAnswer(const KernelRead& read, int64_t answer);

// 0, or the error the installed faults give this wait.
int FaultedWait();

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_IO_READ_FAULTS_H_
