#include "src/table/block_builder.h"

#include <algorithm>

#include "src/util/coding.h"

namespace lsmbloom {
namespace internal {

BlockBuilder::BlockBuilder(int restart_interval)
    : restart_interval_(std::max(1, restart_interval)) {
  Reset();
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  since_restart_ = 0;
  entries_ = 0;
  last_key_.clear();
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
  PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
  return buffer_;
}

size_t BlockBuilder::SizeEstimate() const { return buffer_.size() + 4 * restarts_.size() + 4; }

}  // namespace internal
}  // namespace lsmbloom
