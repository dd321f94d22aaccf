// The small file interface the table layer reads and writes through.
//
// Tables never call the OS directly: they see a WritableFile while being
// built and a RandomAccessFile while being read. lsmbloom ships POSIX files
// (pread, or mmap) and in-memory files for tests; a store can pass its own,
// for example one that injects faults.

#ifndef LSMBLOOM_IO_FILE_H_
#define LSMBLOOM_IO_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lsmbloom {

// Sequential writer. Not thread-safe.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual absl::Status Append(std::string_view data) = 0;
  // Makes everything appended so far durable.
  virtual absl::Status Sync() = 0;
  // Finishes the file. After a successful Close the file is complete and
  // visible under its final name; a file destroyed without Close is not.
  // (The POSIX writer can fail after the rename, if syncing the directory
  // fails: the file is then complete, but its name may not survive a crash.)
  virtual absl::Status Close() = 0;
};

// Positional reader. Thread-safe: many threads may Read at once.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual uint64_t Size() const = 0;
  // Reads up to n bytes at offset. *result points either into `scratch`
  // (which must hold n bytes) or into memory the file owns (in-memory
  // files), valid as long as the file: read *result, not scratch. (The
  // POSIX file copies into scratch even when mapped; its mapped bytes in
  // place are MappedContents().) A short result means end of file.
  virtual absl::Status Read(uint64_t offset, size_t n, char* scratch,
                            std::string_view* result) const = 0;
  // The whole file in memory, if the file is mapped or in memory; else empty.
  virtual std::string_view MappedContents() const { return {}; }
};

// Writes `path` atomically: data goes to "<path>.tmp", which Close() syncs
// and renames over `path`. A writer destroyed before Close() removes the
// temporary, so a failed build never leaves a file at `path`.
absl::StatusOr<std::unique_ptr<WritableFile>> NewPosixWritableFile(const std::string& path);

// How OpenPosixFile reads a file.
enum class FileAccess {
  // Mapped into memory on 64-bit systems (as LevelDB does), falling back to
  // pread where mapping fails or the address space is small. What a table
  // should be opened with: a lookup reads its data block in place, verified
  // on first use, where pread copies the block and verifies it on every
  // read (a present-key Get several times slower; docs/PERFORMANCE.md).
  kDefault,
  // Mapped, or an error. A mapped file cut short while open (by another
  // process) makes reads past its new end fault (SIGBUS): tables are
  // immutable once written, so only damage from outside can do that.
  kMmap,
  // pread into the caller's buffer on every read: for files that may change
  // under the reader, or address spaces too small to map them.
  kPread,
  // O_DIRECT: every read bypasses the page cache and goes to the device,
  // for data larger than memory, where the page cache would only evict
  // itself; give the tables a block cache (TableReadOptions::block_cache)
  // for the blocks worth keeping. Reads take any offset and length: they
  // go through a buffer aligned to kDirectReadAlignment and are copied out.
  // Where the file system refuses O_DIRECT (tmpfs, some overlays),
  // OpenPosixFile fails with InvalidArgument naming the path: it never
  // falls back to cached reads behind the caller's back.
  kDirect,
};

// The alignment of a direct read's offset, length and buffer: 4096 serves
// every device with logical blocks of up to 4 KiB.
inline constexpr size_t kDirectReadAlignment = 4096;

// Opens `path` for reading. Errors name the path; a read's errors name the
// path, the offset and the length.
absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenPosixFile(
    const std::string& path, FileAccess access = FileAccess::kDefault);
// The same, mapped (kMmap) when `mmap`, else with pread (kPread).
absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenPosixFile(const std::string& path,
                                                                bool mmap);

// An in-memory file: what is written lands in *contents on Close (and not
// before, mirroring the atomic POSIX writer).
std::unique_ptr<WritableFile> NewMemWritableFile(std::string* contents);

// Reads from an in-memory copy of `contents`.
std::unique_ptr<RandomAccessFile> NewMemRandomAccessFile(std::string contents);

}  // namespace lsmbloom

#endif  // LSMBLOOM_IO_FILE_H_
