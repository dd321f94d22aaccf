#include "write_batch.h"

#include "absl/strings/str_cat.h"

namespace kvstore {
namespace {

constexpr size_t kHeaderSize = 12;  // Sequence and count.

void PutFixed(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetFixed(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}

// Takes `n` bytes off the front of `in` into `out`; false if there are fewer.
bool Take(std::string_view* in, size_t n, std::string_view* out) {
  if (in->size() < n) return false;
  *out = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

bool TakeSlice(std::string_view* in, std::string_view* out) {
  std::string_view length;
  return Take(in, 4, &length) && Take(in, GetFixed(length.data(), 4), out);
}

}  // namespace

WriteBatch::WriteBatch() { Clear(); }

void WriteBatch::Clear() { rep_.assign(kHeaderSize, '\0'); }

uint32_t WriteBatch::count() const { return static_cast<uint32_t>(GetFixed(&rep_[8], 4)); }

uint64_t WriteBatch::sequence() const { return GetFixed(rep_.data(), 8); }

void WriteBatch::set_sequence(uint64_t sequence) {
  std::string header;
  PutFixed(&header, sequence, 8);
  rep_.replace(0, 8, header);
}

void WriteBatch::Put(std::string_view key, std::string_view value) {
  rep_.push_back(static_cast<char>(lsmbloom::EntryType::kValue));
  PutFixed(&rep_, key.size(), 4);
  rep_.append(key.data(), key.size());
  PutFixed(&rep_, value.size(), 4);
  rep_.append(value.data(), value.size());
  std::string count;
  PutFixed(&count, this->count() + 1, 4);
  rep_.replace(8, 4, count);
}

void WriteBatch::Delete(std::string_view key) {
  rep_.push_back(static_cast<char>(lsmbloom::EntryType::kDeletion));
  PutFixed(&rep_, key.size(), 4);
  rep_.append(key.data(), key.size());
  std::string count;
  PutFixed(&count, this->count() + 1, 4);
  rep_.replace(8, 4, count);
}

absl::Status WriteBatch::SetContents(std::string_view contents) {
  if (contents.size() < kHeaderSize) return absl::DataLossError("write batch too short");
  std::string saved;
  saved.swap(rep_);
  rep_.assign(contents.data(), contents.size());
  // ForEach checks every operation's framing.
  absl::Status s = ForEach([](uint64_t, lsmbloom::EntryType, std::string_view, std::string_view) {
    return absl::OkStatus();
  });
  if (!s.ok()) rep_.swap(saved);
  return s;
}

absl::Status WriteBatch::ForEach(const Visitor& visit) const {
  std::string_view in(rep_);
  in.remove_prefix(kHeaderSize);
  const uint32_t n = count();
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view type, key, value;
    if (!Take(&in, 1, &type) || !TakeSlice(&in, &key)) {
      return absl::DataLossError(absl::StrCat("write batch: operation ", i, " cut short"));
    }
    const auto t = static_cast<lsmbloom::EntryType>(static_cast<unsigned char>(type[0]));
    if (t == lsmbloom::EntryType::kValue) {
      if (!TakeSlice(&in, &value)) {
        return absl::DataLossError(absl::StrCat("write batch: operation ", i, " cut short"));
      }
    } else if (t != lsmbloom::EntryType::kDeletion) {
      return absl::DataLossError(absl::StrCat("write batch: operation ", i, " has bad type"));
    }
    absl::Status s = visit(sequence() + i, t, key, value);
    if (!s.ok()) return s;
  }
  if (!in.empty()) return absl::DataLossError("write batch: bytes after the last operation");
  return absl::OkStatus();
}

}  // namespace kvstore
