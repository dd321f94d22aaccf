// The interactive mode: commands from a stream, one per line, each
// answered on one line (scan: one line per key, then its closing line), so
// a program can drive the store through a pipe and thousands of writes
// cost what the store's writes cost, not a process each.
//
//   put KEY VALUE        OK                 (VALUE: the rest of the line
//                                            after the one space past KEY)
//   get KEY              VALUE <value>  or  NOT_FOUND
//   delete KEY           OK
//   scan [FROM [TO [LIMIT]]]
//                        KEY<TAB>VALUE lines, then OK <count>
//                        (FROM "" or "-": the start; TO "-": the end;
//                        FROM > TO: an error)
//   batch FILE           OK <count>         (a TSV file, as `load` takes)
//   flush                OK
//   compact [LEVEL]      OK                 (no LEVEL: every level)
//   stats                OK <one-line summary>
//   help                 OK <the commands>
//   quit                 BYE                (end of input too, silently)
//
// A failed command answers "ERROR <message>" and the shell goes on. Keys
// and values, in commands and answers, are escaped as escape.h says, so
// every answer is one line whatever the bytes; keys are words, so a space
// in one is written \x20 (and a key "-" as \x2d). A key may not be empty;
// a value may, but must be given: "put k " (the space) stores an empty
// value, "put k" is an error, as on the command line. Blank lines and
// lines starting with '#' get no answer.

#ifndef KVSTORE_SHELL_H_
#define KVSTORE_SHELL_H_

#include <cstdio>

#include "store.h"

namespace kvstore {

// Runs until "quit" or the end of `in`; the caller closes the store.
void RunShell(Store& store, std::FILE* in, std::FILE* out);

}  // namespace kvstore

#endif  // KVSTORE_SHELL_H_
