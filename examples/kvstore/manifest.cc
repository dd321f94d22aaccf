#include "manifest.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "absl/strings/str_cat.h"
#include "lsmbloom/lookup/lookup.h"

namespace kvstore {
namespace {

constexpr std::string_view kHeaderV1 = "kvstore-manifest v1";
constexpr std::string_view kHeaderV2 = "kvstore-manifest v2";

absl::Status Corrupt(int line_number, std::string_view line, const char* why) {
  return absl::DataLossError(
      absl::StrCat("MANIFEST line ", line_number, ": ", why, ": '", std::string(line), "'"));
}

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  while (!line.empty()) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const size_t end = std::min(line.find(' '), line.size());
    words.push_back(line.substr(0, end));
    line.remove_prefix(end);
  }
  return words;
}

// Decimal digits only: no sign, no spaces, no overflow.
bool ParseNumber(std::string_view word, uint64_t* value) {
  const char* end = word.data() + word.size();
  auto [ptr, error] = std::from_chars(word.data(), end, *value);
  return !word.empty() && error == std::errc() && ptr == end;
}

// "size=123" -> 123 for prefix "size=".
bool ParseField(std::string_view word, std::string_view prefix, uint64_t* value) {
  if (word.substr(0, prefix.size()) != prefix) return false;
  return ParseNumber(word.substr(prefix.size()), value);
}

// Exactly 16 lowercase or uppercase hex digits.
bool ParseHexId(std::string_view word, uint64_t* value) {
  if (word.substr(0, 3) != "id=" || word.size() != 3 + 16) return false;
  word.remove_prefix(3);
  auto [ptr, error] = std::from_chars(word.data(), word.data() + word.size(), *value, 16);
  return error == std::errc() && ptr == word.data() + word.size();
}

}  // namespace

std::string ManifestPath(const std::string& dir) { return dir + "/MANIFEST"; }

std::string EncodeManifest(const Manifest& manifest) {
  std::string text = absl::StrCat(std::string(kHeaderV2), "\n");
  absl::StrAppend(&text, "next_file_number ", manifest.next_file_number, "\n");
  absl::StrAppend(&text, "last_sequence ", manifest.last_sequence, "\n");
  absl::StrAppend(&text, "log_number ", manifest.log_number, "\n");
  if (manifest.ribbon_from_level >= 0) {
    absl::StrAppend(&text, "ribbon_from_level ", manifest.ribbon_from_level, "\n");
  }
  for (const ManifestFile& f : manifest.files) {
    absl::StrAppend(&text, "file ", f.level, " ", f.number, " size=", f.file_size, " id=",
                    absl::Hex(f.unique_id, absl::kZeroPad16), "\n");
  }
  text += "end\n";
  return text;
}

absl::StatusOr<Manifest> DecodeManifest(std::string_view text) {
  Manifest manifest;
  bool have_next_file = false, have_sequence = false, ended = false, v2 = false;
  std::set<uint64_t> numbers;
  for (int line_number = 1; !text.empty(); ++line_number) {
    const size_t eol = text.find('\n');
    if (eol == std::string_view::npos) {
      return Corrupt(line_number, text, "unterminated line (truncated file?)");
    }
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    if (ended) return Corrupt(line_number, line, "text after 'end'");
    if (line_number == 1) {
      if (line != kHeaderV1 && line != kHeaderV2) {
        return Corrupt(line_number, line, "not a kvstore MANIFEST of version 1 or 2");
      }
      v2 = line == kHeaderV2;
      manifest.version = v2 ? 2 : 1;
      continue;
    }
    const std::vector<std::string_view> w = Words(line);
    uint64_t a = 0, b = 0, size = 0, id = 0;
    if (w.size() == 2 && w[0] == "next_file_number" && ParseNumber(w[1], &a)) {
      manifest.next_file_number = a;
      have_next_file = true;
    } else if (w.size() == 2 && w[0] == "last_sequence" && ParseNumber(w[1], &a)) {
      if (a > lsmbloom::kMaxSequenceNumber) {
        return Corrupt(line_number, line, "sequence number out of range");
      }
      manifest.last_sequence = a;
      have_sequence = true;
    } else if (w.size() == 2 && w[0] == "log_number" && ParseNumber(w[1], &a)) {
      manifest.log_number = a;
    } else if (w.size() == 2 && w[0] == "ribbon_from_level" && ParseNumber(w[1], &a)) {
      if (a >= static_cast<uint64_t>(lsmbloom::kNumLevels)) {
        return Corrupt(line_number, line, "level out of range");
      }
      manifest.ribbon_from_level = static_cast<int>(a);
    } else if (w.size() == (v2 ? 5u : 3u) && w[0] == "file" && ParseNumber(w[1], &a) &&
               ParseNumber(w[2], &b) &&
               (!v2 || (ParseField(w[3], "size=", &size) && ParseHexId(w[4], &id)))) {
      if (v2 && size == 0) return Corrupt(line_number, line, "a table of size 0");
      if (a >= static_cast<uint64_t>(lsmbloom::kNumLevels)) {
        return Corrupt(line_number, line, "level out of range");
      }
      if (!numbers.insert(b).second) {
        return Corrupt(line_number, line, "file listed twice");
      }
      manifest.files.push_back({static_cast<int>(a), b, size, id});
    } else if (w.size() == 1 && w[0] == "end") {
      ended = true;
    } else {
      return Corrupt(line_number, line, "unrecognized line");
    }
  }
  if (!ended) return absl::DataLossError("MANIFEST: no 'end' line (truncated file?)");
  if (!have_next_file || !have_sequence) {
    return absl::DataLossError("MANIFEST: next_file_number or last_sequence missing");
  }
  if (!numbers.empty() && *numbers.rbegin() >= manifest.next_file_number) {
    return absl::DataLossError(absl::StrCat("MANIFEST: file ", *numbers.rbegin(),
                                            " is not below next_file_number ",
                                            manifest.next_file_number));
  }
  return manifest;
}

absl::StatusOr<Manifest> ReadManifest(const std::string& dir, Env* env) {
  absl::StatusOr<std::string> text = ReadFileToString(env, ManifestPath(dir));
  if (!text.ok()) return text.status();
  return DecodeManifest(*text);
}

absl::Status WriteManifest(const std::string& dir, const Manifest& manifest, Env* env) {
  // The atomic file writes MANIFEST.tmp, and Close() syncs it, renames it
  // over MANIFEST and syncs the directory.
  absl::StatusOr<std::unique_ptr<lsmbloom::WritableFile>> file =
      NewAtomicFile(env, ManifestPath(dir));
  if (!file.ok()) return file.status();
  absl::Status s = (*file)->Append(EncodeManifest(manifest));
  if (s.ok()) s = (*file)->Close();
  return s;
}

}  // namespace kvstore
