// The log's records against damage: a torn or corrupt tail ends the replay
// with the intact prefix and says so; damage with intact records after it
// is an error. Also the sync policies' parsing and the write batch codec.

#include "wal.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "write_batch.h"

namespace kvstore {
namespace {

namespace fs = std::filesystem;

class WalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ =
        (fs::path(::testing::TempDir()) /
         (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".log"))
            .string();
    fs::remove(path_);
  }

  // Writes records "record-0" .. "record-(n-1)" through a WalWriter.
  void WriteRecords(int n, WalSync::Mode mode = WalSync::Mode::kAlways) {
    WalSync sync;
    sync.mode = mode;
    sync.interval = absl::Milliseconds(5);
    absl::StatusOr<std::unique_ptr<WalWriter>> log = WalWriter::Open(path_, sync);
    ASSERT_TRUE(log.ok()) << log.status();
    for (int i = 0; i < n; ++i) ASSERT_TRUE((*log)->Append(Payload(i)).ok());
  }

  static std::string Payload(int i) { return absl::StrCat("record-", i, std::string(i, 'x')); }

  std::string Contents() const {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void SetContents(const std::string& bytes) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
  }
  // The offset of record i, as WriteRecords lays them out.
  static size_t Offset(int i) {
    size_t offset = 0;
    for (int j = 0; j < i; ++j) offset += kWalHeaderSize + Payload(j).size();
    return offset;
  }

  absl::StatusOr<WalReplayReport> Replay(std::vector<std::string>* records) const {
    return ReplayWal(path_, [records](std::string_view payload) {
      records->emplace_back(payload);
      return absl::OkStatus();
    });
  }

  std::string path_;
};

TEST_F(WalTest, ReplaysEveryRecordInOrderUnderEachSyncPolicy) {
  for (WalSync::Mode mode :
       {WalSync::Mode::kAlways, WalSync::Mode::kInterval, WalSync::Mode::kNever}) {
    fs::remove(path_);
    WriteRecords(20, mode);
    std::vector<std::string> records;
    absl::StatusOr<WalReplayReport> report = Replay(&records);
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_EQ(records.size(), 20u);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(records[i], Payload(i));
    EXPECT_EQ(report->dropped_bytes, 0u);
    EXPECT_EQ(report->valid_bytes, Contents().size());
    EXPECT_TRUE(report->tail_problem.empty());
  }
}

TEST_F(WalTest, RecordCutShortAtTheEndIsDroppedAndReported) {
  WriteRecords(10);
  const std::string full = Contents();
  // Every cut inside the last record: in its header and in its payload.
  for (size_t cut = Offset(9) + 1; cut < full.size(); ++cut) {
    SetContents(full.substr(0, cut));
    std::vector<std::string> records;
    absl::StatusOr<WalReplayReport> report = Replay(&records);
    ASSERT_TRUE(report.ok()) << cut << ": " << report.status();
    EXPECT_EQ(records.size(), 9u) << cut;
    EXPECT_EQ(report->valid_bytes, Offset(9));
    EXPECT_EQ(report->dropped_bytes, cut - Offset(9));
    EXPECT_NE(report->tail_problem.find(absl::StrCat("offset ", Offset(9))), std::string::npos)
        << report->tail_problem;
  }
}

TEST_F(WalTest, CorruptLastRecordIsATornTail) {
  WriteRecords(10);
  std::string bytes = Contents();
  bytes[Offset(9) + kWalHeaderSize + 2] ^= 1;  // Payload of the last record.
  SetContents(bytes);
  std::vector<std::string> records;
  absl::StatusOr<WalReplayReport> report = Replay(&records);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(records.size(), 9u);
  EXPECT_NE(report->tail_problem.find("payload checksum"), std::string::npos);
}

TEST_F(WalTest, ZerosAfterTheLastRecordAreATornTail) {
  WriteRecords(5);
  SetContents(Contents() + std::string(4096, '\0'));
  std::vector<std::string> records;
  absl::StatusOr<WalReplayReport> report = Replay(&records);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(records.size(), 5u);
  EXPECT_EQ(report->dropped_bytes, 4096u);
}

