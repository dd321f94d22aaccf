#include "tools/sst_inspect_common.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lsmbloom/inspect/escape.h"

namespace lsmbloom {
namespace inspect {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> ParseHex(std::string_view text) {
  if (text.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad hex '", std::string(text), "': an odd number of digits"));
  }
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    const int hi = HexDigit(text[i]), lo = HexDigit(text[i + 1]);
    if (hi < 0 || lo < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad hex digit at byte ", i, " of '", std::string(text), "'"));
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

// The file number LSM order sorts by, or -1.
int64_t FileNumber(const std::string& path) {
  std::string base = std::filesystem::path(path).filename().string();
  size_t end = base.find_last_of("0123456789");
  if (end == std::string::npos) return -1;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(base[begin - 1]))) --begin;
  if (end - begin >= 18) return -1;  // Not a number we would write.
  return std::stoll(base.substr(begin, end - begin + 1));
}

int64_t ModifiedNanos(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

void SortLsmOrder(std::vector<InputFile>* files) {
  struct Key {
    int64_t number, mtime;
  };
  std::vector<std::pair<Key, InputFile>> keyed;
  for (InputFile& f : *files) {
    keyed.push_back({{FileNumber(f.path), ModifiedNanos(f.path)}, std::move(f)});
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first.number != b.first.number) return a.first.number > b.first.number;
    if (a.first.mtime != b.first.mtime) return a.first.mtime > b.first.mtime;
    return a.second.shown < b.second.shown;
  });
  files->clear();
  for (auto& k : keyed) files->push_back(std::move(k.second));
}

}  // namespace

std::string EscapeBytes(std::string_view bytes) {
  return lsmbloom::EscapeBytes(bytes, /*also_escaped=*/"\"");
}

std::string HexBytes(std::string_view bytes) {
  std::string out;
  for (char c : bytes) absl::StrAppendFormat(&out, "%02x", static_cast<unsigned char>(c));
  return out;
}

std::string ShowBytes(const Style& style, std::string_view bytes) {
  return style.hex ? HexBytes(bytes) : EscapeBytes(bytes);
}

std::string Quoted(const Style& style, std::string_view bytes) {
  return style.hex ? HexBytes(bytes) : absl::StrCat("\"", EscapeBytes(bytes), "\"");
}

absl::StatusOr<std::string> ParseBytes(const Style& style, std::string_view text) {
  return style.hex ? ParseHex(text) : UnescapeBytes(text, /*quote_escaped=*/false);
}

std::string StatusText(const absl::Status& status) {
  return absl::StrCat(absl::StatusCodeToString(status.code()), ": ", status.message());
}

std::string Percent(double fraction) { return absl::StrFormat("%.3f%%", fraction * 100); }

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

void Row(const std::string& label, const std::string& value, int indent) {
  std::printf("%*s%-*s %s\n", indent, "", 20 - indent, label.c_str(), value.c_str());
}

void Complain(const std::string& path, const std::string& message) {
  std::fprintf(stderr, "sst_inspect: %s: %s\n", path.c_str(), message.c_str());
}

Json FileError(const std::string& path, const absl::Status& status) {
  const std::string message(status.message());
  Complain(path, message);
  return Json{{"file", EscapeBytes(path)}, {"error", EscapeBytes(message)}};
}

std::string ResolvePath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

std::vector<InputFile> ExpandFiles(const std::vector<std::string>& args, bool lsm_order,
                                   std::vector<std::pair<std::string, absl::Status>>* errors) {
  std::vector<InputFile> files;
  for (const std::string& arg : args) {
    const std::string path = ResolvePath(arg);
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      files.push_back({arg, path});
      continue;
    }
    std::vector<InputFile> in_dir;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && name.size() > 4 &&
          name.compare(name.size() - 4, 4, ".sst") == 0) {
        const std::string shown = arg.back() == '/' ? arg + name : arg + "/" + name;
        in_dir.push_back({shown, entry.path().string()});
      }
    }
    if (ec) {
      errors->push_back({arg, absl::NotFoundError(ec.message())});
    } else if (in_dir.empty()) {
      errors->push_back({arg, absl::NotFoundError("is a directory with no *.sst files")});
    }
    SortLsmOrder(&in_dir);
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  if (lsm_order) SortLsmOrder(&files);
  return files;
}

Progress::Progress(bool enabled, std::string what, uint64_t total, std::string units)
    : enabled_(enabled),
      what_(std::move(what)),
      total_(total),
      units_(std::move(units)),
      next_(absl::Now() + absl::Seconds(1)) {}

Progress::~Progress() { Clear(); }

void Progress::Clear() {
  if (printed_) std::fprintf(stderr, "\r\033[K");
  printed_ = false;
}

void Progress::MaybePrint(uint64_t done) {
  const absl::Time now = absl::Now();
  if (now < next_) return;
  next_ = now + absl::Seconds(1);
  const uint64_t percent = total_ == 0 ? 0 : std::min<uint64_t>(100, done * 100 / total_);
  std::fprintf(stderr, "\r\033[K%s: %llu of %llu %s (%llu%%)", what_.c_str(),
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
               units_.c_str(), static_cast<unsigned long long>(percent));
  std::fflush(stderr);
  printed_ = true;
}

}  // namespace inspect
}  // namespace lsmbloom
