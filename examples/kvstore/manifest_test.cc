// The MANIFEST format: round trips, and every malformed input rejected.

#include "manifest.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace kvstore {
namespace {

constexpr char kHead[] = "kvstore-manifest v2\nnext_file_number 10\nlast_sequence 77\n";
constexpr char kHeadV1[] = "kvstore-manifest v1\nnext_file_number 10\nlast_sequence 77\n";

TEST(ManifestTest, RoundTrips) {
  Manifest m;
  m.next_file_number = 42;
  m.last_sequence = 123456789;
  m.log_number = 39;
  m.files = {{0, 41, 100, 0xfedcba9876543210},
             {0, 40, 4096, 1},
             {1, 7, uint64_t{1} << 40, 0},
             {6, 3, 1, UINT64_MAX}};
  absl::StatusOr<Manifest> back = DecodeManifest(EncodeManifest(m));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->next_file_number, 42u);
  EXPECT_EQ(back->last_sequence, 123456789u);
  EXPECT_EQ(back->log_number, 39u);
  ASSERT_EQ(back->files.size(), 4u);
  for (size_t i = 0; i < m.files.size(); ++i) {
    EXPECT_EQ(back->files[i].level, m.files[i].level);
    EXPECT_EQ(back->files[i].number, m.files[i].number);
    EXPECT_EQ(back->files[i].file_size, m.files[i].file_size);
    EXPECT_EQ(back->files[i].unique_id, m.files[i].unique_id);
  }
  EXPECT_NE(EncodeManifest(m).find("file 0 41 size=100 id=fedcba9876543210\n"), std::string::npos);
  EXPECT_EQ(back->ribbon_from_level, -1);  // Not written: older builds read it.
  EXPECT_EQ(EncodeManifest(m).find("ribbon"), std::string::npos);
}

TEST(ManifestTest, RibbonFromLevelRoundTripsAndOutOfRangeIsRejected) {
  Manifest m;
  m.next_file_number = 5;
  m.ribbon_from_level = 3;
  absl::StatusOr<Manifest> back = DecodeManifest(EncodeManifest(m));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ribbon_from_level, 3);
  std::string text = EncodeManifest(m);
  text.replace(text.find("ribbon_from_level 3"), 19, "ribbon_from_level 7");
  absl::StatusOr<Manifest> bad = DecodeManifest(text);
  EXPECT_TRUE(absl::IsDataLoss(bad.status()));
  EXPECT_NE(bad.status().message().find("level out of range"), std::string::npos) << bad.status();
}

TEST(ManifestTest, VersionOneManifestReadsWithNothingRecorded) {
  absl::StatusOr<Manifest> m = DecodeManifest(std::string(kHeadV1) + "file 0 4\nfile 2 9\nend\n");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->files.size(), 2u);
  EXPECT_EQ(m->files[1].level, 2);
  EXPECT_EQ(m->files[1].number, 9u);
  EXPECT_FALSE(m->files[0].recorded());
  EXPECT_EQ(m->files[0].unique_id, 0u);
}

TEST(ManifestTest, ManifestWithoutLogNumberReplaysEveryLog) {
  absl::StatusOr<Manifest> m = DecodeManifest(std::string(kHead) + "end\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->log_number, 0u);
}

TEST(ManifestTest, RejectsMalformedText) {
  const std::string head = kHead;
  const std::vector<std::string> bad = {
      "",
      "hello\n",
      head,                                // No "end": truncated.
      head + "end",                        // Unterminated line.
      head + "end\nfile 0 1\n",            // Text after end.
      head + "file 0 1 size=5 id=0000000000000001\nfile 1 1 size=5 id=0000000000000002\nend\n",
      head + "file 7 1 size=5 id=0000000000000001\nend\n",   // No level 7.
      head + "file 0 10 size=5 id=0000000000000001\nend\n",  // Not below next_file_number.
      head + "file 0 1\nend\n",                               // v2 without size and id.
      head + "file 0 1 size=5\nend\n",
      head + "file 0 1 size=0 id=0000000000000001\nend\n",  // Size 0.
      head + "file 0 1 size=5 id=1\nend\n",                 // Not 16 digits.
      head + "file 0 1 size=5 id=000000000000000g\nend\n",
      head + "file 0 1 id=0000000000000001 size=5\nend\n",  // Fields out of order.
      head + "file 0 1 size=-5 id=0000000000000001\nend\n",
      std::string(kHeadV1) + "file 0 1 size=5 id=0000000000000001\nend\n",  // v1 has none.
      "kvstore-manifest v3\nnext_file_number 10\nlast_sequence 77\nend\n",
      kHeadV1 + std::string("file 0 -1\nend\n"),
      kHeadV1 + std::string("file 0 1x\nend\n"),
      kHeadV1 + std::string("file 0\nend\n"),
      head + "frobnicate 3\nend\n",
      head + "\nend\n",
      "kvstore-manifest v2\nnext_file_number 10\nend\n",  // No last_sequence.
      "kvstore-manifest v1\nnext_file_number 1\nlast_sequence 72057594037927936\nend\n",
      "kvstore-manifest v1\nnext_file_number 99999999999999999999\nlast_sequence 1\nend\n",
  };
  for (const std::string& text : bad) {
    absl::StatusOr<Manifest> m = DecodeManifest(text);
    EXPECT_TRUE(absl::IsDataLoss(m.status())) << "accepted:\n" << text;
  }
  EXPECT_TRUE(DecodeManifest(head + "file 0 9 size=5 id=0000000000000000\nend\n").ok());
  EXPECT_TRUE(DecodeManifest(std::string(kHeadV1) + "file 0 9\nend\n").ok());
}

TEST(ManifestTest, WriteReplacesAtomicallyAndLeavesNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/manifest_write";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  EXPECT_TRUE(absl::IsNotFound(ReadManifest(dir).status()));
  Manifest m;
  m.next_file_number = 5;
  m.files = {{2, 4, 10, 11}};
  ASSERT_TRUE(WriteManifest(dir, m).ok());
  m.last_sequence = 9;
  ASSERT_TRUE(WriteManifest(dir, m).ok());
  absl::StatusOr<Manifest> back = ReadManifest(dir);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->last_sequence, 9u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/MANIFEST.tmp"));
}

}  // namespace
}  // namespace kvstore
