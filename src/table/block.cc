#include "src/table/block.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/table/data_block_hash_index.h"
#include "src/util/coding.h"
#include "src/util/prefetch.h"

namespace lsmbloom {
namespace internal {

bool Block::Locate(std::string_view data, bool may_have_hash_index, Layout* layout) {
  if (data.size() < 4) return false;
  const uint32_t count = DecodeFixed32(data.data() + data.size() - 4);
  size_t tail = 4;  // Bytes after the restart array.
  layout->count = count;
  layout->num_restarts = count & ~kHashIndexFlag;
  layout->buckets = nullptr;
  layout->num_buckets = 0;
  if ((count & kHashIndexFlag) != 0) {
    if (!may_have_hash_index || data.size() < 6) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 6);
    layout->num_buckets = p[0] | uint32_t{p[1]} << 8;
    tail = 6 + uint64_t{layout->num_buckets};
    if (layout->num_buckets == 0 || tail > data.size()) return false;
    layout->buckets = data.data() + data.size() - tail;
  }
  const uint64_t max_restarts = (data.size() - tail) / 4;
  if (layout->num_restarts == 0 || layout->num_restarts > max_restarts) return false;
  layout->restarts_offset = data.size() - tail - 4 * size_t{layout->num_restarts};
  return true;
}

absl::StatusOr<Block> Block::Parse(BlockContents contents, std::string_view what,
                                   bool may_have_hash_index) {
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
  Layout layout;
  if (!Locate(data, may_have_hash_index, &layout)) {
    const bool indexed = (layout.count & kHashIndexFlag) != 0 && may_have_hash_index;
    return absl::DataLossError(absl::StrCat(std::string(what), ": bad restart count ", layout.count,
                                            indexed ? " (or hash index size)" : ""));
  }
  if (layout.buckets != nullptr && layout.num_restarts > kMaxIndexedRestarts) {
    return absl::DataLossError(absl::StrCat(std::string(what), ": hash index over ",
                                            layout.num_restarts, " restarts"));
  }
  const uint32_t num_restarts = layout.num_restarts;
  const uint32_t restarts_offset = static_cast<uint32_t>(layout.restarts_offset);
  for (uint32_t i = 0; i < num_restarts; ++i) {
    if (DecodeFixed32(data.data() + restarts_offset + 4 * i) > restarts_offset) {
      return absl::DataLossError(
          absl::StrCat(std::string(what), ": restart point past the entries"));
    }
  }
  return Block(std::move(owned), data, restarts_offset, num_restarts, layout.buckets,
               layout.num_buckets, what);
}

int Block::HashLookup(uint64_t hash) const {
  const uint8_t bucket = static_cast<uint8_t>(buckets_[BucketOf(hash, num_buckets_)]);
  if (bucket < num_restarts_) return bucket;
  if (bucket == kBucketEmpty) return kNotInBlock;
  if (bucket == kBucketCollision) return kUseSearch;
  return kBadBucket;
}

void Block::PrefetchRestarts(const char* data, size_t entries_size, const char* restarts,
                             uint32_t num_restarts) {
  if (num_restarts > 16) return;  // Past a few, the binary search skips most.
  for (uint32_t i = 0; i < num_restarts; ++i) {
    const uint32_t offset = DecodeFixed32(restarts + 4 * i);
    if (offset < entries_size) PrefetchForRead(data + offset);
  }
}

void Block::PrefetchSearch(std::string_view contents, uint64_t user_key_hash) {
  Layout layout;
  // Unverified bytes: read an index wherever one is flagged (only loads follow).
  if (!Locate(contents, /*may_have_hash_index=*/true, &layout)) return;
  const char* restarts = contents.data() + layout.restarts_offset;
  const uint32_t restarts_offset = static_cast<uint32_t>(layout.restarts_offset);
  if (layout.buckets != nullptr) {
    const uint8_t bucket =
        static_cast<uint8_t>(layout.buckets[BucketOf(user_key_hash, layout.num_buckets)]);
    if (bucket == kBucketEmpty) return;
    if (bucket < layout.num_restarts) {
      const uint32_t from = DecodeFixed32(restarts + 4 * bucket);
      const uint32_t to = IntervalEnd(restarts, layout.num_restarts, restarts_offset, bucket);
      PrefetchSpan(contents.data(), from, std::min(to, restarts_offset));
      return;
    }
  }
  PrefetchRestarts(contents.data(), restarts_offset, restarts, layout.num_restarts);
}

std::optional<Block> Block::Reparse(std::string_view data, std::string_view what,
                                    bool may_have_hash_index) {
  Layout layout;
  if (data.size() > UINT32_MAX || !Locate(data, may_have_hash_index, &layout)) return std::nullopt;
  return Block(nullptr, data, static_cast<uint32_t>(layout.restarts_offset), layout.num_restarts,
               layout.buckets, layout.num_buckets, what);
}

Block Block::Share(std::shared_ptr<const Block> cached) {
  Block b(nullptr, cached->data_, cached->restarts_offset_, cached->num_restarts_,
          cached->buckets_, cached->num_buckets_, cached->what_);
  b.shared_ = std::move(cached);
  return b;
}

uint32_t Block::IntervalEnd(const char* restarts, uint32_t num_restarts, uint32_t restarts_offset,
                            uint32_t index) {
  return index + 1 < num_restarts ? DecodeFixed32(restarts + 4 * (index + 1)) : restarts_offset;
}

uint32_t Block::IntervalEnd(uint32_t index) const {
  return IntervalEnd(data_.data() + restarts_offset_, num_restarts_, restarts_offset_, index);
}

void Block::PrefetchSpan(const char* data, uint32_t from, uint32_t to) {
  for (uint32_t at = from; at < to && at - from < 2048; at += 64) PrefetchForRead(data + at);
}

uint32_t Block::RestartOffset(uint32_t index) const {
  return DecodeFixed32(data_.data() + restarts_offset_ + 4 * index);
}

Block::Iterator::Iterator(const Block* block, KeyComparator cmp) : block_(block), cmp_(cmp) {}

void Block::Iterator::MarkCorrupt() {
  valid_ = false;
  status_ = absl::DataLossError(absl::StrCat(std::string(block_->what_), ": corrupt entry"));
}

void Block::Iterator::KeyBuffer::Grow(size_t keep, size_t capacity) {
  capacity = std::max(2 * capacity_, capacity);
  std::unique_ptr<char[]> bigger(new char[capacity]);
  std::memcpy(bigger.get(), data(), keep);
  heap_ = std::move(bigger);
  capacity_ = capacity;
}

bool Block::Iterator::ParseAt(uint32_t offset) {
  if (offset >= block_->restarts_offset_) {
    valid_ = false;
    return false;
  }
  std::string_view in = block_->data_.substr(offset, block_->restarts_offset_ - offset);
  const size_t before = in.size();
  uint64_t shared, non_shared, value_size;
  if (in.size() >= 3 && ((in[0] | in[1] | in[2]) & 0x80) == 0) {
    // Three one-byte lengths, the common case.
    shared = static_cast<uint8_t>(in[0]);
    non_shared = static_cast<uint8_t>(in[1]);
    value_size = static_cast<uint8_t>(in[2]);
    in.remove_prefix(3);
  } else if (!GetVarint64(&in, &shared) || !GetVarint64(&in, &non_shared) ||
             !GetVarint64(&in, &value_size)) {
    MarkCorrupt();
    return false;
  }
  if (shared > key_.size() || non_shared > in.size() || value_size > in.size() - non_shared) {
    MarkCorrupt();
    return false;
  }
  key_.Rebuild(shared, in.data(), non_shared, in.size());
  shared_ = static_cast<uint32_t>(shared);
  delta_ = in.data();
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
  if (offset >= block_->restarts_offset_) {
    MarkCorrupt();  // (Parse rules this out; a reparsed block is not checked again.)
    return false;
  }
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

bool Block::Iterator::FindRestartBelow(std::string_view target, uint32_t* restart) {
  uint32_t lo = 0, hi = block_->num_restarts_ - 1;
  // A block out of cache: load every restart entry the search may compare
  // at once, rather than one miss after another (a 4 KiB block has a few).
  PrefetchRestarts(block_->data_.data(), block_->restarts_offset_,
                   block_->data_.data() + block_->restarts_offset_, block_->num_restarts_);
  // Restart keys are stored whole, so they are compared where they lie,
  // without a copy.
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    std::string_view restart_key;
    if (!RestartKey(mid, &restart_key)) return false;
    if (cmp_(restart_key, target) < 0) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  *restart = lo;
  return true;
}

void Block::Iterator::Seek(std::string_view target) {
  status_ = absl::OkStatus();
  uint32_t restart;
  if (!FindRestartBelow(target, &restart)) return;
  PrefetchInterval(restart);
  SeekToRestart(restart);
  while (valid_ && cmp_(key(), target) < 0) Next();
}

void Block::Iterator::SeekUserKey(std::string_view target, std::string_view user_key) {
  status_ = absl::OkStatus();
  uint32_t restart;
  if (!FindRestartBelow(target, &restart)) return;
  PrefetchInterval(restart);
  SeekToRestart(restart);
  ScanToUserKey(user_key, block_->restarts_offset_);
}

void Block::Iterator::SeekUserKeyInInterval(uint32_t restart, std::string_view user_key) {
  status_ = absl::OkStatus();
  PrefetchInterval(restart);
  SeekToRestart(restart);
  ScanToUserKey(user_key, block_->IntervalEnd(restart));
}

void Block::Iterator::ScanToUserKey(std::string_view user_key, uint32_t end) {
  // Each key is judged without a call per entry and without reading it back
  // from key_, where ParseAt has just copied it (a load over bytes just
  // stored may wait on the stores). `known` bytes of the previous user key,
  // which was below user_key, match user_key. An entry sharing more than
  // that with the previous key orders as it did; otherwise it is compared
  // from the first byte not known to match, its own bytes read where they
  // lie in the block.
  size_t known = 0, previous_user_size = 0;
  while (valid_) {
    if (key_.size() < 8) {
      MarkCorrupt();  // No room for the tag: not an internal key.
      return;
    }
    const size_t user_size = key_.size() - 8;
    bool below;
    if (shared_ > known && known < previous_user_size && known < user_size) {
      // Byte `known` is the previous key's, which was below user_key's there.
      below = true;
    } else {
      // Bytes [0, from) match. The rest, [from, user_size): the entry's own
      // bytes in the block when they start there, else (rarely) key_'s.
      const size_t from = std::min<size_t>({shared_, known, user_size});
      const std::string_view rest(from == shared_ ? delta_ : key_.data() + from, user_size - from);
      const std::string_view wanted = user_key.substr(from);
      const size_t common = CommonPrefixLength(rest, wanted);
      if (common == rest.size()) {
        below = common < wanted.size();  // A proper prefix orders first.
      } else {
        below = common < wanted.size() &&
                static_cast<uint8_t>(rest[common]) < static_cast<uint8_t>(wanted[common]);
      }
      known = from + common;
    }
    if (!below) return;
    previous_user_size = user_size;
    if (next_ >= end) {
      valid_ = false;  // The interval ends below user_key.
      return;
    }
    Next();
  }
}

void Block::Iterator::PrefetchInterval(uint32_t index) const {
  // The scan parses entries one after another: load the interval's lines
  // together first.
  PrefetchSpan(block_->data_.data(), block_->RestartOffset(index), block_->IntervalEnd(index));
}

}  // namespace internal
}  // namespace lsmbloom
