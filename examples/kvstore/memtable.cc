#include "memtable.h"

#include <utility>

namespace kvstore {
namespace {

// What an entry costs beyond its key and value: a map node (three
// pointers, colour, two std::string headers) and allocator rounding.
constexpr size_t kEntryOverhead = 96;

class MemTableIterator : public lsmbloom::TableIterator {
 public:
  explicit MemTableIterator(const MemTable::Map* map) : map_(map), it_(map->end()) {}

  bool Valid() const override { return it_ != map_->end(); }
  void SeekToFirst() override { it_ = map_->begin(); }
  void Seek(std::string_view user_key) override { it_ = map_->lower_bound(user_key); }
  void Next() override { ++it_; }
  lsmbloom::TableEntry entry() const override {
    return {it_->first, it_->second.sequence, it_->second.type, it_->second.value};
  }
  absl::Status status() const override { return absl::OkStatus(); }

 private:
  const MemTable::Map* map_;
  MemTable::Map::const_iterator it_;
};

}  // namespace

void MemTable::Add(std::string_view key, uint64_t sequence, lsmbloom::EntryType type,
                   std::string_view value) {
  auto it = map_.find(key);
  if (it == map_.end()) {
    it = map_.emplace(std::string(key), Entry()).first;
    bytes_ += key.size() + kEntryOverhead;
  } else {
    bytes_ -= it->second.value.size();
  }
  Entry& e = it->second;
  e.sequence = sequence;
  e.type = type;
  e.value.assign(value.data(), value.size());
  bytes_ += value.size();
}

const MemTable::Entry* MemTable::Find(std::string_view key) const {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

void MemTable::Clear() {
  map_.clear();
  bytes_ = 0;
}

std::unique_ptr<lsmbloom::TableIterator> MemTable::NewIterator() const {
  return std::make_unique<MemTableIterator>(&map_);
}

}  // namespace kvstore
