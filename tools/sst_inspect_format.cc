#include "tools/sst_inspect_format.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lsmbloom {
namespace inspect {

namespace {

bool StandsForItself(unsigned char c) {
  return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string EscapeBytes(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (StandsForItself(u)) {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    }
  }
  return out;
}

absl::StatusOr<std::string> UnescapeBytes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    const bool well_formed = i + 3 < text.size() && text[i + 1] == 'x' &&
                             HexDigit(text[i + 2]) >= 0 && HexDigit(text[i + 3]) >= 0;
    if (!well_formed) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad escape at byte ", i, " of '", Absl(text),
          "': write a byte as \\xNN (a backslash itself as \\x5c)"));
    }
    const int hi = HexDigit(text[i + 2]);
    const int lo = HexDigit(text[i + 3]);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 3;
  }
  return out;
}

std::string Quoted(std::string_view bytes) {
  return absl::StrCat("\"", EscapeBytes(bytes), "\"");
}

std::string StatusText(const absl::Status& status) {
  return absl::StrCat(absl::StatusCodeToString(status.code()), ": ",
                      status.message());
}

std::string Percent(double fraction) {
  return absl::StrFormat("%.3f%%", fraction * 100);
}

std::string Bytes(uint64_t n) {
  if (n < 1024) return absl::StrCat(n, " bytes");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double scaled = n / 1024.0;
  int unit = 0;
  while (scaled >= 1024 && unit < 3) {
    scaled /= 1024;
    ++unit;
  }
  return absl::StrFormat("%u bytes (%.1f %s)", n, scaled, units[unit]);
}

JsonWriter& JsonWriter::Key(std::string_view name) {
  BeforeValue();
  WriteEscaped(name);
  std::fputs(": ", out_);
  after_key_ = true;
  return *this;
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  WriteEscaped(s);
}

void JsonWriter::Uint(uint64_t v) {
  BeforeValue();
  std::fprintf(out_, "%llu", static_cast<unsigned long long>(v));
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  std::fprintf(out_, "%lld", static_cast<long long>(v));
}

void JsonWriter::Double(double v) {
  BeforeValue();
  if (std::isfinite(v)) {
    std::fprintf(out_, "%.6g", v);
  } else {
    std::fputs("null", out_);
  }
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  std::fputs(v ? "true" : "false", out_);
}

void JsonWriter::Null() {
  BeforeValue();
  std::fputs("null", out_);
}

void JsonWriter::Finish() { std::fputc('\n', out_); }

void JsonWriter::Open(char bracket, bool one_line) {
  BeforeValue();
  std::fputc(bracket, out_);
  // Inside a one-line container everything stays on that line.
  const bool inherited = !levels_.empty() && levels_.back().one_line;
  levels_.push_back(Level{one_line || inherited});
}

void JsonWriter::Close(char bracket) {
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.empty && !level.one_line) {
    std::fputc('\n', out_);
    for (size_t i = 0; i < levels_.size(); ++i) std::fputs("  ", out_);
  }
  std::fputc(bracket, out_);
}

void JsonWriter::BeforeValue() {
  if (after_key_) {  // The value of a member: already placed by Key().
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;  // The document's top-level value.
  Level& level = levels_.back();
  const bool first = level.empty;
  level.empty = false;
  if (level.one_line) {
    if (!first) std::fputs(", ", out_);
    return;
  }
  if (!first) std::fputc(',', out_);
  std::fputc('\n', out_);
  for (size_t i = 0; i < levels_.size(); ++i) std::fputs("  ", out_);
}

void JsonWriter::WriteEscaped(std::string_view s) {
  std::fputc('"', out_);
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      std::fputc('\\', out_);
      std::fputc(c, out_);
    } else if (u < 0x20 || u >= 0x7f) {
      std::fprintf(out_, "\\u%04x", u);
    } else {
      std::fputc(c, out_);
    }
  }
  std::fputc('"', out_);
}

}  // namespace inspect
}  // namespace lsmbloom
