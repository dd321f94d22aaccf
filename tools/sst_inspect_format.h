// Output helpers for sst_inspect: byte escaping, a small JSON writer, and
// number formatting for the human-readable reports.
//
// Keys and values are arbitrary bytes. Everywhere sst_inspect prints them
// (human output and JSON alike) it uses one escaping: printable ASCII stands
// for itself, except '"' and '\', and every other byte is written \xNN with
// two lowercase hex digits. The escaping is lossless, and UnescapeBytes()
// reverses it, so a key printed by `scan` can be passed back to `get`.

#ifndef LSMBLOOM_TOOLS_SST_INSPECT_FORMAT_H_
#define LSMBLOOM_TOOLS_SST_INSPECT_FORMAT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace lsmbloom {
namespace inspect {

// This Abseil's string_view is its own type, not std::string_view; these
// bridge the two (the library speaks std::string_view).
inline std::string_view Std(absl::string_view s) { return {s.data(), s.size()}; }
inline absl::string_view Absl(std::string_view s) { return {s.data(), s.size()}; }

// `bytes` with every byte outside 0x20..0x7e, and '"' and '\', as \xNN.
std::string EscapeBytes(std::string_view bytes);

// The inverse of EscapeBytes. Accepts \xNN in either case; any other use of
// '\' is InvalidArgument.
absl::StatusOr<std::string> UnescapeBytes(std::string_view text);

// EscapeBytes in double quotes: "key\x00".
std::string Quoted(std::string_view bytes);

// "CODE: message", e.g. "DATA_LOSS: filter block: checksum mismatch ...".
std::string StatusText(const absl::Status& status);

// 0.00966 -> "0.966%"; three significant decimals after the point.
std::string Percent(double fraction);

// 12345 -> "12345 bytes (12.1 KiB)"; small sizes without the unit part.
std::string Bytes(uint64_t n);

// Writes one JSON document to a stdio stream, two-space indented. A
// container opened with `one_line` keeps its members on one line, which
// suits short records such as table entries. The writer does no validation
// beyond what its call sequence implies: each Key() must be followed by
// exactly one value. Strings are written with JSON escapes for '"', '\' and
// control bytes; callers pass bytes from files through EscapeBytes first, so
// the document is plain ASCII.
class JsonWriter {
 public:
  explicit JsonWriter(std::FILE* out) : out_(out) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void BeginObject(bool one_line = false) { Open('{', one_line); }
  void EndObject() { Close('}'); }
  void BeginArray(bool one_line = false) { Open('[', one_line); }
  void EndArray() { Close(']'); }

  // The name of the next member; the value follows.
  JsonWriter& Key(std::string_view name);

  void String(std::string_view s);
  void Uint(uint64_t v);
  void Int(int64_t v);
  // Finite values with up to 6 significant digits; NaN and infinities as null.
  void Double(double v);
  void Bool(bool v);
  void Null();

  // Ends the document with a newline.
  void Finish();

 private:
  struct Level {
    bool one_line;
    bool empty = true;
  };

  void Open(char bracket, bool one_line);
  void Close(char bracket);
  // Separator and indentation before a value (or before a key in objects).
  void BeforeValue();
  void WriteEscaped(std::string_view s);

  std::FILE* out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace inspect
}  // namespace lsmbloom

#endif  // LSMBLOOM_TOOLS_SST_INSPECT_FORMAT_H_
