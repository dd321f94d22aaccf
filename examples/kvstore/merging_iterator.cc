#include "merging_iterator.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kvstore {

MergingIterator::MergingIterator(std::vector<std::unique_ptr<lsmbloom::TableIterator>> children,
                                 std::vector<std::string> names)
    : children_(std::move(children)), names_(std::move(names)) {
  names_.resize(children_.size());
}

bool MergingIterator::After(size_t a, size_t b) const {
  const lsmbloom::TableEntry x = children_[a]->entry();
  const lsmbloom::TableEntry y = children_[b]->entry();
  if (x.user_key != y.user_key) return x.user_key > y.user_key;
  return x.sequence < y.sequence;  // Newer (higher) sequence first.
}

absl::Status MergingIterator::Named(size_t child) const {
  const absl::Status& s = children_[child]->status();
  return absl::Status(s.code(), absl::StrCat(names_[child], ": ", s.message()));
}

void MergingIterator::Push(size_t child) {
  if (!status_.ok()) return;
  lsmbloom::TableIterator& it = *children_[child];
  while (!it.Valid() && !it.status().ok()) {
    const absl::Status error = Named(child);
    if (report_damaged_ == nullptr || !it.SkipDamagedBlock()) {
      // Whatever this child still held is unknown: yielding the others'
      // entries past this point would make a listing with a silent gap.
      status_ = error;
      heap_.clear();
      return;
    }
    report_damaged_(error);
  }
  if (!it.Valid()) return;
  heap_.push_back(child);
  std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return After(a, b); });
}

void MergingIterator::SeekToFirst() {
  heap_.clear();
  status_ = absl::OkStatus();
  for (size_t i = 0; i < children_.size() && status_.ok(); ++i) {
    children_[i]->SeekToFirst();
    Push(i);
  }
}

void MergingIterator::Seek(std::string_view user_key) {
  heap_.clear();
  status_ = absl::OkStatus();
  for (size_t i = 0; i < children_.size() && status_.ok(); ++i) {
    children_[i]->Seek(user_key);
    Push(i);
  }
}

void MergingIterator::Next() {
  std::pop_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return After(a, b); });
  const size_t child = heap_.back();
  heap_.pop_back();
  children_[child]->Next();
  Push(child);
}

lsmbloom::TableEntry MergingIterator::entry() const { return children_[heap_.front()]->entry(); }

}  // namespace kvstore
