// Faults through the file interface: failed writes and syncs while building,
// short reads and read errors while reading, torn and bit-flipped files.
// Every case ends in a clear error or a correct answer; never a silent false
// negative, and never a file that opens as valid but is missing data.

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/table/table.h"
#include "tests/table_surgery.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

using testutil::Entry;

// A writable file that fails the Nth Append, or Sync, or Close.
class FaultyWritableFile : public WritableFile {
 public:
  enum class Fail { kNothingElse, kSync, kClose };
  FaultyWritableFile(std::string* out, int fail_append, Fail fail = Fail::kNothingElse)
      : inner_(NewMemWritableFile(out)), fail_append_(fail_append), fail_(fail) {}
  absl::Status Append(std::string_view data) override {
    if (appends_++ == fail_append_) return absl::UnavailableError("injected write error");
    return inner_->Append(data);
  }
  absl::Status Sync() override {
    if (fail_ == Fail::kSync) return absl::UnavailableError("injected sync failure");
    return inner_->Sync();
  }
  absl::Status Close() override {
    if (fail_ == Fail::kClose) return absl::UnavailableError("injected close failure");
    return inner_->Close();
  }

 private:
  std::unique_ptr<WritableFile> inner_;
  int appends_ = 0;
  const int fail_append_;
  const Fail fail_;
};

// A readable file whose reads fail or come back short at chosen offsets.
class FaultyRandomAccessFile : public RandomAccessFile {
 public:
  enum class Mode { kError, kShort };
  FaultyRandomAccessFile(std::string contents, uint64_t bad_from, uint64_t bad_to, Mode mode)
      : inner_(NewMemRandomAccessFile(std::move(contents))),
        bad_from_(bad_from),
        bad_to_(bad_to),
        mode_(mode) {}
  uint64_t Size() const override { return inner_->Size(); }
  absl::Status Read(uint64_t offset, size_t n, char* scratch,
                    std::string_view* result) const override {
    const bool hits = offset < bad_to_ && offset + n > bad_from_;
    if (hits && mode_ == Mode::kError) return absl::UnavailableError("injected read error");
    absl::Status s = inner_->Read(offset, n, scratch, result);
    if (hits && mode_ == Mode::kShort && result->size() > 1) {
      *result = result->substr(0, result->size() / 2);
    }
    return s;
  }
  // Not mapped: force the copying read path.

 private:
  std::unique_ptr<RandomAccessFile> inner_;
  uint64_t bad_from_, bad_to_;
  Mode mode_;
};

// A readable file that answers a read at `at` with the bytes `source` holds
// at `from`: a misdirected read (a stale cache line, a wrong LBA, a remapped
// extent), from this file or another.
class MisdirectedRandomAccessFile : public RandomAccessFile {
 public:
  MisdirectedRandomAccessFile(std::string contents, uint64_t at, std::string source, uint64_t from)
      : contents_(std::move(contents)), at_(at), source_(std::move(source)), from_(from) {}
  uint64_t Size() const override { return contents_.size(); }
  absl::Status Read(uint64_t offset, size_t n, char* scratch,
                    std::string_view* result) const override {
    const std::string& bytes = offset == at_ ? source_ : contents_;
    const uint64_t begin = offset == at_ ? from_ : offset;
    if (begin > bytes.size()) return absl::OutOfRangeError("read past the end");
    n = std::min<uint64_t>(n, bytes.size() - begin);
    std::memcpy(scratch, bytes.data() + begin, n);
    *result = std::string_view(scratch, n);
    return absl::OkStatus();
  }
  // Not mapped: every block goes through Read.

 private:
  std::string contents_;
  uint64_t at_;
  std::string source_;
  uint64_t from_;
};

std::vector<Entry> Entries() { return testutil::MakeEntries(3000, 17); }

