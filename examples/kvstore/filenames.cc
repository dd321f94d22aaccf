#include "filenames.h"

#include <charconv>
#include <utility>

#include "absl/strings/str_format.h"

namespace kvstore {
namespace {

// "000123" -> 123: digits only, all of them, no overflow.
bool ParseNumber(std::string_view digits, uint64_t* number) {
  const char* end = digits.data() + digits.size();
  auto [ptr, error] = std::from_chars(digits.data(), end, *number);
  return !digits.empty() && error == std::errc() && ptr == end;
}

// Removes `suffix` from the end of `name` if it is there.
bool ConsumeSuffix(std::string_view* name, std::string_view suffix) {
  if (name->size() < suffix.size() || name->substr(name->size() - suffix.size()) != suffix) {
    return false;
  }
  name->remove_suffix(suffix.size());
  return true;
}

}  // namespace

ParsedFileName ParseFileName(std::string_view name) {
  ParsedFileName parsed;
  if (ConsumeSuffix(&name, ".tmp")) {
    // Temporaries of the atomic writer: "MANIFEST.tmp", "000123.sst.tmp".
    const ParsedFileName base = ParseFileName(name);
    if (name == "MANIFEST" || base.kind == FileKind::kTable) parsed.kind = FileKind::kTemp;
    return parsed;
  }
  for (const auto& [suffix, kind] :
       {std::pair{".sst", FileKind::kTable}, std::pair{".log", FileKind::kLog}}) {
    std::string_view base = name;
    if (ConsumeSuffix(&base, suffix) && ParseNumber(base, &parsed.number)) {
      parsed.kind = kind;
      return parsed;
    }
  }
  return ParsedFileName();
}

std::string TableFileName(const std::string& dir, uint64_t number) {
  return absl::StrFormat("%s/%06d.sst", dir, number);
}

std::string LogFileName(const std::string& dir, uint64_t number) {
  return absl::StrFormat("%s/%06d.log", dir, number);
}

}  // namespace kvstore
