// The Ribbon builder's fallback (RibbonOptions::max_construction_bytes):
// a blocked Bloom filter of the buffered hashes, built in place of a Ribbon
// filter whose band would not fit the bound.
//
// Why a Bloom filter rather than a Ribbon band solved in bounded pieces: a
// band is eliminated left to right and back-substituted right to left, and
// every slot's row is needed by the second pass, so a whole band must be
// held at once; cutting it into independently solved pieces would change
// the format (equations could not cross a cut). A blocked Bloom filter
// needs nothing but its own bits, sets them from the same hashes (same
// HashSpec, so the same KeyHash), and is self-describing: its magic, "LBBF",
// tells a reader which kind it is. RocksDB falls back the same way when
// the construction memory it charges to the block cache does not fit.

#include <algorithm>
#include <string>

#include "absl/status/statusor.h"
#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/ribbon.h"
#include "src/filter/blocked/blocked_bloom_format.h"
#include "src/filter/blocked/blocked_bloom_kernels.h"
#include "src/filter/hash_buffer.h"
#include "src/filter/huge_pages.h"

namespace lsmbloom {

absl::StatusOr<std::string> RibbonBuilder::FinishBloomFallback(const RibbonGeometry& ribbon) {
  // The Bloom filter is sized for the FPR the Ribbon filter was planned to
  // have (which met target_fpr, or is what bits_per_key bought): ~1.5 times
  // its bits, as a blocked filter needs at the same FPR.
  BlockedBloomOptions bloom;
  bloom.hash = options_.hash;
  bloom.target_fpr = std::clamp(ribbon.predicted_fpr(), 1e-12, 0.5);
  absl::StatusOr<BlockedBloomGeometry> g = PlanBlockedBloom(ribbon.num_keys, bloom);
  if (!g.ok()) {
    hashes_->Drain([](const uint64_t*, size_t) {});
    return g.status();
  }
  // Set in a buffer on a cache-line boundary, as BlockedBloomBuilder does,
  // while the hashes are held (their 8 bytes per key and the bits are the
  // peak); Drain frees the hashes before the copy behind the header.
  internal::ZeroedLines bits(g->bit_bytes());
  hashes_->Drain([&](const uint64_t* run, size_t n) {
    internal::AddHashes(bits.data(), g->num_blocks, g->num_probes, run, n);
  });
  std::string filter(g->serialized_size(), '\0');
  std::copy(bits.data(), bits.data() + g->bit_bytes(), filter.begin() + internal::kHeaderBytes);
  internal::EncodeHeader(*g, reinterpret_cast<uint8_t*>(filter.data()));
  return filter;
}

}  // namespace lsmbloom
