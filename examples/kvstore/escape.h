// Keys and values as text: how the command line, the shell, `scan` and
// `load` write and read arbitrary bytes, one rule everywhere: lsmbloom's
// (lsmbloom/inspect/escape.h), which sst_inspect uses too.
//
// A printable ASCII byte (0x20 to 0x7e) stands for itself, except the
// backslash; every other byte, the backslash, tab, newline and carriage
// return included, is written \xNN (two hex digits). So an escaped key or
// value never holds a tab or a line break: a scan line is always
// KEY<TAB>VALUE<LF>, a shell answer always one line, and `load` reads what
// `scan` wrote back to the same bytes. Reading takes either case of hex
// digit and refuses any other backslash (a literal one is \x5c).

#ifndef KVSTORE_ESCAPE_H_
#define KVSTORE_ESCAPE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "lsmbloom/inspect/escape.h"

namespace kvstore {

inline std::string Escape(std::string_view bytes) { return lsmbloom::EscapeBytes(bytes); }

// InvalidArgument, naming the byte offset, for a backslash that does not
// start \xNN.
inline absl::StatusOr<std::string> Unescape(std::string_view text) {
  return lsmbloom::UnescapeBytes(text);
}

}  // namespace kvstore

#endif  // KVSTORE_ESCAPE_H_
