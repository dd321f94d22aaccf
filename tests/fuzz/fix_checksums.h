// Recomputes the checksums of a serialized filter in place, so that a fuzz
// target's mutations of headers, geometry and module entries reach the code
// behind the checksums instead of stopping at them. Offsets are
// docs/FORMAT.md's; the checksum is the writers' own (Checksum64, XXH3-64).
// //tests:fuzz_checksums_test proves a built filter of every kind comes
// back byte for byte after its checksums are wiped and fixed.
//
// The kind is told by the magic; bytes with none of the four magics, or too
// short for the checksummed fields, are left as they are. Never reads or
// writes outside the string.

#ifndef LSMBLOOM_TESTS_FUZZ_FIX_CHECKSUMS_H_
#define LSMBLOOM_TESTS_FUZZ_FIX_CHECKSUMS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "src/util/checksum.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace fuzz {
namespace fix_checksums_internal {

// Blocked Bloom ("LBBF") and Ribbon ("LRBF") share a 64-byte header: the
// body's checksum at the kind's offset, then the header's at 56 over [0, 56).
inline constexpr size_t kSharedHeaderBytes = 64;
inline constexpr size_t kSharedHeaderChecksumAt = 56;
inline constexpr size_t kBlockedBitsChecksumAt = 32;
inline constexpr size_t kRibbonSolutionChecksumAt = 40;
// Classic ("LCBF"): a 32-byte header, the bits' checksum at 24.
inline constexpr size_t kClassicHeaderBytes = 32;
inline constexpr size_t kClassicChecksumAt = 24;
// Modular ("LSMM"): 16 fixed bytes, a 32-byte entry per module (offset at
// 0, size at 8, the module's checksum at 16), the header's checksum after
// the last entry.
inline constexpr size_t kModularFixedBytes = 16;
inline constexpr size_t kModularEntryBytes = 32;
inline constexpr int kModularMaxModules = 16;

inline bool HasMagic(const char* p, size_t size, const char (&magic)[5]) {
  return size >= 4 && std::memcmp(p, magic, 4) == 0;
}

inline void FixSharedHeader(char* p, size_t size, size_t body_checksum_at) {
  if (size < kSharedHeaderBytes) return;
  internal::EncodeFixed64(p + body_checksum_at,
                          internal::Checksum64(p + kSharedHeaderBytes, size - kSharedHeaderBytes));
  internal::EncodeFixed64(p + kSharedHeaderChecksumAt,
                          internal::Checksum64(p, kSharedHeaderChecksumAt));
}

inline void FixModular(char* p, size_t size) {
  if (size < kModularFixedBytes) return;
  const int num_modules = static_cast<uint8_t>(p[5]);
  if (num_modules < 1 || num_modules > kModularMaxModules) return;
  const size_t checked = kModularFixedBytes + kModularEntryBytes * num_modules;
  if (size < checked + 8) return;
  for (int m = 0; m < num_modules; ++m) {
    char* e = p + kModularFixedBytes + kModularEntryBytes * m;
    const uint64_t offset = internal::DecodeFixed64(e);
    const uint64_t bytes = internal::DecodeFixed64(e + 8);
    // A module that overlaps the entries, or is cut off, keeps its sum.
    if (offset < checked + 8 || offset > size || bytes > size - offset) continue;
    // Modules are blocked Bloom filters (never modular ones: no recursion).
    if (HasMagic(p + offset, bytes, "LBBF")) {
      FixSharedHeader(p + offset, bytes, kBlockedBitsChecksumAt);
    }
    internal::EncodeFixed64(e + 16, internal::Checksum64(p + offset, bytes));
  }
  internal::EncodeFixed64(p + checked, internal::Checksum64(p, checked));
}

inline void FixAt(char* p, size_t size) {
  if (HasMagic(p, size, "LBBF")) {
    FixSharedHeader(p, size, kBlockedBitsChecksumAt);
  } else if (HasMagic(p, size, "LRBF")) {
    FixSharedHeader(p, size, kRibbonSolutionChecksumAt);
  } else if (HasMagic(p, size, "LCBF")) {
    if (size < kClassicHeaderBytes) return;
    internal::EncodeFixed64(p + kClassicChecksumAt, internal::Checksum64(p + kClassicHeaderBytes,
                                                                         size - kClassicHeaderBytes));
  } else if (HasMagic(p, size, "LSMM")) {
    FixModular(p, size);
  }
}

}  // namespace fix_checksums_internal

// Every checksum of `filter` set to what its bytes hash to: a modular
// filter's modules first (each one's own header and bits, then its entry),
// then its header's.
inline void FixFilterChecksums(std::string* filter) {
  fix_checksums_internal::FixAt(filter->data(), filter->size());
}

}  // namespace fuzz
}  // namespace lsmbloom

#endif  // LSMBLOOM_TESTS_FUZZ_FIX_CHECKSUMS_H_
