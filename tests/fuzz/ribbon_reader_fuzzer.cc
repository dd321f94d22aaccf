// Fuzz target: arbitrary bytes as a serialized Ribbon filter. Open must
// refuse or accept without reading out of bounds; an accepted filter answers
// single, batched and scalar reference probes alike, and so does the Ribbon
// policy's reader (which also opens the blocked Bloom fallback). Builds
// nothing, so it runs fast; ribbon_builder_fuzzer.cc is the build half.
//
// Every input is read twice: as it is, and with its checksums recomputed
// (fix_checksums.h), so that mutations of the header's geometry reach the
// checks and the probes behind the checksums.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lsmbloom/filter/ribbon.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "src/filter/ribbon/ribbon_reference.h"
#include "tests/fuzz/fix_checksums.h"
#include "tests/fuzz/probe_check.h"

namespace {

void Read(std::string_view bytes) {
  const std::string_view key = bytes.substr(0, bytes.size() / 2);
  auto reader = lsmbloom::RibbonReader::Open(bytes);
  if (reader.ok()) {
    lsmbloom::fuzz::CheckProbesAgree(*reader, key, [&](uint64_t hash) {
      return lsmbloom::internal::RibbonMayMatch(reader->view(), hash);
    });
  }
  static const auto policy = *lsmbloom::NewRibbonPolicy(lsmbloom::RibbonOptions());
  auto policy_reader = policy->NewReader(bytes);
  // The policy opens every Ribbon filter the reader opens.
  if (reader.ok() && !policy_reader.ok()) __builtin_trap();
  if (policy_reader.ok()) lsmbloom::fuzz::CheckPolicyReaderProbes(**policy_reader, key);
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
