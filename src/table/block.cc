#include "src/table/block.h"

#include "absl/strings/str_cat.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

int CompareBytes(std::string_view a, std::string_view b) { return a.compare(b); }

absl::StatusOr<Block> Block::Parse(BlockContents contents, std::string_view what) {
  // Own the bytes first, so the view below points at their final home.
  std::unique_ptr<std::string> owned;
  std::string_view data = contents.mapped;
  if (contents.is_owned) {
    owned = std::make_unique<std::string>(std::move(contents.owned));
    data = *owned;
  }
  if (data.size() > UINT32_MAX) {
    return absl::DataLossError(absl::StrCat(std::string(what), ": block over 4 GiB"));
  }
  if (data.size() < 4) {
    return absl::DataLossError(absl::StrCat(std::string(what), ": block too short"));
  }
  const uint32_t num_restarts = DecodeFixed32(data.data() + data.size() - 4);
  const uint64_t max_restarts = (data.size() - 4) / 4;
  if (num_restarts == 0 || num_restarts > max_restarts) {
    return absl::DataLossError(
        absl::StrCat(std::string(what), ": bad restart count ", num_restarts));
  }
  const uint32_t restarts_offset =
      static_cast<uint32_t>(data.size() - 4 - 4 * uint64_t{num_restarts});
  for (uint32_t i = 0; i < num_restarts; ++i) {
    if (DecodeFixed32(data.data() + restarts_offset + 4 * i) > restarts_offset) {
      return absl::DataLossError(
          absl::StrCat(std::string(what), ": restart point past the entries"));
    }
  }
  return Block(std::move(owned), data, restarts_offset, num_restarts, std::string(what));
}

void Block::PrefetchRestarts(const char* data, size_t entries_size, const char* restarts,
                             uint32_t num_restarts) {
  if (num_restarts > 16) return;  // Past a few, the binary search skips most.
  for (uint32_t i = 0; i < num_restarts; ++i) {
    const uint32_t offset = DecodeFixed32(restarts + 4 * i);
    if (offset < entries_size) __builtin_prefetch(data + offset);
  }
}

void Block::PrefetchRestartEntries(std::string_view contents) {
  if (contents.size() < 4) return;
  const uint32_t num_restarts = DecodeFixed32(contents.data() + contents.size() - 4);
  if (4 * uint64_t{num_restarts} > contents.size() - 4) return;
  const size_t entries_size = contents.size() - 4 - 4 * size_t{num_restarts};
  PrefetchRestarts(contents.data(), entries_size, contents.data() + entries_size, num_restarts);
}

uint32_t Block::RestartOffset(uint32_t index) const {
  return DecodeFixed32(data_.data() + restarts_offset_ + 4 * index);
}

Block::Iterator::Iterator(const Block* block, KeyComparator cmp) : block_(block), cmp_(cmp) {}

void Block::Iterator::MarkCorrupt() {
  valid_ = false;
  status_ = absl::DataLossError(absl::StrCat(block_->what_, ": corrupt entry"));
}

bool Block::Iterator::ParseAt(uint32_t offset) {
  if (offset >= block_->restarts_offset_) {
    valid_ = false;
    return false;
  }
  std::string_view in = block_->data_.substr(offset, block_->restarts_offset_ - offset);
  const size_t before = in.size();
  uint64_t shared, non_shared, value_size;
  if (!GetVarint64(&in, &shared) || !GetVarint64(&in, &non_shared) ||
      !GetVarint64(&in, &value_size) || shared > key_.size() || non_shared > in.size() ||
      value_size > in.size() - non_shared) {
    MarkCorrupt();
    return false;
  }
  key_.resize(shared);
  key_.insert(key_.end(), in.data(), in.data() + non_shared);
  value_ = in.substr(non_shared, value_size);
  next_ = offset + static_cast<uint32_t>(before - in.size() + non_shared + value_size);
  valid_ = true;
  return true;
}

void Block::Iterator::SeekToRestart(uint32_t index) {
  key_.clear();  // Restart entries share nothing.
  ParseAt(block_->RestartOffset(index));
}

void Block::Iterator::SeekToFirst() {
  status_ = absl::OkStatus();
  SeekToRestart(0);
}

void Block::Iterator::Next() {
  if (valid_) ParseAt(next_);
}

bool Block::Iterator::RestartKey(uint32_t index, std::string_view* key) {
  const uint32_t offset = block_->RestartOffset(index);
  std::string_view in = block_->data_.substr(offset, block_->restarts_offset_ - offset);
  uint64_t shared, non_shared, value_size;
  if (!GetVarint64(&in, &shared) || !GetVarint64(&in, &non_shared) ||
      !GetVarint64(&in, &value_size) || shared != 0 || non_shared > in.size()) {
    MarkCorrupt();  // A restart must hold an entry with a whole key.
    return false;
  }
  *key = in.substr(0, non_shared);
  return true;
}

void Block::Iterator::Seek(std::string_view target) {
  status_ = absl::OkStatus();
  uint32_t lo = 0, hi = block_->num_restarts_ - 1;
  // A block out of cache: load every restart entry the search may compare
  // at once, rather than one miss after another (a 4 KiB block has a few).
  PrefetchRestarts(block_->data_.data(), block_->restarts_offset_,
                   block_->data_.data() + block_->restarts_offset_, block_->num_restarts_);
  // Binary search for the last restart whose key is < target. Restart keys
  // are stored whole, so they are compared where they lie, without a copy.
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    std::string_view restart_key;
    if (!RestartKey(mid, &restart_key)) return;
    if (cmp_(restart_key, target) < 0) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  // The scan below parses entries one after another: load the interval's
  // lines together first.
  const char* from = block_->data_.data() + block_->RestartOffset(lo);
  const char* to = block_->data_.data() + (lo + 1 < block_->num_restarts_
                                               ? block_->RestartOffset(lo + 1)
                                               : block_->restarts_offset_);
  for (const char* line = from + 64; line < to && line < from + 2048; line += 64) {
    __builtin_prefetch(line);
  }
  SeekToRestart(lo);
  while (valid_ && cmp_(key(), target) < 0) Next();
}

}  // namespace internal
}  // namespace lsmbloom
