// The interactive mode: commands from a stream, one per line, each
// answered on one line (scan: one line per key, then its closing line), so
// a program can drive the store through a pipe and thousands of writes
// cost what the store's writes cost, not a process each.
//
//   put KEY VALUE        OK                 (VALUE: the rest of the line)
//   get KEY              VALUE <value>  or  NOT_FOUND
//   delete KEY           OK
//   scan [FROM [TO [LIMIT]]]
//                        KEY<TAB>VALUE lines, then OK <count>
//                        (FROM "" or "-": the start; TO "-": the end)
//   batch FILE           OK <count>         (a TSV file, as `load` takes)
//   flush                OK
//   compact [LEVEL]      OK                 (no LEVEL: every level)
//   stats                OK <one-line summary>
//   help                 OK <the commands>
//   quit                 BYE                (end of input too, silently)
//
// A failed command answers "ERROR <message>" and the shell goes on. Keys
// are words: they cannot hold spaces or tabs here. Blank lines and lines
// starting with '#' get no answer.

#ifndef KVSTORE_SHELL_H_
#define KVSTORE_SHELL_H_

#include <cstdio>

#include "store.h"

namespace kvstore {

// Runs until "quit" or the end of `in`; the caller closes the store.
void RunShell(Store& store, std::FILE* in, std::FILE* out);

}  // namespace kvstore

#endif  // KVSTORE_SHELL_H_
