// InspectedTable and FilterView: a table opened with what it takes to look
// at its filter.

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/inspect/inspect.h"

namespace lsmbloom {

namespace {

// OpenPosixFile's messages start with the path; callers print it anyway.
absl::Status WithoutPath(const absl::Status& status, const std::string& path) {
  std::string_view message(status.message().data(), status.message().size());
  const std::string prefix = path + ": ";
  if (message.substr(0, prefix.size()) == prefix) message.remove_prefix(prefix.size());
  return absl::Status(status.code(), std::string(message));
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenFile(const std::string& path) {
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenPosixFile(path);
  if (!file.ok()) return WithoutPath(file.status(), path);
  return file;
}

absl::StatusOr<std::unique_ptr<Table>> OpenTable(const std::string& path,
                                                 const TableReadOptions& options) {
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenFile(path);
  if (!file.ok()) return file.status();
  return Table::Open(std::move(*file), options);
}

}  // namespace

std::shared_ptr<const FilterPolicy> BuiltinFilterPolicy(std::string_view name) {
  for (auto policy : {NewBlockedBloomPolicy(), NewClassicBloomPolicy()}) {
    if (policy->Name() == name) return policy;
  }
  return nullptr;
}

std::shared_ptr<const PrefixExtractor> BuiltinPrefixExtractor(std::string_view name) {
  constexpr std::string_view kFixed = "lsmbloom.FixedPrefix.";
  size_t length;
  if (name.substr(0, kFixed.size()) != kFixed ||
      !absl::SimpleAtoi(absl::string_view(name.data() + kFixed.size(),
                                          name.size() - kFixed.size()),
                        &length)) {
    return nullptr;
  }
  return NewFixedPrefixExtractor(length);
}

bool FilterView::damaged() const {
  switch (status_.code()) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kNotFound:         // No filter.
    case absl::StatusCode::kUnimplemented:    // A policy this build lacks.
    case absl::StatusCode::kInvalidArgument:  // A newer version or hash.
      return false;
    default:
      return true;
  }
}

uint64_t FilterView::BlockOfHash(uint64_t hash) const {
  return ((hash >> 32) * blocked_->geometry().num_blocks) >> 32;  // docs/FORMAT.md
}

uint64_t FilterView::BlockOfKey(std::string_view key) const {
  return BlockOfHash(KeyHash(key, blocked_->geometry().hash));
}

int FilterView::BitsSetInBlock(uint64_t b) const {
  const std::string_view bits = blocked_->bits().substr(b * 64, 64);
  int n = 0;
  for (size_t i = 0; i < bits.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bits.data() + i, 8);
    n += __builtin_popcountll(word);
  }
  return n;
}

absl::StatusOr<InspectedTable> InspectedTable::Open(const std::string& path) {
  InspectedTable t;
  absl::StatusOr<std::unique_ptr<Table>> table = OpenTable(path, TableReadOptions());
  if (!table.ok()) return table.status();
  auto recorded = [&](const char* name) {
    auto it = (*table)->properties().find(name);
    return it == (*table)->properties().end() ? std::string() : it->second;
  };
  t.prefix_extractor_ = BuiltinPrefixExtractor(recorded("lsmbloom.filter.prefix_extractor"));
  if (t.prefix_extractor_ != nullptr) {
    // Again, now with the extractor, so the table answers prefix queries.
    TableReadOptions options;
    options.prefix_extractors.push_back(t.prefix_extractor_);
    table = OpenTable(path, options);
    if (!table.ok()) return table.status();
  }
  t.table_ = std::move(*table);
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file = OpenFile(path);
  if (!file.ok()) return file.status();
  t.file_ = std::move(*file);

  auto f = std::make_unique<FilterView>();
  const Table& tab = *t.table_;
  f->policy_ = t.Property("lsmbloom.filter.policy");
  f->status_ = tab.filter_status();
  f->whole_keys_ = t.Property("lsmbloom.filter.whole_key") == "1";
  f->prefix_extractor_ = t.Property("lsmbloom.filter.prefix_extractor");
  f->prefixes_reproducible_ = t.prefix_extractor_ != nullptr;
  f->size_ = t.PropertyUint("lsmbloom.filter.size");
  f->keys_added_ = t.PropertyUint("lsmbloom.filter.keys_added");
  if (f->status_.ok()) {
    f->reader_ = tab.whole_key_filter();
    if (f->reader_ == nullptr) {  // Prefixes only: open the same bytes.
      std::shared_ptr<const FilterPolicy> policy = BuiltinFilterPolicy(f->policy_);
      if (policy != nullptr) {
        absl::StatusOr<std::unique_ptr<FilterReader>> r = policy->NewReader(tab.filter_bytes());
        if (r.ok()) f->own_reader_ = std::move(*r);
        f->reader_ = f->own_reader_.get();
      }
    }
    if (f->policy_ == kBlockedBloomPolicyName) {
      const std::string_view bytes = tab.filter_bytes();
      absl::StatusOr<BlockedBloomReader> blocked = BlockedBloomReader::Open(bytes);
      if (blocked.ok()) {
        f->blocked_ = *blocked;
        f->blocked_format_version_ = static_cast<uint8_t>(bytes[4]);  // docs/FORMAT.md
      }
    }
  }
  t.filter_ = std::move(f);
  return t;
}

std::string InspectedTable::Property(std::string_view name) const {
  auto it = table_->properties().find(std::string(name));
  return it == table_->properties().end() ? std::string() : it->second;
}

uint64_t InspectedTable::PropertyUint(std::string_view name) const {
  uint64_t v = 0;
  if (!absl::SimpleAtoi(Property(name), &v)) return 0;
  return v;
}

}  // namespace lsmbloom
