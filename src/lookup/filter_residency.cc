#include "src/lookup/filter_residency.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <queue>
#include <utility>

#include "lsmbloom/filter/modular_bloom.h"
#include "lsmbloom/table/table.h"

namespace lsmbloom {
namespace internal {

std::vector<int> ChooseModules(const std::vector<ModularFile>& files, uint64_t fixed_bytes,
                               uint64_t cap_bytes) {
  std::vector<int> held(files.size(), 1);
  if (fixed_bytes >= cap_bytes) return held;
  uint64_t left = cap_bytes - fixed_bytes;
  // The FPR of each file's held modules, and the next module's gain per
  // byte: w * FPR_held * (1 - FPR_next) / bytes_next.
  std::vector<double> fpr(files.size());
  struct Next {
    double gain;
    size_t file;
    bool operator<(const Next& o) const { return gain < o.gain; }
  };
  std::priority_queue<Next> queue;
  const auto push = [&](size_t f) {
    const ModularFile& file = files[f];
    const size_t m = static_cast<size_t>(held[f]);
    if (m >= file.module_fpr.size() || file.worth <= 0) return;
    const double gain =
        file.worth * fpr[f] * (1 - file.module_fpr[m]) / static_cast<double>(file.module_bytes[m - 1]);
    queue.push({gain, f});
  };
  for (size_t f = 0; f < files.size(); ++f) {
    fpr[f] = files[f].module_fpr.empty() ? 1 : files[f].module_fpr[0];
    push(f);
  }
  while (!queue.empty()) {
    const size_t f = queue.top().file;
    queue.pop();
    const size_t m = static_cast<size_t>(held[f]);
    const uint64_t bytes = files[f].module_bytes[m - 1];
    if (bytes > left) continue;  // The file's later modules are no smaller.
    left -= bytes;
    fpr[f] *= files[f].module_fpr[m];
    ++held[f];
    push(f);
  }
  return held;
}

namespace {

// Whether a file's modules 1.. share one geometry: held interleaved.
bool Interleavable(const ModularBloomHeader& h) {
  if (h.modules.size() < 2 || h.modules[1].num_blocks == 0) return false;
  for (size_t m = 2; m < h.modules.size(); ++m) {
    if (h.modules[m].num_blocks != h.modules[1].num_blocks) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<HeldModules> Hold(const ModularBloomHeader& header, const HeldModules* had,
                                  const std::vector<std::shared_ptr<const FilterModule>>& read,
                                  size_t n) {
  auto held = std::make_shared<HeldModules>();
  const size_t have = had == nullptr ? 0 : had->count();
  if (Interleavable(header)) {
    const uint64_t blocks = header.modules[1].num_blocks;
    const size_t bytes = static_cast<size_t>(blocks * n * 64);
    held->interleaved_bytes.reset(static_cast<uint8_t*>(std::aligned_alloc(64, bytes)));
    if (held->interleaved_bytes == nullptr) return nullptr;
    uint8_t* out = held->interleaved_bytes.get();
    for (uint64_t b = 0; b < blocks; ++b) {
      for (size_t i = 0; i < n; ++i) {
        const uint8_t* from = i < have ? had->InterleavedBlock(b, i)
                                       : read[i - have]->view().bits + b * 64;
        std::memcpy(out + (b * n + i) * 64, from, 64);
      }
    }
    held->interleaved = out;
    held->num_blocks = blocks;
    held->bytes = bytes;
  } else {
    for (size_t i = 0; i < n; ++i) {
      const std::shared_ptr<const FilterModule>& module =
          i < have ? had->modules[i] : read[i - have];
      held->views.push_back(module->view());
      held->bytes += module->memory();
      held->modules.push_back(module);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const FilterModuleInfo& info = header.modules[i + 1];
    held->infos.push_back(info);
    held->fpr *= info.predicted_fpr;
    if (header.num_keys != 0) {
      held->bits_per_key += 512.0 * static_cast<double>(info.num_blocks) /
                            static_cast<double>(header.num_keys);
    }
  }
  return held;
}

void FilterResidency::Rebalance(const Version& current, Version* next) {
  // 1. What lookups counted on the current version, the older counts
  // halved so that the worths follow a workload that changes.
  std::unordered_map<uint64_t, double> observed;
  for (const auto& level : current.meta) {
    for (const FileMeta& m : level) {
      if (m.accesses == nullptr) continue;
      auto it = observed_.find(m.file_number);
      const double before = it == observed_.end() ? 0 : it->second / 2;
      observed[m.file_number] = before + static_cast<double>(m.accesses->load(std::memory_order_relaxed));
    }
  }
  observed_ = std::move(observed);

  // 2. The files of `next` whose modular filter lookups consult.
  struct Candidate {
    int level;
    const TableFile* file;
    const ModularBloomHeader* header;
  };
  std::vector<Candidate> candidates;
  uint64_t fixed_bytes = 0;
  std::array<uint64_t, kNumLevels> level_keys{};
  for (int level = 0; level < kNumLevels; ++level) {
    const bool consulted =
        options_.use_filters &&
        !(options_.skip_last_level_filters && level == next->last_nonempty_level);
    for (const TableFile& f : next->levels[level]) {
      fixed_bytes += f.table->filter_memory();
      level_keys[level] += f.table->num_entries();
      const ModularBloomHeader* header = f.table->filter_modules();
      if (consulted && header != nullptr) candidates.push_back({level, &f, header});
    }
  }
  next->held.clear();
  if (candidates.empty()) return;

  // 3. How many modules each holds.
  std::vector<int> want(candidates.size());
  if (options_.filter_memory_cap_bytes == 0) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      want[i] = static_cast<int>(candidates[i].header->modules.size());
    }
  } else {
    // The prior: a uniform workload's checks, scaled to a small share of
    // the counted ones so that a file never counted still ranks by it.
    std::array<double, kNumLevels> counted{};
    for (const Candidate& c : candidates) {
      auto it = observed_.find(c.file->file_number);
      if (it != observed_.end()) counted[c.level] += it->second;
    }
    const double most = *std::max_element(counted.begin(), counted.end());
    const bool by_access =
        options_.filter_allocation == LookupOptions::FilterAllocation::kObservedAccess && most > 0;
    std::vector<ModularFile> files(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& c = candidates[i];
      ModularFile& f = files[i];
      for (size_t m = 0; m < c.header->modules.size(); ++m) {
        f.module_fpr.push_back(c.header->modules[m].predicted_fpr);
        if (m > 0) f.module_bytes.push_back(c.header->modules[m].size);
      }
      const double share =
          c.level == 0 ? 1.0
                       : static_cast<double>(c.file->table->num_entries()) /
                             static_cast<double>(std::max<uint64_t>(1, level_keys[c.level]));
      if (by_access) {
        auto it = observed_.find(c.file->file_number);
        f.worth = (it == observed_.end() ? 0 : it->second) + 0.01 * most * share;
      } else {
        f.worth = share;
      }
    }
    want = ChooseModules(files, fixed_bytes, options_.filter_memory_cap_bytes);
  }

  // 4. Keep what `current` held and `next` still wants; read the rest.
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    LevelCounters& counts = counters_[c.level];
    const size_t extra = static_cast<size_t>(want[i] - 1);
    std::shared_ptr<const HeldModules> had;
    auto it = current.held.find(c.file->file_number);
    // Only the same table's: `current` keeps an older table alive, so no
    // other table has its address.
    if (it != current.held.end() && it->second->table == c.file->table.get()) had = it->second;
    const size_t have = had == nullptr ? 0 : had->count();
    if (have == extra) {
      if (had != nullptr) next->held[c.file->file_number] = had;
      continue;
    }
    // Modules have .. extra - 1 (module numbers have + 1 ..) from the file.
    std::vector<std::shared_ptr<const FilterModule>> read;
    size_t usable = extra;
    for (size_t m = have; m < extra; ++m) {
      absl::StatusOr<std::shared_ptr<const FilterModule>> module =
          c.file->table->ReadFilterModule(static_cast<int>(m) + 1);
      if (!module.ok()) {
        // Unread, the module's keys are "maybe": never a wrong "no".
        counts.load_errors.fetch_add(1, std::memory_order_relaxed);
        usable = m;
        break;
      }
      counts.loads.fetch_add(1, std::memory_order_relaxed);
      counts.load_bytes.fetch_add((*module)->memory(), std::memory_order_relaxed);
      read.push_back(*std::move(module));
    }
    const size_t n = std::min(usable, extra);
    if (have > n) counts.evictions.fetch_add(have - n, std::memory_order_relaxed);
    if (n == 0) continue;
    std::shared_ptr<HeldModules> held = Hold(*c.header, had.get(), read, n);
    if (held == nullptr) continue;  // Out of memory for the copy: module 0 alone.
    held->table = c.file->table.get();
    next->held[c.file->file_number] = std::move(held);
  }
}

void FilterResidency::AddStats(const Version& v, LookupStats* stats) const {
  for (int level = 0; level < kNumLevels; ++level) {
    LevelStats& l = stats->levels[level];
    const LevelCounters& c = counters_[level];
    l.filter_module_loads = c.loads.load(std::memory_order_relaxed);
    l.filter_module_load_bytes = c.load_bytes.load(std::memory_order_relaxed);
    l.filter_module_evictions = c.evictions.load(std::memory_order_relaxed);
    l.filter_module_load_errors = c.load_errors.load(std::memory_order_relaxed);
    for (const FileMeta& m : v.meta[level]) {
      if (m.accesses != nullptr) ++l.filter_modules_held;
      auto it = v.held.find(m.file_number);
      if (it == v.held.end()) continue;
      l.filter_modules_held += it->second->count();
      l.filter_module_bytes += it->second->bytes;
    }
  }
}

void FilterResidency::ResetStats() {
  for (LevelCounters& c : counters_) {
    c.loads.store(0);
    c.load_bytes.store(0);
    c.evictions.store(0);
    c.load_errors.store(0);
  }
}

}  // namespace internal
}  // namespace lsmbloom
