// The memtable: the newest entry of each key written since the last flush,
// sorted by key, and what it costs in memory. A flush writes it out in
// order as a level-0 table; scans read it through a TableIterator, the same
// interface as a table, so one merge serves both.

#ifndef KVSTORE_MEMTABLE_H_
#define KVSTORE_MEMTABLE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "lsmbloom/table/table.h"

namespace kvstore {

class MemTable {
 public:
  struct Entry {
    uint64_t sequence = 0;
    lsmbloom::EntryType type = lsmbloom::EntryType::kValue;
    std::string value;
  };
  using Map = std::map<std::string, Entry, std::less<>>;

  // Replaces any entry of `key`: only the newest matters without snapshots.
  void Add(std::string_view key, uint64_t sequence, lsmbloom::EntryType type,
           std::string_view value);
  // The entry of `key`, or null.
  const Entry* Find(std::string_view key) const;

  // About what the entries cost in memory: keys, values and a fixed
  // overhead per entry for the map node and header.
  size_t ApproximateBytes() const { return bytes_; }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  void Clear();

  const Map& entries() const { return map_; }
  // Valid while the memtable is not changed.
  std::unique_ptr<lsmbloom::TableIterator> NewIterator() const;

 private:
  Map map_;
  size_t bytes_ = 0;
};

}  // namespace kvstore

#endif  // KVSTORE_MEMTABLE_H_
