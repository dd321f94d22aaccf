// Arbitrary bytes as one line of printable text, and back: how tools built on
// the inspection layer (sst_inspect, the example store's command line) show
// keys, values and names, one rule for all of them.
//
// A printable ASCII byte (0x20 to 0x7e) stands for itself, except the
// backslash and any byte the caller also escapes; every other byte, tab,
// newline and carriage return included, is written \xNN (two lower-case hex
// digits). So escaped text never holds a tab or a line break. Reading takes
// either case of hex digit and refuses any other backslash (a literal one is
// \x5c). Pure functions: safe from any thread.

#ifndef LSMBLOOM_INSPECT_ESCAPE_H_
#define LSMBLOOM_INSPECT_ESCAPE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lsmbloom {

// `bytes` escaped; each byte of `also_escaped` is written \xNN too (for
// example the double quote, for text shown between quotes).
std::string EscapeBytes(std::string_view bytes, std::string_view also_escaped = {});

// The bytes `text` stands for: the inverse of EscapeBytes, whatever it also
// escaped. For a backslash that does not start \xNN, InvalidArgument
// "bad escape at byte N of '<text>': write a byte as \xNN (a backslash itself
// as \x5c)", where <text> is EscapeBytes(text) when quote_escaped (so the
// message stays one printable line) and `text` as given otherwise.
absl::StatusOr<std::string> UnescapeBytes(std::string_view text, bool quote_escaped = true);

}  // namespace lsmbloom

#endif  // LSMBLOOM_INSPECT_ESCAPE_H_
