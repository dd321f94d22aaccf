// Table::NewIterator: a two-level iterator, over the index and then each
// data block it names, that stops at the first damaged block (and can be
// asked to skip it, for salvage).

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "lsmbloom/table/table.h"
#include "src/table/block.h"
#include "src/table/format.h"
#include "src/table/table_rep.h"

namespace lsmbloom {

using internal::Block;
using internal::BlockHandle;

namespace {

class TwoLevelIterator : public TableIterator {
 public:
  TwoLevelIterator(const Block* index,
                   std::function<absl::StatusOr<std::unique_ptr<Block>>(const BlockHandle&)> read)
      : index_(index, internal::CompareInternalKeys), read_(std::move(read)) {}

  bool Valid() const override { return data_ != nullptr && data_->Valid(); }

  void SeekToFirst() override {
    index_.SeekToFirst();
    LoadBlock();
    if (data_ != nullptr) data_->SeekToFirst();
    SkipEmpty();
  }

  void Seek(std::string_view user_key) override {
    const std::string target = internal::SeekKey(user_key);
    index_.Seek(target);
    LoadBlock();
    if (data_ != nullptr) data_->Seek(target);
    SkipEmpty();
  }

  void Next() override {
    if (!Valid()) return;
    data_->Next();
    SkipEmpty();
  }

  TableEntry entry() const override {
    internal::ParsedInternalKey parsed;
    internal::ParseInternalKey(data_->key(), &parsed);
    return TableEntry{parsed.user_key, parsed.sequence, parsed.type, data_->value()};
  }

  absl::Status status() const override { return status_; }

  bool SkipDamagedBlock() override {
    if (status_.ok() || !data_block_damaged_) return false;
    status_ = absl::OkStatus();
    data_block_damaged_ = false;
    index_.Next();
    LoadBlock();
    if (data_ != nullptr) data_->SeekToFirst();
    SkipEmpty();
    return true;
  }

 private:
  // Every data block error names the block's offset, read or parse error.
  void FailDataBlock(const absl::Status& status) {
    status_ = status.message().find("offset ") != std::string_view::npos
                  ? status
                  : absl::Status(status.code(), absl::StrCat("data block at offset ", block_offset_,
                                                             ": ", status.message()));
    data_block_damaged_ = true;
    data_.reset();
  }

  void LoadBlock() {
    data_.reset();
    block_.reset();
    if (!status_.ok()) return;
    if (!index_.Valid()) {
      status_ = index_.status();
      return;
    }
    std::string_view v = index_.value();
    BlockHandle h;
    if (!h.DecodeFrom(&v)) {
      status_ = absl::DataLossError("index block: bad block handle");
      return;
    }
    block_offset_ = h.offset;
    absl::StatusOr<std::unique_ptr<Block>> block = read_(h);
    if (!block.ok()) {
      FailDataBlock(block.status());
      return;
    }
    block_ = std::move(*block);
    data_ = std::make_unique<Block::Iterator>(block_.get(), internal::CompareInternalKeys);
  }

  // Moves past exhausted blocks, and checks each entry's key parses.
  void SkipEmpty() {
    while (data_ != nullptr && !data_->Valid()) {
      if (!data_->status().ok()) {
        FailDataBlock(data_->status());
        return;
      }
      index_.Next();
      LoadBlock();
      if (data_ != nullptr) data_->SeekToFirst();
    }
    internal::ParsedInternalKey parsed;
    if (data_ != nullptr && !internal::ParseInternalKey(data_->key(), &parsed)) {
      FailDataBlock(absl::DataLossError("data block: bad internal key"));
    }
  }

  Block::Iterator index_;
  std::function<absl::StatusOr<std::unique_ptr<Block>>(const BlockHandle&)> read_;
  std::unique_ptr<Block> block_;
  std::unique_ptr<Block::Iterator> data_;
  absl::Status status_;
  // status_ is a data block's error, past which the index can go on.
  bool data_block_damaged_ = false;
  uint64_t block_offset_ = 0;  // Of the data block last loaded.
};

}  // namespace

std::unique_ptr<TableIterator> Table::NewIterator() const {
  const Rep* rep = rep_.get();
  return std::make_unique<TwoLevelIterator>(
      rep->index.get(), [rep](const BlockHandle& h) { return rep->ReadDataBlock(h, true); });
}

}  // namespace lsmbloom
