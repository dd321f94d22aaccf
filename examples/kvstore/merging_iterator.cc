#include "merging_iterator.h"

#include <algorithm>

namespace kvstore {

MergingIterator::MergingIterator(std::vector<std::unique_ptr<lsmbloom::TableIterator>> children)
    : children_(std::move(children)) {}

bool MergingIterator::After(size_t a, size_t b) const {
  const lsmbloom::TableEntry x = children_[a]->entry();
  const lsmbloom::TableEntry y = children_[b]->entry();
  if (x.user_key != y.user_key) return x.user_key > y.user_key;
  return x.sequence < y.sequence;  // Newer (higher) sequence first.
}

void MergingIterator::Push(size_t child) {
  if (!children_[child]->Valid()) return;
  heap_.push_back(child);
  std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return After(a, b); });
}

void MergingIterator::SeekToFirst() {
  heap_.clear();
  for (size_t i = 0; i < children_.size(); ++i) {
    children_[i]->SeekToFirst();
    Push(i);
  }
}

void MergingIterator::Seek(std::string_view user_key) {
  heap_.clear();
  for (size_t i = 0; i < children_.size(); ++i) {
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

absl::Status MergingIterator::status() const {
  for (const auto& child : children_) {
    if (!child->status().ok()) return child->status();
  }
  return absl::OkStatus();
}

}  // namespace kvstore
