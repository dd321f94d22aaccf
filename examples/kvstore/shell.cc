#include "shell.h"

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "escape.h"
#include "load.h"
#include "lsmbloom/lookup/lookup.h"

namespace kvstore {
namespace {

constexpr char kHelp[] =
    "OK commands: put KEY VALUE | get KEY | delete KEY | scan [FROM [TO [LIMIT]]] | "
    "batch FILE | flush | compact [LEVEL] | stats | help | quit";

// Splits off the first word of `*line` (words are separated by spaces or
// tabs), leaving the rest after one separator.
std::string_view NextWord(std::string_view* line) {
  const size_t start = line->find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    *line = {};
    return {};
  }
  line->remove_prefix(start);
  const size_t end = std::min(line->find_first_of(" \t"), line->size());
  const std::string_view word = line->substr(0, end);
  line->remove_prefix(std::min(end + 1, line->size()));
  return word;
}

class Shell {
 public:
  Shell(Store& store, std::FILE* out) : store_(store), out_(out) {}

  // Answers one line; false for quit.
  bool Handle(std::string_view line) {
    const std::string_view command = NextWord(&line);
    if (command.empty() || command[0] == '#') return true;
    absl::Status s;
    if (command == "quit" || command == "exit") {
      Reply("BYE");
      return false;
    } else if (command == "put") {
      s = Put(line);
    } else if (command == "get") {
      s = Get(NextWord(&line));
    } else if (command == "delete") {
      absl::StatusOr<std::string> key = KeyWord(NextWord(&line), "delete KEY");
      s = key.ok() ? store_.Delete(*key) : key.status();
      if (s.ok()) Reply("OK");
    } else if (command == "scan") {
      s = Scan(line);
    } else if (command == "batch") {
      s = Batch(NextWord(&line));
    } else if (command == "flush") {
      s = store_.Flush();
      if (s.ok()) Reply("OK");
    } else if (command == "compact") {
      s = Compact(NextWord(&line));
    } else if (command == "stats") {
      Stats();
    } else if (command == "help") {
      Reply(kHelp);
    } else {
      s = absl::InvalidArgumentError(
          absl::StrCat("unknown command '", std::string(command), "' (try help)"));
    }
    if (!s.ok()) Reply(absl::StrCat("ERROR ", OneLine(std::string(s.message()))));
    return true;
  }

 private:
  static absl::Status Usage(const char* usage) {
    return absl::InvalidArgumentError(absl::StrCat("usage: ", usage));
  }

  // An error message on one line: control bytes as \xNN.
  static std::string OneLine(std::string_view message) {
    std::string out;
    for (char c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        out += Escape(std::string_view(&c, 1));
      } else {
        out.push_back(c);
      }
    }
    return out;
  }

  // The key a word stands for; the usage error if there is none.
  static absl::StatusOr<std::string> KeyWord(std::string_view word, const char* usage) {
    if (word.empty()) return Usage(usage);
    return Unescape(word);
  }

  absl::Status Put(std::string_view args) {
    // The value starts after the one separator that ends the key; without
    // one there is no value, which is not the same as an empty one.
    const size_t start = args.find_first_not_of(" \t");
    if (start == std::string_view::npos) return Usage("put KEY VALUE");
    args.remove_prefix(start);
    const size_t end = args.find_first_of(" \t");
    if (end == std::string_view::npos) return Usage("put KEY VALUE");
    absl::StatusOr<std::string> key = Unescape(args.substr(0, end));
    if (!key.ok()) return key.status();
    absl::StatusOr<std::string> value = Unescape(args.substr(end + 1));
    if (!value.ok()) return value.status();
    absl::Status s = store_.Put(*key, *value);
    if (s.ok()) Reply("OK");
    return s;
  }

  void Reply(std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fputc('\n', out_);
  }

  absl::Status Get(std::string_view word) {
    absl::StatusOr<std::string> key = KeyWord(word, "get KEY");
    if (!key.ok()) return key.status();
    absl::StatusOr<std::optional<std::string>> value = store_.Get(*key);
    if (!value.ok()) return value.status();
    Reply(value->has_value() ? absl::StrCat("VALUE ", Escape(**value)) : "NOT_FOUND");
    return absl::OkStatus();
  }

  absl::Status Scan(std::string_view args) {
    Store::ScanRange range;
    const std::string_view from = NextWord(&args);
    const std::string_view to = NextWord(&args);
    const std::string_view limit = NextWord(&args);
    if (from != "-") {
      absl::StatusOr<std::string> k = Unescape(from);
      if (!k.ok()) return k.status();
      range.from = *k;
    }
    if (to != "-") {
      absl::StatusOr<std::string> k = Unescape(to);
      if (!k.ok()) return k.status();
      range.to = *k;
    }
    if (!limit.empty() && !absl::SimpleAtoi(std::string(limit), &range.limit)) {
      return Usage("scan [FROM [TO [LIMIT]]]");
    }
    size_t count = 0;
    absl::Status s = store_.Scan(range, [&](std::string_view key, std::string_view value) {
      const std::string line = TsvLine(key, value);
      std::fwrite(line.data(), 1, line.size(), out_);
      ++count;
      return true;
    });
    if (s.ok()) Reply(absl::StrCat("OK ", count));
    return s;
  }

  absl::Status Batch(std::string_view path) {
    if (path.empty()) return Usage("batch FILE");
    absl::StatusOr<uint64_t> n = LoadTsv(store_, std::string(path), nullptr);
    if (!n.ok()) return n.status();
    Reply(absl::StrCat("OK ", *n));
    return absl::OkStatus();
  }

  absl::Status Compact(std::string_view level_word) {
    int level = -1;
    if (!level_word.empty() && !absl::SimpleAtoi(std::string(level_word), &level)) {
      return Usage("compact [LEVEL]");
    }
    absl::Status s = level < 0 ? store_.CompactAll() : store_.CompactLevel(level);
    if (s.ok()) Reply("OK");
    return s;
  }

  void Stats() {
    std::string files;
    const auto levels = store_.files();
    for (size_t level = 0; level < levels.size(); ++level) {
      if (!levels[level].empty()) absl::StrAppend(&files, " L", level, "=", levels[level].size());
    }
    // Last, as it is free text: why writes are refused, if they are.
    const absl::Status write_error = store_.write_error();
    Reply(absl::StrFormat("OK last_sequence=%d memtable_entries=%d memtable_bytes=%d files:%s%s",
                          store_.last_sequence(), store_.memtable_entries(),
                          store_.memtable_bytes(), files.empty() ? " none" : files,
                          write_error.ok() ? ""
                                           : absl::StrCat(" write_error=",
                                                          OneLine(std::string(write_error.message())))));
  }

  Store& store_;
  std::FILE* out_;
};

}  // namespace

void RunShell(Store& store, std::FILE* in, std::FILE* out) {
  Shell shell(store, out);
  char* buffer = nullptr;
  size_t capacity = 0;
  ssize_t n;
  bool go_on = true;
  while (go_on && (n = ::getline(&buffer, &capacity, in)) >= 0) {
    std::string_view line(buffer, static_cast<size_t>(n));
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    go_on = shell.Handle(line);
    std::fflush(out);  // An interactive user, or a program, waits for it.
  }
  std::free(buffer);
}

}  // namespace kvstore
