// The MANIFEST format: round trips, and every malformed input rejected.

#include "manifest.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace kvstore {
namespace {

constexpr char kHead[] = "kvstore-manifest v1\nnext_file_number 10\nlast_sequence 77\n";

TEST(ManifestTest, RoundTrips) {
  Manifest m;
  m.next_file_number = 42;
  m.last_sequence = 123456789;
  m.log_number = 39;
  m.files = {{0, 41}, {0, 40}, {1, 7}, {6, 3}};
  absl::StatusOr<Manifest> back = DecodeManifest(EncodeManifest(m));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->next_file_number, 42u);
  EXPECT_EQ(back->last_sequence, 123456789u);
  EXPECT_EQ(back->log_number, 39u);
  ASSERT_EQ(back->files.size(), 4u);
  for (size_t i = 0; i < m.files.size(); ++i) {
    EXPECT_EQ(back->files[i].level, m.files[i].level);
    EXPECT_EQ(back->files[i].number, m.files[i].number);
  }
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
      head + "file 0 1\nfile 1 1\nend\n",  // A file twice.
      head + "file 7 1\nend\n",            // No level 7.
      head + "file 0 10\nend\n",           // Not below next_file_number.
      head + "file 0 -1\nend\n",
      head + "file 0 1x\nend\n",
      head + "file 0\nend\n",
      head + "frobnicate 3\nend\n",
      head + "\nend\n",
      "kvstore-manifest v1\nnext_file_number 10\nend\n",  // No last_sequence.
      "kvstore-manifest v1\nnext_file_number 1\nlast_sequence 72057594037927936\nend\n",
      "kvstore-manifest v1\nnext_file_number 99999999999999999999\nlast_sequence 1\nend\n",
  };
  for (const std::string& text : bad) {
    absl::StatusOr<Manifest> m = DecodeManifest(text);
    EXPECT_TRUE(absl::IsDataLoss(m.status())) << "accepted:\n" << text;
  }
  EXPECT_TRUE(DecodeManifest(head + "file 0 9\nend\n").ok());
}

TEST(ManifestTest, WriteReplacesAtomicallyAndLeavesNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/manifest_write";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  EXPECT_TRUE(absl::IsNotFound(ReadManifest(dir).status()));
  Manifest m;
  m.next_file_number = 5;
  m.files = {{2, 4}};
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
