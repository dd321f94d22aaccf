// The modular filter's header layout (docs/FORMAT.md): fixed part, then
// one 32-byte entry per module, then an XXH3-64 of both, padded to a
// multiple of 64 bytes. Private to src/filter.

#ifndef LSMBLOOM_SRC_FILTER_MODULAR_MODULAR_FORMAT_H_
#define LSMBLOOM_SRC_FILTER_MODULAR_MODULAR_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/modular_bloom.h"

namespace lsmbloom {
namespace internal {

inline constexpr uint32_t kModularMagic = 0x4d4d534c;  // "LSMM" little-endian.
inline constexpr int kModularFormatVersion = 1;
// magic (4), version (1), module count (1), reserved (2), key count (8).
inline constexpr uint64_t kModularFixedBytes = 16;
// offset (8), size (8), XXH3-64 (8), blocks (4), k (1), reserved (3).
inline constexpr uint64_t kModularEntryBytes = 32;

// The header's size for `num_modules` modules: where module 0 starts.
uint64_t ModularHeaderSize(int num_modules);

// The header for `modules` (offsets, sizes, checksums and geometry set).
std::string EncodeModularHeader(uint64_t num_keys, const std::vector<FilterModuleInfo>& modules);

// A reader over module `info`'s bytes, in place (they must outlive it):
// DataLoss unless they are `info.size` bytes of its checksum, open as a
// blocked Bloom filter, and have its geometry, `num_keys` keys and the
// default HashSpec.
absl::StatusOr<BlockedBloomReader> OpenModule(std::string_view bytes, const FilterModuleInfo& info,
                                              uint64_t num_keys);

static_assert(kModularFixedBytes + kModularEntryBytes * kMaxFilterModules + 8 <=
                  kMaxModularHeaderSize,
              "kMaxModularHeaderSize covers the largest header");

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_FILTER_MODULAR_MODULAR_FORMAT_H_
