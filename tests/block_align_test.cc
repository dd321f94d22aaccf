// TableOptions::block_align: no data block that fits a 4 KiB page straddles
// two, the table answers as any other, and compression is refused with it.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lsmbloom/inspect/inspect.h"
#include "lsmbloom/io/file.h"
#include "lsmbloom/table/table.h"
#include "lsmbloom/table/table_builder.h"
#include "tests/storage_testutil.h"
#include "tests/table_testutil.h"

namespace lsmbloom {
namespace {

constexpr uint64_t kTrailer = 9;  // Compression byte and checksum (docs/FORMAT.md).

TEST(BlockAlignTest, NoBlockStraddlesTwoPagesAndEveryKeyAnswersAsTheModel) {
  for (bool hash_index : {false, true}) {
    const std::vector<testutil::Entry> entries = testutil::MakeEntries(20000, 3);
    TableOptions options;
    options.block_align = true;
    options.data_block_hash_index = hash_index;
    const std::string path = testutil::WriteTestFile(
        "aligned" + std::to_string(hash_index) + ".sst", testutil::BuildTable(entries, options));
    absl::StatusOr<InspectedTable> inspected = InspectedTable::Open(path);
    ASSERT_TRUE(inspected.ok()) << inspected.status();
    absl::StatusOr<std::vector<DataBlockInfo>> blocks = DescribeDataBlocks(*inspected);
    ASSERT_TRUE(blocks.ok()) << blocks.status();
    ASSERT_GT(blocks->size(), 50u);
    size_t straddling = 0;
    uint64_t bytes = 0;
    for (const DataBlockInfo& b : *blocks) {
      const uint64_t first = b.location.offset / kDirectReadAlignment;
      const uint64_t last = (b.location.offset + b.location.size + kTrailer - 1) /
                            kDirectReadAlignment;
      straddling += first != last;
      bytes += b.location.size + kTrailer;
      EXPECT_LE(b.location.size + kTrailer, kDirectReadAlignment);
    }
    EXPECT_EQ(straddling, 0u);
    // The padding stays small: blocks fill most of their pages.
    const uint64_t span = blocks->back().location.offset + blocks->back().location.size + kTrailer;
    EXPECT_GT(static_cast<double>(bytes) / span, 0.9) << bytes << " of " << span;

    auto file = OpenPosixFile(path, FileAccess::kPread);
    ASSERT_TRUE(file.ok());
    auto table = Table::Open(std::move(*file));
    ASSERT_TRUE(table.ok()) << table.status();
    EXPECT_EQ(testutil::CountWrongAnswers(**table, entries), 0u);
  }
}

TEST(BlockAlignTest, CompressionIsRefusedWithBlockAlign) {
  TableOptions options;
  options.block_align = true;
  options.compression = Compression::kZstd;
  std::string bytes;
  TableBuilder builder(options, NewMemWritableFile(&bytes));
  EXPECT_TRUE(absl::IsInvalidArgument(builder.Add("a", 1, EntryType::kValue, "v")));
  EXPECT_TRUE(absl::IsInvalidArgument(builder.Finish()));
  EXPECT_TRUE(bytes.empty());
}

}  // namespace
}  // namespace lsmbloom
