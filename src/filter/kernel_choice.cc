#include "src/filter/kernel_choice.h"

#include <time.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "hwy/base.h"
#include "hwy/targets.h"

namespace lsmbloom {
namespace internal {
namespace kernel_choice_detail {
std::atomic<uint8_t> g_index_plus_one[kNumKernelFamilies];
}  // namespace kernel_choice_detail

namespace {

using kernel_choice_detail::g_index_plus_one;
using Clock = std::chrono::steady_clock;

// Every candidate runs once untimed (its code and the workload come into
// cache), then in rounds of one timed run each, the candidates interleaved
// so that a burst of noise from another process spoils one round rather
// than one target; each candidate's fastest round counts. A run takes a
// fraction of a microsecond, so a family costs some tens of microseconds
// and all nine families well under a millisecond.
constexpr int kMinRounds = 3;
constexpr int kMaxRounds = 7;
constexpr double kFamilyBudgetUs = 40;  // No round starts after this.

struct State {
  std::mutex mu;
  int64_t pinned_bit = 0;
  int64_t family_pin[kNumKernelFamilies] = {};
  int measure = -1;  // -1: LSMBLOOM_SIMD_CHOICE not read yet.
  bool timed[kNumKernelFamilies] = {};
  FamilyChoice measured[kNumKernelFamilies];
  int64_t decided_bit[kNumKernelFamilies] = {};
  FamilyChoice::How decided_how[kNumKernelFamilies] = {};
};

State& GetState() {
  static State* const state = new State;
  return *state;
}

void ResetDecisions() {
  for (auto& index : g_index_plus_one) index.store(0, std::memory_order_release);
}

bool ChooseByMeasurement(State& s) {
  if (s.measure < 0) {
    const char* env = std::getenv("LSMBLOOM_SIMD_CHOICE");
    s.measure = (env != nullptr && std::strcmp(env, "widest") == 0) ? 0 : 1;
  }
  return s.measure == 1;
}

int64_t WidestTarget() {
  const int64_t bits = AvailableTargetBits();
  return bits & -bits;
}

// Times every available target of `family` and keeps the fastest, or the
// widest of those within kTieFraction of it.
// This thread's CPU time: what the timing costs the process, without the
// time another process held the core (on a shared machine, milliseconds).
double ThreadCpuMicros() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

FamilyChoice TimeFamily(KernelFamily family) {
  std::vector<int64_t> candidates;  // Widest first: lower bits are wider.
  for (int64_t bits = AvailableTargetBits(); bits != 0; bits &= bits - 1) {
    candidates.push_back(bits & -bits);
  }
  const Clock::time_point start = Clock::now();
  const double start_cpu_us = ThreadCpuMicros();
  std::vector<double> best(candidates.size(), std::numeric_limits<double>::infinity());
  for (int64_t bit : candidates) RunKernelWorkload(family, TableIndexOfTarget(bit));
  for (int round = 0; round < kMaxRounds; ++round) {
    const double elapsed_us =
        std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    if (round >= kMinRounds && elapsed_us > kFamilyBudgetUs) break;
    for (size_t c = 0; c < candidates.size(); ++c) {
      const Clock::time_point t0 = Clock::now();
      const size_t ops = RunKernelWorkload(family, TableIndexOfTarget(candidates[c]));
      const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
      if (ns / ops < best[c]) best[c] = ns / ops;
    }
  }
  FamilyChoice choice;
  choice.family = family;
  choice.how = FamilyChoice::How::kMeasured;
  double fastest = std::numeric_limits<double>::infinity();
  for (double ns : best) fastest = ns < fastest ? ns : fastest;
  for (size_t c = 0; c < candidates.size(); ++c) {
    choice.ns_per_op.emplace_back(candidates[c], best[c]);
    if (choice.target_bit == 0 && best[c] <= fastest * (1 + kTieFraction)) {
      choice.target_bit = candidates[c];
    }
  }
  choice.timing_us = ThreadCpuMicros() - start_cpu_us;
  return choice;
}

}  // namespace

const char* KernelFamilyName(KernelFamily family) {
  static constexpr const char* kNames[kNumKernelFamilies] = {
      "blocked_build",      "blocked_probe_one",   "blocked_probe_batch",
      "blocked_probe_each", "blocked_probe_pairs", "ribbon_probe_one",
      "ribbon_probe_batch", "ribbon_probe_each",   "ribbon_probe_pairs"};
  return kNames[static_cast<int>(family)];
}

int64_t AvailableTargetBits() {
  static const int64_t bits = hwy::SupportedTargets() & HWY_TARGETS;
  return bits;
}

size_t TableIndexOfTarget(int64_t bit) {
#if HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)
  (void)bit;
  return 0;  // One target compiled: HWY_EXPORT makes one-entry tables.
#else
  // What ChosenTarget::Update(bit) then GetIndex() give.
  const int64_t mask = (HWY_CHOSEN_TARGET_SHIFT(bit) | HWY_CHOSEN_TARGET_MASK_SCALAR) &
                       HWY_CHOSEN_TARGET_MASK_TARGETS;
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(static_cast<uint64_t>(mask));
#endif
}

void PinKernelTarget(int64_t bit) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.pinned_bit = bit;
  for (int64_t& pin : s.family_pin) pin = 0;
  ResetDecisions();
}

void PinFamilyTargetForTest(KernelFamily family, int64_t bit) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.family_pin[static_cast<int>(family)] = bit;
  ResetDecisions();
}

void ForgetTimingsForTest() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  for (bool& timed : s.timed) timed = false;
  ResetDecisions();
}

void SetChooseByMeasurement(bool on) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.measure = on ? 1 : 0;
  ResetDecisions();
}

namespace kernel_choice_detail {

size_t DecideIndex(KernelFamily family) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  const int f = static_cast<int>(family);
  int64_t bit;
  FamilyChoice::How how = FamilyChoice::How::kPinned;
  if (s.family_pin[f] != 0) {
    bit = s.family_pin[f];
  } else if (s.pinned_bit != 0) {
    bit = s.pinned_bit;
  } else if (!ChooseByMeasurement(s)) {
    bit = WidestTarget();
    how = FamilyChoice::How::kWidest;
  } else {
    if (!s.timed[f]) {
      s.measured[f] = TimeFamily(family);
      s.timed[f] = true;
    }
    bit = s.measured[f].target_bit;
    how = FamilyChoice::How::kMeasured;
  }
  s.decided_bit[f] = bit;
  s.decided_how[f] = how;
  const size_t index = TableIndexOfTarget(bit);
  g_index_plus_one[f].store(static_cast<uint8_t>(index + 1), std::memory_order_release);
  return index;
}

}  // namespace kernel_choice_detail

std::vector<FamilyChoice> KernelChoices() {
  std::vector<FamilyChoice> choices;
  for (int f = 0; f < kNumKernelFamilies; ++f) {
    const KernelFamily family = static_cast<KernelFamily>(f);
    KernelTableIndex(family);
    State& s = GetState();
    std::lock_guard<std::mutex> lock(s.mu);
    FamilyChoice choice;
    if (s.timed[f]) choice = s.measured[f];
    choice.family = family;
    choice.target_bit = s.decided_bit[f];
    choice.how = s.decided_how[f];
    choices.push_back(choice);
  }
  return choices;
}

}  // namespace internal
}  // namespace lsmbloom
