#include "wal.h"

#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xxhash.h"

namespace kvstore {
namespace {

void PutFixed32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
void PutFixed64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
uint32_t GetFixed32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}
uint64_t GetFixed64(const char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return v;
}

uint32_t HeaderChecksum(const char* header) {
  return static_cast<uint32_t>(XXH3_64bits(header, 12));
}

// The length of the record at `offset` of `log` if one is there, intact,
// and wholly inside it; otherwise why not.
struct Probe {
  std::optional<uint64_t> record_size;
  std::string problem;
};

Probe ProbeRecord(std::string_view log, uint64_t offset) {
  const std::string_view rest = log.substr(offset);
  if (rest.size() < kWalHeaderSize) {
    return {std::nullopt, absl::StrCat("a partial header of ", rest.size(), " bytes")};
  }
  if (GetFixed32(rest.data() + 12) != HeaderChecksum(rest.data())) {
    return {std::nullopt, "a record header whose checksum does not match"};
  }
  const uint64_t length = GetFixed32(rest.data());
  if (rest.size() - kWalHeaderSize < length) {
    return {std::nullopt, absl::StrCat("a record cut short (", rest.size() - kWalHeaderSize, " of ",
                                       length, " payload bytes)")};
  }
  if (XXH3_64bits(rest.data() + kWalHeaderSize, length) != GetFixed64(rest.data() + 4)) {
    return {std::nullopt, "a record whose payload checksum does not match"};
  }
  return {kWalHeaderSize + length, ""};
}

}  // namespace

absl::StatusOr<WalSync> ParseWalSync(std::string_view text) {
  WalSync sync;
  int64_t ms = 0;
  if (text == "always") {
    sync.mode = WalSync::Mode::kAlways;
  } else if (text == "never") {
    sync.mode = WalSync::Mode::kNever;
  } else if (text.substr(0, 9) == "interval:" &&
             absl::SimpleAtoi(std::string(text.substr(9)), &ms) && ms > 0) {
    sync.mode = WalSync::Mode::kInterval;
    sync.interval = absl::Milliseconds(ms);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("sync policy must be 'always', 'never' or 'interval:MS' (MS > 0), not '",
                     std::string(text), "'"));
  }
  return sync;
}

std::string EncodeWalRecord(std::string_view payload) {
  std::string record(kWalHeaderSize, '\0');
  PutFixed32(record.data(), static_cast<uint32_t>(payload.size()));
  PutFixed64(record.data() + 4, XXH3_64bits(payload.data(), payload.size()));
  PutFixed32(record.data() + 12, HeaderChecksum(record.data()));
  record.append(payload.data(), payload.size());
  return record;
}

absl::StatusOr<std::unique_ptr<WalWriter>> WalWriter::Open(const std::string& path,
                                                           const WalSync& sync, Env* env) {
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> file = env->NewAppendableFile(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<uint64_t> size = env->GetFileSize(path);
  if (!size.ok()) return size.status();
  return std::unique_ptr<WalWriter>(new WalWriter(path, *std::move(file), *size, sync));
}

WalWriter::WalWriter(std::string path, std::unique_ptr<lsmbloom::WritableFile> file,
                     uint64_t size, const WalSync& sync)
    : path_(std::move(path)), file_(std::move(file)), sync_(sync), size_(size) {
  if (sync_.mode == WalSync::Mode::kInterval) syncer_ = std::thread([this] { SyncLoop(); });
}

WalWriter::~WalWriter() {
  if (syncer_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    wake_.notify_one();
    syncer_.join();
  }
  // A failure here has no one to report to; the log's owner flushes first
  // when it matters (Store::Close), after which this log holds nothing a
  // table does not.
  if (sync_.mode != WalSync::Mode::kNever) Sync().IgnoreError();
  file_->Close().IgnoreError();
}

void WalWriter::SyncLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!closing_ && sync_error_.ok()) {
    wake_.wait_for(lock, absl::ToChronoMilliseconds(sync_.interval));
    if (!dirty_) continue;
    dirty_ = false;
    lock.unlock();
    Sync().IgnoreError();  // Kept in sync_error_: the next Append fails with it.
    lock.lock();
  }
}

absl::Status WalWriter::Append(std::string_view payload) {
  if (payload.size() > UINT32_MAX) {
    return absl::InvalidArgumentError("write batch too large for one log record");
  }
  absl::Status s = sync_error();
  if (!s.ok()) return s;  // Records before this one may be lost.
  s = file_->Append(EncodeWalRecord(payload));
  if (!s.ok()) return s;
  size_ += kWalHeaderSize + payload.size();
  switch (sync_.mode) {
    case WalSync::Mode::kAlways:
      return Sync();
    case WalSync::Mode::kInterval: {
      std::lock_guard<std::mutex> lock(mu_);
      dirty_ = true;
      return absl::OkStatus();
    }
    case WalSync::Mode::kNever:
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status WalWriter::Sync() {
  absl::Status s = sync_error();
  if (!s.ok()) return s;
  s = file_->Sync();
  if (s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (sync_error_.ok()) {
    sync_error_ = absl::Status(
        s.code(), absl::StrCat("syncing the write-ahead log failed (records since the last "
                               "good sync may be lost): ",
                               s.message()));
  }
  return sync_error_;
}

absl::Status WalWriter::sync_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sync_error_;
}

absl::StatusOr<WalReplayReport> ReplayWal(
    const std::string& path, const std::function<absl::Status(std::string_view)>& apply,
    Env* env) {
  absl::StatusOr<std::string> contents = ReadFileToString(env, path);
  if (!contents.ok()) return contents.status();
  const std::string_view log = *contents;
  WalReplayReport report;
  uint64_t offset = 0;
  while (offset < log.size()) {
    const Probe probe = ProbeRecord(log, offset);
    if (!probe.record_size.has_value()) {
      // Torn tail, unless an intact record starts somewhere after this one.
      for (uint64_t later = offset + 1; later + kWalHeaderSize <= log.size(); ++later) {
        if (ProbeRecord(log, later).record_size.has_value()) {
          return absl::DataLossError(absl::StrFormat(
              "%s: %s at offset %d, with an intact record at offset %d after it: the "
              "log is damaged in the middle, not just torn at its end",
              path, probe.problem, offset, later));
        }
      }
      report.dropped_bytes = log.size() - offset;
      report.tail_problem = absl::StrFormat("%s at offset %d", probe.problem, offset);
      break;
    }
    absl::Status s =
        apply(log.substr(offset + kWalHeaderSize, *probe.record_size - kWalHeaderSize));
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrFormat("%s: record at offset %d: %s", path, offset, s.message()));
    }
    ++report.records;
    offset += *probe.record_size;
  }
  report.valid_bytes = offset;
  return report;
}

}  // namespace kvstore
