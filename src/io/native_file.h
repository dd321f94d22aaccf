// What the batch reader (batch_read.h) needs of a POSIX file to read it
// through io_uring: its descriptor, and whether reads must be aligned
// (O_DIRECT). Files of other kinds (in memory, a store's own, fault
// injectors) lack it and are read through RandomAccessFile::Read.
// Private to the io layer and the layers that batch reads.

#ifndef LSMBLOOM_SRC_IO_NATIVE_FILE_H_
#define LSMBLOOM_SRC_IO_NATIVE_FILE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lsmbloom/io/file.h"

namespace lsmbloom {
namespace internal {

class NativeFile {
 public:
  virtual int fd() const = 0;
  virtual bool direct() const = 0;
  virtual const std::string& path() const = 0;

 protected:
  ~NativeFile() = default;
};

// The file's NativeFile side, or null if it has none.
const NativeFile* NativeFileOf(const RandomAccessFile& file);

// The aligned range a direct read of [offset, offset + n) covers.
struct AlignedRange {
  uint64_t begin = 0;
  size_t length = 0;
};
AlignedRange AlignForDirectRead(uint64_t offset, size_t n);

// The n bytes at `offset` out of `got` bytes read from `range.begin` into
// `aligned`, copied to `scratch` (fewer at the end of the file).
std::string_view CopyFromAligned(const char* aligned, size_t got, const AlignedRange& range,
                                 uint64_t offset, size_t n, char* scratch);

// pread until n bytes or the end of the file: the bytes read, or -errno.
ssize_t PreadFully(int fd, char* buf, size_t n, uint64_t offset);

// This thread's buffer aligned to kDirectReadAlignment, of at least n
// bytes (grown as needed; null if memory runs out), one per use: a direct
// read's own (kRead) and a batch's bounce buffer (kBatch), which a batch
// holds while it may also call Read.
enum class AlignedUse { kRead, kBatch };
char* ThreadAlignedBuffer(AlignedUse use, size_t n);

// Leaves this thread's buffer for `use` to reads the kernel may still
// complete into it (never freed, never handed out again): the next call
// of ThreadAlignedBuffer for `use` allocates another.
void AbandonThreadAlignedBuffer(AlignedUse use);

// "path: read of n bytes at offset o: <strerror>", its code as absl maps
// the errno value.
absl::Status ReadError(const std::string& path, uint64_t offset, size_t n, int error);

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_IO_NATIVE_FILE_H_
