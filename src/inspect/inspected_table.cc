// InspectedTable and FilterView: a table opened with what it takes to look
// at its filter.

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lsmbloom/filter/key_hash.h"
#include "lsmbloom/filter/ribbon_policy.h"
#include "lsmbloom/inspect/inspect.h"
#include "src/table/block.h"
#include "src/table/format.h"
#include "src/table/table_inspection.h"

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

// Every property as recorded, read from the block again: Table keeps the
// typed form only.
absl::StatusOr<std::map<std::string, std::string>> ReadRecordedProperties(const Table& table) {
  const TableLayout& layout = internal::TableInspection::Layout(table);
  absl::StatusOr<internal::BlockContents> c = internal::ReadBlock(
      internal::TableInspection::File(table), internal::HandleOf(layout.properties), internal::BlockKind::kProperties,
      internal::TableInspection::Context(table), /*verify_checksum=*/true);
  if (!c.ok()) return c.status();
  absl::StatusOr<internal::Block> block = internal::Block::Parse(std::move(*c), "properties block");
  if (!block.ok()) return block.status();
  std::map<std::string, std::string> recorded;
  internal::Block::Iterator it(&*block, internal::CompareBytes);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    recorded.emplace(std::string(it.key()), std::string(it.value()));
  }
  if (!it.status().ok()) return it.status();
  return recorded;
}

}  // namespace

void InspectedTable::LoadFilterView() {
  auto f = std::make_unique<FilterView>();
  const Table& table = *table_;
  const TableProperties& props = table.properties();
  f->policy_ = props.filter_policy;
  f->status_ = table.filter_status();
  f->whole_keys_ = props.filter_whole_key;
  f->prefix_extractor_ = props.filter_prefix_extractor;
  f->prefixes_reproducible_ = prefix_extractor_ != nullptr;
  f->size_ = props.filter_size;
  f->keys_added_ = props.filter_keys_added;
  if (!f->status_.ok()) {
    filter_ = std::move(f);
    return;
  }
  const std::string_view bytes = internal::TableInspection::FilterBytes(table);
  f->reader_ = table.whole_key_filter();
  if (f->reader_ == nullptr) {  // Prefixes only: open the same bytes.
    std::shared_ptr<const FilterPolicy> policy = BuiltinFilterPolicy(f->policy_);
    if (policy != nullptr) {
      absl::StatusOr<std::unique_ptr<FilterReader>> r = policy->NewReader(bytes);
      if (r.ok()) f->own_reader_ = std::move(*r);
      f->reader_ = f->own_reader_.get();
    }
  }
  if (f->policy_ == kBlockedBloomPolicyName) {
    absl::StatusOr<BlockedBloomReader> blocked = BlockedBloomReader::Open(bytes);
    if (blocked.ok()) f->blocked_ = *blocked;
  } else if (f->policy_ == kRibbonPolicyName) {
    absl::StatusOr<RibbonReader> ribbon = RibbonReader::Open(bytes);
    if (ribbon.ok()) {
      f->ribbon_ = *std::move(ribbon);
    } else {
      // The Ribbon builder's blocked Bloom fallback (ribbon_options.h,
      // max_construction_bytes), which the policy's reader opened.
      absl::StatusOr<BlockedBloomReader> blocked = BlockedBloomReader::Open(bytes);
      if (blocked.ok()) f->blocked_ = *blocked;
    }
  }
  filter_ = std::move(f);
}

std::shared_ptr<const FilterPolicy> BuiltinFilterPolicy(std::string_view name) {
  for (auto policy : BuiltinFilterPolicies()) {
    if (policy->Name() == name) return policy;
  }
  return nullptr;
}

std::shared_ptr<const PrefixExtractor> BuiltinPrefixExtractor(std::string_view name) {
  // The fixed-prefix extractors are the built-in ones: their names end in
  // the length, and the extractor of that length must name itself so.
  const size_t dot = name.rfind('.');
  size_t length;
  if (dot == std::string_view::npos ||
      !absl::SimpleAtoi(absl::string_view(name.data() + dot + 1, name.size() - dot - 1), &length)) {
    return nullptr;
  }
  absl::StatusOr<std::shared_ptr<const PrefixExtractor>> e = NewFixedPrefixExtractor(length);
  return e.ok() && (*e)->Name() == name ? *e : nullptr;
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
  return blocked_->BlockOfHash(hash);
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
  t.prefix_extractor_ = BuiltinPrefixExtractor((*table)->properties().filter_prefix_extractor);
  if (t.prefix_extractor_ != nullptr) {
    // Again, now with the extractor, so the table answers prefix queries.
    TableReadOptions options;
    options.prefix_extractors.push_back(t.prefix_extractor_);
    table = OpenTable(path, options);
    if (!table.ok()) return table.status();
  }
  t.table_ = std::move(*table);
  absl::StatusOr<std::map<std::string, std::string>> recorded = ReadRecordedProperties(*t.table_);
  if (!recorded.ok()) return recorded.status();
  t.recorded_properties_ = *std::move(recorded);
  t.LoadFilterView();
  return t;
}

}  // namespace lsmbloom