TEST_F(WalTest, CorruptRecordInTheMiddleIsDataLoss) {
  WriteRecords(10);
  const std::string full = Contents();
  for (size_t at : {Offset(3), Offset(3) + 5, Offset(3) + kWalHeaderSize + 1, Offset(8)}) {
    std::string bytes = full;
    bytes[at] ^= 0x40;
    SetContents(bytes);
    std::vector<std::string> records;
    absl::StatusOr<WalReplayReport> report = Replay(&records);
    EXPECT_TRUE(absl::IsDataLoss(report.status())) << at << ": " << report.status();
    EXPECT_NE(report.status().message().find("damaged in the middle"), std::string::npos);
  }
}

TEST_F(WalTest, MissingBytesInTheMiddleIsDataLoss) {
  WriteRecords(10);
  const std::string full = Contents();
  SetContents(full.substr(0, Offset(4) + 7) + full.substr(Offset(5)));
  std::vector<std::string> records;
  EXPECT_TRUE(absl::IsDataLoss(Replay(&records).status()));
}

TEST_F(WalTest, AppendingAfterReopenContinuesTheLog) {
  WriteRecords(3);
  WriteRecords(2);  // Opens the same file again: appends.
  std::vector<std::string> records;
  ASSERT_TRUE(Replay(&records).ok());
  EXPECT_EQ(records,
            (std::vector<std::string>{Payload(0), Payload(1), Payload(2), Payload(0), Payload(1)}));
}

TEST_F(WalTest, ApplyErrorStopsTheReplay) {
  WriteRecords(3);
  absl::StatusOr<WalReplayReport> report =
      ReplayWal(path_, [](std::string_view) { return absl::DataLossError("bad batch"); });
  EXPECT_TRUE(absl::IsDataLoss(report.status()));
  EXPECT_NE(report.status().message().find("offset 0"), std::string::npos);
}

TEST(WalSyncTest, ParsesThePolicies) {
  EXPECT_EQ(ParseWalSync("always")->mode, WalSync::Mode::kAlways);
  EXPECT_EQ(ParseWalSync("never")->mode, WalSync::Mode::kNever);
  absl::StatusOr<WalSync> interval = ParseWalSync("interval:250");
  ASSERT_TRUE(interval.ok());
  EXPECT_EQ(interval->mode, WalSync::Mode::kInterval);
  EXPECT_EQ(interval->interval, absl::Milliseconds(250));
  for (const char* bad : {"", "sometimes", "interval:", "interval:0", "interval:-5"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseWalSync(bad).status())) << bad;
  }
}

TEST(WriteBatchTest, RoundTripsOperationsWithConsecutiveSequences) {
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Delete("b");
  batch.Put("", std::string("\0v", 2));
  batch.set_sequence(41);
  WriteBatch copy;
  ASSERT_TRUE(copy.SetContents(batch.contents()).ok());
  std::vector<std::string> seen;
  ASSERT_TRUE(copy.ForEach([&](uint64_t seq, lsmbloom::EntryType type, std::string_view k,
                               std::string_view v) {
                    seen.push_back(
                        absl::StrCat(seq, type == lsmbloom::EntryType::kValue ? " put " : " del ",
                                     std::string(k), "=", std::string(v)));
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "41 put a=1", "42 del b=", absl::StrCat("43 put =", std::string("\0v", 2))}));
}

TEST(WriteBatchTest, RejectsDamagedEncodings) {
  WriteBatch batch;
  batch.Put("key", "value");
  const std::string good(batch.contents());
  WriteBatch copy;
  EXPECT_FALSE(copy.SetContents(good.substr(0, good.size() - 1)).ok());
  EXPECT_FALSE(copy.SetContents(good + "x").ok());
  EXPECT_FALSE(copy.SetContents("short").ok());
  std::string bad_type = good;
  bad_type[12] = 7;
  EXPECT_FALSE(copy.SetContents(bad_type).ok());
}

}  // namespace
}  // namespace kvstore
