// What every sst_inspect command shares: how bytes are written and read
// back, the text layout, JSON documents, progress lines, and which files a
// command reads (paths resolved as `bazel run` users expect, directories
// expanded, LSM order).
//
// Keys and values are arbitrary bytes, written one way everywhere (text and
// JSON): by default printable ASCII stands for itself except '"' and '\',
// and every other byte is \xNN; with --hex every byte is two lowercase hex
// digits. Both are lossless, and KEY, --from, --to and --keys-from take the
// same form back.

#ifndef LSMBLOOM_TOOLS_SST_INSPECT_COMMON_H_
#define LSMBLOOM_TOOLS_SST_INSPECT_COMMON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace lsmbloom {
namespace inspect {

using Json = nlohmann::ordered_json;

inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;  // A file problem, or get found no value.
inline constexpr int kExitUsage = 2;
inline constexpr int kSchemaVersion = 2;

// How the command was asked to write.
struct Style {
  bool json = false;
  bool hex = false;
  bool progress = false;  // Progress lines on stderr (a terminal, not --quiet).
};

// `bytes` escaped (lsmbloom/inspect/escape.h; the double quote too) or,
// with hex, as hex digits.
std::string EscapeBytes(std::string_view bytes);
std::string HexBytes(std::string_view bytes);
std::string ShowBytes(const Style& style, std::string_view bytes);
// For text: escaped bytes in double quotes, or bare hex digits.
std::string Quoted(const Style& style, std::string_view bytes);
// The inverse of ShowBytes; InvalidArgument for a bad escape or hex digit.
absl::StatusOr<std::string> ParseBytes(const Style& style, std::string_view text);

// "CODE: message".
std::string StatusText(const absl::Status& status);
// 0.00966 -> "0.966%".
std::string Percent(double fraction);
// 12345 -> "12345 bytes (12.1 KiB)".
std::string Bytes(uint64_t n);
// One "  label  value" row of a text report.
void Row(const std::string& label, const std::string& value, int indent = 2);

// A file that could not be read: one line on stderr, and for JSON the
// object {"file", "error"} the document lists in its place.
Json FileError(const std::string& path, const absl::Status& status);
// One line on stderr: "sst_inspect: <path>: <message>".
void Complain(const std::string& path, const std::string& message);

// `path` as the user meant it: under `bazel run`, relative to the directory
// bazel was run from (BUILD_WORKING_DIRECTORY), not the runfiles tree.
std::string ResolvePath(const std::string& path);

// One file to read: the path as given (for output) and as opened.
struct InputFile {
  std::string shown;
  std::string path;
};

// The files `args` name: each directory is replaced by its *.sst files in
// LSM order. With lsm_order, all of them are put in LSM order (newest
// first): by the number in the file name (its last run of digits,
// 000123.sst -> 123), highest first; files without a number after those,
// newest modification time first; ties by name.
std::vector<InputFile> ExpandFiles(const std::vector<std::string>& args, bool lsm_order,
                                   std::vector<std::pair<std::string, absl::Status>>* errors);

// Reports how far a long pass has come: on stderr, about once a second,
// overwriting one line; nothing when disabled.
class Progress {
 public:
  Progress(bool enabled, std::string what, uint64_t total, std::string units);
  ~Progress();  // Clears the line if one was written.
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Cheap enough to call once per entry.
  void Update(uint64_t done) {
    if (enabled_ && (done & 255) == 0) MaybePrint(done);
  }
  // As Update, whatever `done` is.
  void Force(uint64_t done) {
    if (enabled_) MaybePrint(done);
  }
  // Erases the line, if one is shown, before other output.
  void Clear();

 private:
  void MaybePrint(uint64_t done);

  bool enabled_;
  std::string what_;
  uint64_t total_;
  std::string units_;
  absl::Time next_;
  bool printed_ = false;
};

}  // namespace inspect
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_SST_INSPECT_COMMON_H_
