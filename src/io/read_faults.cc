#include "src/io/read_faults.h"

#include <atomic>
#include <utility>

namespace lsmbloom {
namespace internal {
namespace {

std::atomic<const ReadFaults*> installed{nullptr};

}  // namespace

ScopedReadFaults::ScopedReadFaults(ReadFaults faults) : faults_(std::move(faults)) {
  installed.store(&faults_, std::memory_order_release);
}

ScopedReadFaults::~ScopedReadFaults() { installed.store(nullptr, std::memory_order_release); }

int64_t FaultedAnswer(const KernelRead& read, int64_t answer) {
  const ReadFaults* faults = installed.load(std::memory_order_acquire);
  if (faults == nullptr || !faults->answer) return answer;
  return faults->answer(read, answer);
}

int FaultedWait() {
  const ReadFaults* faults = installed.load(std::memory_order_acquire);
  if (faults == nullptr || !faults->wait) return 0;
  return faults->wait();
}

}  // namespace internal
}  // namespace lsmbloom
