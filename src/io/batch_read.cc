#include "src/io/batch_read.h"

#include <errno.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/io/native_file.h"
#include "src/io/read_faults.h"

namespace lsmbloom {
namespace internal {
namespace {

// Reads a batch submits at once; a larger batch goes in rounds of this many.
constexpr unsigned kRingEntries = 64;

// One ring per thread: a MultiGet submits and reaps its own reads, never
// waiting on another thread's.
class Ring {
 public:
  Ring() {
    const int r = io_uring_queue_init(kRingEntries, &ring_, 0);
    if (r < 0) {
      error_ = -r;
    } else {
      ready_ = true;
    }
  }
  ~Ring() {
    if (ready_) io_uring_queue_exit(&ring_);
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // A new ring in place of this one, dropping whatever it still held.
  void Reset() {
    if (ready_) io_uring_queue_exit(&ring_);
    ready_ = false;
    const int r = io_uring_queue_init(kRingEntries, &ring_, 0);
    if (r < 0) {
      error_ = -r;
    } else {
      ready_ = true;
    }
  }

  bool ready() const { return ready_; }
  int error() const { return error_; }
  io_uring* get() { return &ring_; }

 private:
  io_uring ring_;
  bool ready_ = false;
  int error_ = 0;
};

std::atomic<uint64_t> rounds_abandoned{0};

Ring& ThisThreadsRing() {
  thread_local Ring ring;
  return ring;
}

// Where one RawRead's bytes land in the kernel's view: a range of this
// thread's batch buffer (aligned for a direct read), never the caller's
// scratch, so that a read the kernel may still complete after the batch
// gave up on it writes only where nothing will look (see Drain).
struct Target {
  char* buf;
  uint64_t offset;
  size_t length;
};

// Ends `read` from `got` bytes read into `t` (and what a synchronous pread
// adds where the kernel returned fewer than asked short of the end).
void Finish(RawRead& read, const Target& t, size_t got) {
  if (got < t.length) {
    const ssize_t r = PreadFully(read.fd, t.buf + got, t.length - got, t.offset + got);
    if (r < 0) {
      read.status = ReadError(read.path, read.offset, read.n, static_cast<int>(-r));
      return;
    }
    got += static_cast<size_t>(r);
  }
  read.result = CopyFromAligned(t.buf, got, AlignedRange{t.offset, t.length}, read.offset, read.n,
                                read.scratch);
  read.status = absl::OkStatus();
}

// Ends `read` without io_uring, in memory no earlier read targets.
void ReadSynchronously(RawRead& read) {
  if (!read.direct) {
    Finish(read, Target{read.scratch, read.offset, read.n}, 0);
    return;
  }
  const AlignedRange range = AlignForDirectRead(read.offset, read.n);
  char* buf = ThreadAlignedBuffer(AlignedUse::kRead, range.length);
  if (buf == nullptr) {
    read.status = ReadError(read.path, read.offset, read.n, ENOMEM);
    return;
  }
  Finish(read, Target{buf, range.begin, range.length}, 0);
}

// user_data of the cancellations Drain submits (reads carry their index).
constexpr uint64_t kCancelTag = ~uint64_t{0};

// Waits for one completion, as the installed read faults allow.
int WaitForCompletion(io_uring* r, io_uring_cqe** cqe) {
  const int fault = FaultedWait();
  return fault != 0 ? fault : io_uring_wait_cqe(r, cqe);
}

// After a failed wait: asks the kernel to cancel every read still in
// flight, then reaps each of them and each cancellation, discarding what
// they read. True once nothing of the round is left in the kernel; false
// if waits keep failing, when the round's targets may still be written.
// *stale if cancellations were left unsubmitted in the ring.
bool Drain(io_uring* r, const std::vector<bool>& reaped, size_t submitted, bool* stale) {
  size_t in_flight = 0, cancels = 0;
  // Reads the kernel refused still sit in the ring: a submit would send
  // them out untracked, so then the reads in flight are only waited for.
  const bool may_submit = submitted == reaped.size();
  for (size_t i = 0; i < submitted; ++i) {
    if (reaped[i]) continue;
    ++in_flight;
    io_uring_sqe* sqe = may_submit ? io_uring_get_sqe(r) : nullptr;
    if (sqe == nullptr) continue;  // Uncancelled: reaped when it ends.
    io_uring_prep_cancel64(sqe, i, 0);
    io_uring_sqe_set_data64(sqe, kCancelTag);
    ++cancels;
  }
  if (cancels > 0) {
    int s;
    do {
      s = io_uring_submit(r);
    } while (s == -EINTR);
    if (s < 0) {
      cancels = 0;
      *stale = true;
    }
  }
  constexpr int kFailedWaits = 8;  // In a row, before giving up.
  for (int failed = 0; in_flight + cancels > 0;) {
    io_uring_cqe* cqe = nullptr;
    const int w = WaitForCompletion(r, &cqe);
    if (w == -EINTR) continue;
    if (w < 0) {
      if (++failed == kFailedWaits) return false;
      continue;
    }
    failed = 0;
    const bool cancel = io_uring_cqe_get_data64(cqe) == kCancelTag;
    io_uring_cqe_seen(r, cqe);
    --(cancel ? cancels : in_flight);
  }
  return true;
}

// Submits one round (at most kRingEntries reads) and reaps it; the reads
// the ring did not end are read synchronously, into the same targets once
// nothing of the round is left in the kernel, else into other memory.
void ReadRound(Ring& ring, absl::Span<RawRead> reads, absl::Span<const Target> targets) {
  io_uring* r = ring.get();
  for (size_t i = 0; i < reads.size(); ++i) {
    io_uring_sqe* sqe = io_uring_get_sqe(r);  // Never null: the ring holds a round.
    io_uring_prep_read(sqe, reads[i].fd, targets[i].buf, static_cast<unsigned>(targets[i].length),
                       targets[i].offset);
    io_uring_sqe_set_data64(sqe, i);
  }
  size_t submitted = 0;
  int s;
  do {
    s = io_uring_submit_and_wait(r, static_cast<unsigned>(reads.size()));
  } while (s == -EINTR);
  if (s > 0) submitted = static_cast<size_t>(s);
  while (s > 0 && submitted < reads.size()) {  // A short submit: the rest again.
    s = io_uring_submit(r);
    if (s == -EINTR) {
      s = 1;
      continue;
    }
    if (s > 0) submitted += static_cast<size_t>(s);
  }
  std::vector<bool> reaped(reads.size(), false);
  bool drained = true, stale = false;
  for (size_t done = 0; done < submitted;) {
    io_uring_cqe* cqe = nullptr;
    const int w = WaitForCompletion(r, &cqe);
    if (w == -EINTR) continue;
    if (w < 0) {
      // Reads still in flight would land in the targets while the
      // fallback rereads them, or in the next round's: end them first.
      drained = Drain(r, reaped, submitted, &stale);
      break;
    }
    const uint64_t tag = io_uring_cqe_get_data64(cqe);
    int64_t res = cqe->res;
    io_uring_cqe_seen(r, cqe);
    if (tag == kCancelTag) continue;  // Drain reaps its own; never a read.
    const size_t i = static_cast<size_t>(tag);
    ++done;
    reaped[i] = true;
    res = FaultedAnswer({reads[i].fd, targets[i].offset, targets[i].length,
                         KernelReadPath::kIoUring},
                        res);
    if (res < 0) {
      reads[i].status = ReadError(reads[i].path, reads[i].offset, reads[i].n, static_cast<int>(-res));
    } else {
      Finish(reads[i], targets[i], std::min(static_cast<size_t>(res), targets[i].length));
    }
  }
  if (submitted < reads.size() || !drained || stale) {
    // The kernel refused part of the round (what it kept must not be
    // submitted later with its buffers gone), or the ring cannot be
    // waited on, or holds cancellations of this round's reads that must
    // not meet the next round's: the ring starts over.
    ring.Reset();
  }
  if (!drained) {
    // Reads may still land in the targets: their buffer is left to them.
    AbandonThreadAlignedBuffer(AlignedUse::kBatch);
    rounds_abandoned.fetch_add(1, std::memory_order_relaxed);
  }
  for (size_t i = 0; i < reads.size(); ++i) {
    if (reaped[i]) continue;
    if (drained) {
      Finish(reads[i], targets[i], 0);
    } else {
      ReadSynchronously(reads[i]);
    }
  }
}

}  // namespace

bool IoUringAvailable(std::string* why) {
  Ring& ring = ThisThreadsRing();
  if (!ring.ready() && why != nullptr) {
    *why = absl::StrCat("io_uring_queue_init: ", std::strerror(ring.error()));
  }
  return ring.ready();
}

void ReadRawWithIoUring(absl::Span<RawRead> reads) {
  Ring& ring = ThisThreadsRing();
  for (size_t start = 0; start < reads.size(); start += kRingEntries) {
    const absl::Span<RawRead> round = reads.subspan(start, kRingEntries);
    if (!ring.ready()) {
      for (RawRead& r : round) ReadSynchronously(r);
      continue;
    }
    // Each read's range of the batch buffer: a direct read's starts on a
    // kDirectReadAlignment boundary (its length is a multiple of it), a
    // buffered read's on a cache line.
    std::vector<Target> targets(round.size());
    std::vector<size_t> starts(round.size());
    size_t bytes = 0;
    for (size_t i = 0; i < round.size(); ++i) {
      const AlignedRange range = round[i].direct ? AlignForDirectRead(round[i].offset, round[i].n)
                                                 : AlignedRange{round[i].offset, round[i].n};
      const size_t align = round[i].direct ? kDirectReadAlignment : 64;
      bytes = (bytes + align - 1) & ~(align - 1);
      starts[i] = bytes;
      targets[i] = {nullptr, range.begin, range.length};
      bytes += range.length;
    }
    char* buffer = ThreadAlignedBuffer(AlignedUse::kBatch, std::max<size_t>(bytes, 1));
    if (buffer == nullptr) {
      for (RawRead& r : round) r.status = ReadError(r.path, r.offset, r.n, ENOMEM);
      continue;
    }
    for (size_t i = 0; i < round.size(); ++i) targets[i].buf = buffer + starts[i];
    ReadRound(ring, round, targets);
  }
}

uint64_t IoUringRoundsAbandoned() { return rounds_abandoned.load(std::memory_order_relaxed); }

unsigned IoUringCompletionsWaiting() {
  Ring& ring = ThisThreadsRing();
  return ring.ready() ? io_uring_cq_ready(ring.get()) : 0;
}

void ReadBatch(absl::Span<BatchRead> reads, BatchReadEngine engine) {
  std::vector<RawRead> raw;
  std::vector<size_t> raw_of;  // Index into `reads` of each raw read.
  const bool uring = engine != BatchReadEngine::kSerial && reads.size() > 1 && IoUringAvailable();
  for (size_t i = 0; i < reads.size(); ++i) {
    BatchRead& r = reads[i];
    const NativeFile* native = uring ? NativeFileOf(*r.file) : nullptr;
    if (native != nullptr && r.file->MappedContents().empty() && r.offset < r.file->Size()) {
      RawRead rr;
      rr.fd = native->fd();
      rr.direct = native->direct();
      rr.path = native->path();
      rr.offset = r.offset;
      rr.n = static_cast<size_t>(std::min<uint64_t>(r.n, r.file->Size() - r.offset));
      rr.scratch = r.scratch;
      raw.push_back(std::move(rr));
      raw_of.push_back(i);
    } else {
      r.status = r.file->Read(r.offset, r.n, r.scratch, &r.result);
    }
  }
  if (raw.empty()) return;
  ReadRawWithIoUring(absl::MakeSpan(raw));
  for (size_t j = 0; j < raw.size(); ++j) {
    reads[raw_of[j]].result = raw[j].result;
    reads[raw_of[j]].status = std::move(raw[j].status);
  }
}

}  // namespace internal
}  // namespace lsmbloom
