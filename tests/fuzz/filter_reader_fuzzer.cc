// Fuzz target: the blocked and classic Bloom readers on arbitrary bytes.
// Open must refuse or accept without reading out of bounds; an accepted
// filter answers single and batched probes alike.
//
// Every input is read twice: as it is (checksums as mutated, so almost
// every mutation stops at them), and with its checksums recomputed
// (fix_checksums.h), so that mutations of the header's geometry reach the
// checks and the probes behind the checksums.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lsmbloom/filter/blocked_bloom.h"
#include "lsmbloom/filter/filter_policy.h"
#include "tests/fuzz/fix_checksums.h"
#include "tests/fuzz/probe_check.h"

namespace {

void Read(std::string_view bytes) {
  auto reader = lsmbloom::BlockedBloomReader::Open(bytes);
  if (reader.ok()) {
    lsmbloom::fuzz::CheckProbesAgree(*reader, bytes.substr(0, bytes.size() / 2));
  }
  // The same bytes through the classic policy's reader.
  static const auto classic = *lsmbloom::NewClassicBloomPolicy(10);
  auto classic_reader = classic->NewReader(bytes);
  if (classic_reader.ok()) {
    lsmbloom::fuzz::CheckPolicyReaderProbes(**classic_reader, bytes.substr(0, bytes.size() / 2));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Read(bytes);
  std::string fixed(bytes);
  lsmbloom::fuzz::FixFilterChecksums(&fixed);
  if (fixed != bytes) Read(fixed);
  return 0;
}
