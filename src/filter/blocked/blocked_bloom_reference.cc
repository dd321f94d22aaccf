#include "src/filter/blocked/blocked_bloom_reference.h"


namespace lsmbloom {
namespace internal {

void ReferenceAdd(uint8_t* bits, uint64_t num_blocks, int num_probes, const uint64_t* hashes,
                  size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint8_t* block = bits + BlockOfHash(hashes[i], num_blocks) * kBlockBytes;
    const uint32_t seed = ProbeSeed(hashes[i]);
    for (int probe = 0; probe < num_probes; ++probe) {
      const uint32_t bit = BitInBlock(seed, probe);
      block[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
}

bool ReferenceProbe(const uint8_t* bits, uint64_t num_blocks, int num_probes, uint64_t hash) {
  const uint8_t* block = bits + BlockOfHash(hash, num_blocks) * kBlockBytes;
  const uint32_t seed = ProbeSeed(hash);
  for (int probe = 0; probe < num_probes; ++probe) {
    const uint32_t bit = BitInBlock(seed, probe);
    if ((block[bit / 8] & (1u << (bit % 8))) == 0) return false;
  }
  return true;
}

}  // namespace internal
}  // namespace lsmbloom