TEST(FaultInjectionTest, EveryFailedWriteFailsTheBuildAndPublishesNothing) {
  const std::vector<Entry> entries = Entries();
  // Count the appends of a good build first.
  std::string good;
  int total_appends = 0;
  {
    class Counting : public FaultyWritableFile {
     public:
      Counting(std::string* out, int* count) : FaultyWritableFile(out, -1), count_(count) {}
      absl::Status Append(std::string_view d) override {
        ++*count_;
        return FaultyWritableFile::Append(d);
      }
      int* count_;
    };
    TableBuilder b(TableOptions(), std::make_unique<Counting>(&good, &total_appends));
    for (const Entry& e : entries) ASSERT_TRUE(b.Add(e.key, e.seq, e.type, e.value).ok());
    ASSERT_TRUE(b.Finish().ok());
  }
  ASSERT_GT(total_appends, 10);
  for (int fail = 0; fail < total_appends; ++fail) {
    std::string out;
    TableBuilder b(TableOptions(), std::make_unique<FaultyWritableFile>(&out, fail));
    absl::Status s;
    for (const Entry& e : entries) {
      s = b.Add(e.key, e.seq, e.type, e.value);
      if (!s.ok()) break;
    }
    if (s.ok()) s = b.Finish();
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << "append " << fail;
    EXPECT_TRUE(out.empty()) << "a failed build published bytes, append " << fail;
    // Later calls return the latched error.
    EXPECT_FALSE(b.Add("zzzz", 1, EntryType::kValue, "v").ok());
  }
}

TEST(FaultInjectionTest, FailedSyncOrCloseFailsTheBuildAndPublishesNothing) {
  for (auto fail : {FaultyWritableFile::Fail::kSync, FaultyWritableFile::Fail::kClose}) {
    std::string out;
    TableBuilder b(TableOptions(), std::make_unique<FaultyWritableFile>(&out, -1, fail));
    for (const Entry& e : Entries()) ASSERT_TRUE(b.Add(e.key, e.seq, e.type, e.value).ok());
    const absl::Status s = b.Finish();
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(s.message().find(fail == FaultyWritableFile::Fail::kSync ? "sync" : "close"),
              std::string::npos)
        << s;
    EXPECT_TRUE(out.empty());
  }
}

TEST(FaultInjectionTest, ReadErrorsAndShortReadsAreErrorsNeverWrongAnswers) {
  const std::vector<Entry> entries = Entries();
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 120; ++trial) {
    const uint64_t from = rng() % bytes.size();
    const uint64_t to = from + 1 + rng() % 512;
    const auto mode =
        trial % 2 ? FaultyRandomAccessFile::Mode::kError : FaultyRandomAccessFile::Mode::kShort;
    auto table = Table::Open(std::make_unique<FaultyRandomAccessFile>(bytes, from, to, mode));
    if (!table.ok()) continue;  // A clear error at open is a fine outcome.
    for (size_t i = 0; i < entries.size(); ++i) {
      absl::StatusOr<LookupResult> got = (*table)->Get(entries[i].key);
      if (!got.ok()) continue;  // Clear error.
      ASSERT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, entries[i].key)))
          << "trial " << trial << " key " << entries[i].key;
    }
    for (int i = 0; i < 200; ++i) {
      absl::StatusOr<LookupResult> got = (*table)->Get(testutil::AbsentKey(i, 9000));
      if (!got.ok()) continue;
      ASSERT_EQ(got->kind, LookupResult::Kind::kNotFound) << "trial " << trial;
    }
    // A scan either reports the fault or yields every entry, in order.
    auto it = (*table)->NewIterator();
    size_t seen = 0;
    for (it->SeekToFirst(); it->Valid() && seen < entries.size(); it->Next(), ++seen) {
      ASSERT_EQ(it->entry().user_key, entries[seen].key) << "trial " << trial;
      ASSERT_EQ(it->entry().sequence, entries[seen].seq) << "trial " << trial;
      ASSERT_EQ(it->entry().value, entries[seen].value) << "trial " << trial;
    }
    if (it->status().ok()) {
      EXPECT_EQ(seen, entries.size()) << "trial " << trial;
      EXPECT_FALSE(it->Valid()) << "more entries than were written, trial " << trial;
    }
  }
}

