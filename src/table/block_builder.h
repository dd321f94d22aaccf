// Builds one block of sorted key/value entries.
//
// Each entry stores how many bytes its key shares with the previous key,
// then the rest: varint shared, varint non_shared, varint value_size,
// key[shared..], value. Every `restart_interval` entries the key is stored
// whole (a restart point) so a reader can binary-search the restarts. The
// block ends with the restart offsets (fixed32 each) and their count.
//
// With a hash index (data blocks of table format 3, docs/FORMAT.md), the
// keys are internal keys, and between the restart offsets and the count
// come one byte per bucket, naming the restart interval holding the first
// entry of the user keys that hash there, and the bucket count (fixed16);
// the count's top bit says the index is there.

#ifndef LSMBLOOM_SRC_TABLE_BLOCK_BUILDER_H_
#define LSMBLOOM_SRC_TABLE_BLOCK_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lsmbloom {
namespace internal {

class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval, bool hash_index = false);

  // REQUIRES: key sorts after the previous key of this block.
  void Add(std::string_view key, std::string_view value);
  // The finished block; valid until Reset().
  std::string_view Finish();
  void Reset();

  size_t SizeEstimate() const;
  bool empty() const { return entries_ == 0; }

 private:
  const int restart_interval_;
  const bool hash_index_;
  std::string buffer_;
  // Per user key, in order: its hash and the restart interval of its first
  // entry (hash index only).
  std::vector<std::pair<uint64_t, uint32_t>> user_keys_;
  std::vector<uint32_t> restarts_;
  int since_restart_ = 0;
  size_t entries_ = 0;
  std::string last_key_;
};

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_TABLE_BLOCK_BUILDER_H_
