// sst_inspect dump: the raw bytes of one whole block, named by its offset,
// with its 9-byte trailer (compression byte, checksum), as a hex dump with
// file offsets. What a salvage needs: the bytes as they are on disk, read
// without checking them, plus whether the block passes its checks.

#include <cctype>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/sst_inspect_commands.h"

namespace lsmbloom {
namespace inspect {

namespace {

constexpr uint64_t kTrailer = 9;

struct NamedBlock {
  std::string kind;  // "data block 3", "index", "filter", ...
  BlockLocation location;
  bool is_data = false;
};

// Every block of the table, by its place in the file.
absl::StatusOr<std::vector<NamedBlock>> AllBlocks(const InspectedTable& t) {
  const TableLayout layout = LayoutOf(t.table());
  std::vector<NamedBlock> blocks = {{"index block", layout.index},
                                    {"meta-index block", layout.metaindex},
                                    {"properties block", layout.properties}};
  if (layout.filter.size != 0) blocks.push_back({"filter block", layout.filter});
  absl::StatusOr<std::vector<BlockLocation>> data = DataBlockLocations(t.table());
  if (!data.ok()) return data.status();
  for (size_t i = 0; i < data->size(); ++i) {
    blocks.push_back({absl::StrCat("data block ", i), (*data)[i], true});
  }
  return blocks;
}

// "00001000  61 62 ...  |ab..|", 16 bytes a line, offsets in the file.
void PrintHexDump(uint64_t base, std::string_view bytes) {
  for (size_t line = 0; line < bytes.size(); line += 16) {
    std::string hex, text;
    for (size_t i = line; i < line + 16; ++i) {
      if (i < bytes.size()) {
        const unsigned char c = static_cast<unsigned char>(bytes[i]);
        absl::StrAppendFormat(&hex, "%02x ", c);
        text.push_back(std::isprint(c) ? static_cast<char>(c) : '.');
      } else {
        hex += "   ";
      }
      if (i == line + 7) hex += " ";
    }
    std::printf("%08llx  %s |%s|\n", static_cast<unsigned long long>(base + line), hex.c_str(),
                text.c_str());
  }
}

}  // namespace

int RunDump(const Options& o, const InputFile& file, uint64_t offset, Json* doc) {
  absl::StatusOr<InspectedTable> t = InspectedTable::Open(file.path);
  if (!t.ok()) {
    (*doc)["files"].push_back(FileError(file.shown, t.status()));
    return kExitProblem;
  }
  absl::StatusOr<std::vector<NamedBlock>> blocks = AllBlocks(*t);
  if (!blocks.ok()) {
    (*doc)["files"].push_back(FileError(file.shown, blocks.status()));
    return kExitProblem;
  }
  const NamedBlock* found = nullptr;
  for (const NamedBlock& b : *blocks) {
    if (b.location.offset == offset) found = &b;
  }
  if (found == nullptr) {
    std::string starts;
    for (const NamedBlock& b : *blocks) {
      if (b.location.offset <= offset && offset < b.location.offset + b.location.size + kTrailer) {
        starts = absl::StrCat(": it is inside the ", b.kind, " at offset ", b.location.offset);
      }
    }
    Complain(file.shown, absl::StrCat("no block starts at offset ", offset, starts,
                                      " (sst_inspect blocks lists every block's offset)"));
    return kExitUsage;
  }
  // The bytes as stored, unchecked: a damaged block is what salvage reads.
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> raw = OpenPosixFile(file.path);
  if (!raw.ok()) {
    (*doc)["files"].push_back(FileError(file.shown, raw.status()));
    return kExitProblem;
  }
  const uint64_t n = found->location.size + kTrailer;
  std::string scratch(n, '\0');
  std::string_view bytes;
  absl::Status read = (*raw)->Read(offset, n, scratch.data(), &bytes);
  if (read.ok() && bytes.size() != n) {
    read = absl::DataLossError(absl::StrCat("short read: ", bytes.size(), " of ", n, " bytes"));
  }
  if (!read.ok()) {
    (*doc)["files"].push_back(FileError(file.shown, read));
    return kExitProblem;
  }
  // Blocks other than data blocks were checked when the table opened (the
  // filter's trust is its own status).
  const absl::Status check = found->is_data ? CheckDataBlock(t->table(), found->location)
                             : found->kind == "filter block" ? t->filter().status()
                                                             : absl::OkStatus();
  if (o.style.json) {
    (*doc)["files"].push_back(Json{{"file", EscapeBytes(file.shown)},
                                   {"block", found->kind},
                                   {"offset", offset},
                                   {"size", found->location.size},
                                   {"trailer_size", kTrailer},
                                   {"error", EscapeBytes(std::string(check.message()))},
                                   {"hex", HexBytes(bytes)}});
  } else {
    std::printf("%s: %s at offset %llu: %llu bytes, then the %llu-byte trailer; %s\n",
                file.shown.c_str(), found->kind.c_str(), static_cast<unsigned long long>(offset),
                static_cast<unsigned long long>(found->location.size),
                static_cast<unsigned long long>(kTrailer),
                check.ok() ? "checks pass" : ("DAMAGED: " + std::string(check.message())).c_str());
    PrintHexDump(offset, bytes);
  }
  if (!check.ok()) {
    Complain(file.shown, std::string(check.message()));
    return kExitProblem;
  }
  return kExitOk;
}

}  // namespace inspect
}  // namespace lsmbloom
