#include "load.h"

#include <fstream>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "escape.h"
#include "write_batch.h"

namespace kvstore {
namespace {

constexpr size_t kBatchBytes = 1 << 20;
constexpr uint64_t kProgressEvery = 100000;

// Calls visit(line_number, key, value) for each line; stops at the first
// error, its own or visit's.
template <typename Visit>
absl::Status ForEachLine(const std::string& path, Visit visit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", number, ": no tab between key and value"));
    }
    if (tab == 0) return absl::InvalidArgumentError(absl::StrCat(path, ":", number, ": empty key"));
    const std::string_view view(line);
    absl::StatusOr<std::string> key = Unescape(view.substr(0, tab));
    absl::StatusOr<std::string> value =
        key.ok() ? Unescape(view.substr(tab + 1)) : absl::StatusOr<std::string>("");
    if (!key.ok() || !value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", number, ": ", !key.ok() ? "key: " : "value: ",
                       (!key.ok() ? key.status() : value.status()).message()));
    }
    absl::Status s = visit(number, *key, *value);
    if (!s.ok()) return s;
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return absl::OkStatus();
}

}  // namespace

std::string TsvLine(std::string_view key, std::string_view value) {
  return absl::StrCat(Escape(key), "\t", Escape(value), "\n");
}

absl::StatusOr<uint64_t> LoadTsv(Store& store, const std::string& path, std::FILE* progress) {
  uint64_t lines = 0;
  absl::Status s = ForEachLine(path, [&](uint64_t, std::string_view, std::string_view) {
    ++lines;
    return absl::OkStatus();
  });
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(s.message(), "; nothing was written"));

  const absl::Time start = absl::Now();
  WriteBatch batch;
  uint64_t written = 0;
  auto commit = [&]() -> absl::Status {
    const uint32_t n = batch.count();
    absl::Status s = store.Write(batch);
    batch.Clear();
    if (!s.ok()) return s;
    const uint64_t before = written;
    written += n;
    if (progress != nullptr &&
        (written / kProgressEvery != before / kProgressEvery || written == lines)) {
      std::fprintf(progress, "load: %llu/%llu keys, %.1f s\n",
                   static_cast<unsigned long long>(written), static_cast<unsigned long long>(lines),
                   absl::ToDoubleSeconds(absl::Now() - start));
    }
    return absl::OkStatus();
  };
  s = ForEachLine(path, [&](uint64_t, std::string_view key, std::string_view value) {
    batch.Put(key, value);
    return batch.ByteSize() >= kBatchBytes ? commit() : absl::OkStatus();
  });
  if (s.ok() && !batch.empty()) s = commit();
  if (!s.ok()) return s;
  return written;
}

}  // namespace kvstore
