#include "src/io/batch_read.h"

#include <errno.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/io/native_file.h"

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

Ring& ThisThreadsRing() {
  thread_local Ring ring;
  return ring;
}

// Where one RawRead's bytes land in the kernel's view: its own scratch, or
// (direct) an aligned range of the bounce buffer.
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
  read.result = read.direct ? CopyFromAligned(t.buf, got, AlignedRange{t.offset, t.length},
                                              read.offset, read.n, read.scratch)
                            : std::string_view(read.scratch, got);
  read.status = absl::OkStatus();
}

// Submits one round (at most kRingEntries reads) and reaps it.
void ReadRound(Ring& ring, absl::Span<RawRead> reads, absl::Span<const Target> targets) {
  io_uring* r = ring.get();
  for (size_t i = 0; i < reads.size(); ++i) {
    io_uring_sqe* sqe = io_uring_get_sqe(r);  // Never null: the ring holds a round.
    io_uring_prep_read(sqe, reads[i].fd, targets[i].buf, static_cast<unsigned>(targets[i].length),
                       targets[i].offset);
    io_uring_sqe_set_data(sqe, reinterpret_cast<void*>(i));
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
  std::vector<bool> ended(reads.size(), false);
  for (size_t done = 0; done < submitted;) {
    io_uring_cqe* cqe = nullptr;
    const int w = io_uring_wait_cqe(r, &cqe);
    if (w == -EINTR) continue;
    if (w < 0) break;
    const size_t i = reinterpret_cast<size_t>(io_uring_cqe_get_data(cqe));
    const int res = cqe->res;
    io_uring_cqe_seen(r, cqe);
    ++done;
    ended[i] = true;
    if (res < 0) {
      reads[i].status = ReadError(reads[i].path, reads[i].offset, reads[i].n, -res);
    } else {
      Finish(reads[i], targets[i], static_cast<size_t>(res));
    }
  }
  if (submitted < reads.size()) {
    // The kernel refused part of the round: what it kept must not be
    // submitted later with buffers gone, so the ring starts over, and the
    // reads it did not end are read here, as the fallback would.
    ring.Reset();
  }
  for (size_t i = 0; i < reads.size(); ++i) {
    if (!ended[i]) Finish(reads[i], targets[i], 0);
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
    std::vector<Target> targets(round.size());
    size_t bounce = 0;
    for (size_t i = 0; i < round.size(); ++i) {
      if (round[i].direct) bounce += AlignForDirectRead(round[i].offset, round[i].n).length;
    }
    char* buffer = bounce == 0 ? nullptr : ThreadAlignedBuffer(AlignedUse::kBatch, bounce);
    if (bounce != 0 && buffer == nullptr) {
      for (RawRead& r : round) r.status = ReadError(r.path, r.offset, r.n, ENOMEM);
      continue;
    }
    for (size_t i = 0, at = 0; i < round.size(); ++i) {
      if (round[i].direct) {
        const AlignedRange range = AlignForDirectRead(round[i].offset, round[i].n);
        targets[i] = {buffer + at, range.begin, range.length};
        at += range.length;
      } else {
        targets[i] = {round[i].scratch, round[i].offset, round[i].n};
      }
    }
    if (!ring.ready()) {
      for (size_t i = 0; i < round.size(); ++i) Finish(round[i], targets[i], 0);
      continue;
    }
    ReadRound(ring, round, targets);
  }
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