TEST(FaultInjectionTest, ReadsServedFromAnotherOffsetOrFileAreErrorsNeverWrongAnswers) {
  const std::vector<Entry> entries = Entries();
  const std::string bytes = testutil::BuildTable(entries, TableOptions());
  // Same entries, another unique id: every block at the same offset with the
  // same bytes, only its trailer differs.
  const std::string twin = testutil::BuildTable(entries, TableOptions());
  std::vector<testutil::Region> regions;
  ASSERT_TRUE(testutil::FindRegions(bytes, &regions));
  std::mt19937_64 rng(23);
  size_t misdirected = 0, refused_at_open = 0, filters_refused = 0;
  for (const testutil::Region& r : regions) {
    if (!r.has_trailer) continue;
    // From another file at the same offset, and from another block of this
    // file (the next region that is at least as long).
    std::vector<std::pair<const std::string*, uint64_t>> sources = {{&twin, r.begin}};
    const testutil::Region& other = regions[rng() % regions.size()];
    if (other.begin != r.begin && other.begin + (r.end - r.begin) <= bytes.size()) {
      sources.push_back({&bytes, other.begin});
    }
    for (const auto& [source, from] : sources) {
      ++misdirected;
      auto table =
          Table::Open(std::make_unique<MisdirectedRandomAccessFile>(bytes, r.begin, *source, from));
      if (!table.ok()) {
        EXPECT_EQ(table.status().code(), absl::StatusCode::kDataLoss) << table.status();
        ++refused_at_open;
        continue;
      }
      if (r.name == "filter") {
        EXPECT_EQ((*table)->filter_status().code(), absl::StatusCode::kDataLoss);
        filters_refused += !(*table)->filter_status().ok();
      }
      size_t errors = 0;
      for (const Entry& e : entries) {
        absl::StatusOr<LookupResult> got = (*table)->Get(e.key);
        if (!got.ok()) {
          EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << got.status();
          EXPECT_EQ(got.status().message().find("data block at offset " + std::to_string(r.begin)),
                    0u)
              << got.status();
          ++errors;
          continue;
        }
        ASSERT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, e.key)))
            << r.name << " at " << r.begin << " read from " << from
            << (source == &twin ? " of the twin" : "") << ": key " << e.key;
      }
      if (r.name == "data") {
        EXPECT_GT(errors, 0u) << "data block at " << r.begin;
      }
    }
  }
  EXPECT_GT(misdirected, 20u);
  EXPECT_GE(refused_at_open, 3u);  // The index, meta-index and properties at least.
  EXPECT_EQ(filters_refused, 2u);  // From the twin, and from elsewhere in the file.
}

TEST(FaultInjectionTest, TornFilesNeverOpen) {
  const std::string bytes = testutil::BuildTable(Entries(), TableOptions());
  // A torn write: the first part of the file, then garbage or zeros where
  // the rest should be.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::string torn = bytes;
    const size_t cut = rng() % bytes.size();
    for (size_t i = cut; i < torn.size(); ++i) torn[i] = trial % 2 ? 0 : static_cast<char>(rng());
    if (torn == bytes) continue;
    auto table = Table::Open(NewMemRandomAccessFile(torn));
    if (!table.ok()) continue;
    // It may open only if the tear spared footer, index, meta and filter:
    // then the damage is in data blocks, and lookups must fail loudly there.
    const std::vector<Entry> entries = Entries();
    for (const Entry& e : entries) {
      absl::StatusOr<LookupResult> got = (*table)->Get(e.key);
      if (got.ok()) {
        ASSERT_TRUE(testutil::SameAsModel(*got, testutil::ModelGet(entries, e.key)));
      }
    }
  }
}

}  // namespace
}  // namespace lsmbloom
