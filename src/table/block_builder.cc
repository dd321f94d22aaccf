#include "src/table/block_builder.h"

#include <algorithm>

#include "lsmbloom/filter/key_hash.h"
#include "src/table/data_block_hash_index.h"
#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

BlockBuilder::BlockBuilder(int restart_interval, bool hash_index)
    : restart_interval_(std::max(1, restart_interval)), hash_index_(hash_index) {
  Reset();
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  since_restart_ = 0;
  entries_ = 0;
  last_key_.clear();
  user_keys_.clear();
}

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (since_restart_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    since_restart_ = 0;
  }
  if (hash_index_ && key.size() >= 8) {
    const std::string_view user_key = key.substr(0, key.size() - 8);
    if (entries_ == 0 || std::string_view(last_key_).substr(0, last_key_.size() - 8) != user_key) {
      user_keys_.emplace_back(KeyHash(user_key), static_cast<uint32_t>(restarts_.size() - 1));
    }
  }
  PutVarint64(&buffer_, shared);
  PutVarint64(&buffer_, key.size() - shared);
  PutVarint64(&buffer_, value.size());
  buffer_.append(key.data() + shared, key.size() - shared);
  buffer_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++since_restart_;
  ++entries_;
}

std::string_view BlockBuilder::Finish() {
  for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
  uint32_t footer = static_cast<uint32_t>(restarts_.size());
  if (hash_index_ && !user_keys_.empty() && restarts_.size() <= kMaxIndexedRestarts) {
    const std::string buckets = BuildHashIndex(user_keys_);
    buffer_.append(buckets);
    const uint16_t count = static_cast<uint16_t>(buckets.size());
    buffer_.push_back(static_cast<char>(count & 0xff));
    buffer_.push_back(static_cast<char>(count >> 8));
    footer |= kHashIndexFlag;
  }
  PutFixed32(&buffer_, footer);
  return buffer_;
}

size_t BlockBuilder::SizeEstimate() const {
  const size_t index = hash_index_ ? HashIndexBuckets(user_keys_.size()) + 2 : 0;
  return buffer_.size() + 4 * restarts_.size() + index + 4;
}

}  // namespace internal
}  // namespace lsmbloom
