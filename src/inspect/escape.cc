#include "lsmbloom/inspect/escape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lsmbloom {
namespace {

bool StandsForItself(unsigned char c, std::string_view also_escaped) {
  return c >= 0x20 && c <= 0x7e && c != '\\' &&
         also_escaped.find(static_cast<char>(c)) == std::string_view::npos;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string EscapeBytes(std::string_view bytes, std::string_view also_escaped) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (StandsForItself(u, also_escaped)) {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", u);
    }
  }
  return out;
}

absl::StatusOr<std::string> UnescapeBytes(std::string_view text, bool quote_escaped) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    const bool well_formed = i + 3 < text.size() && text[i + 1] == 'x' &&
                             HexDigit(text[i + 2]) >= 0 && HexDigit(text[i + 3]) >= 0;
    if (!well_formed) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad escape at byte ", i, " of '",
                       quote_escaped ? EscapeBytes(text) : std::string(text),
                       "': write a byte as \\xNN (a backslash itself as \\x5c)"));
    }
    out.push_back(static_cast<char>(HexDigit(text[i + 2]) * 16 + HexDigit(text[i + 3])));
    i += 3;
  }
  return out;
}

}  // namespace lsmbloom
