// The integer encodings of every stored byte (docs/FORMAT.md): little-endian
// fixed-width integers and LEB128 varints, with bounds-checked decoding:
// every Get* fails (returns false) rather than read past `input`. Shared by
// the table and the filter formats.

#ifndef LSMBLOOM_SRC_UTIL_CODING_H_
#define LSMBLOOM_SRC_UTIL_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace lsmbloom {
namespace internal {

// Writes v to dst[0, 4) / dst[0, 8), least significant byte first,
// whatever the host's byte order.
inline void EncodeFixed32(void* dst, uint32_t v) {
  auto* p = static_cast<unsigned char*>(dst);
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

inline void EncodeFixed64(void* dst, uint64_t v) {
  auto* p = static_cast<unsigned char*>(dst);
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

inline uint32_t DecodeFixed32(const void* src) {
  const auto* p = static_cast<const unsigned char*>(src);
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

inline uint64_t DecodeFixed64(const void* src) {
  const auto* p = static_cast<const unsigned char*>(src);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, 4);
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, 8);
}

// How many leading bytes a and b share, a word at a time (for a
// little-endian host: the lowest set bit of the words' XOR is in the first
// byte that differs). Keys compared on the lookup path are short, and a call
// to memcmp costs more than comparing them; the two functions below use it.
inline size_t CommonPrefixLength(std::string_view a, std::string_view b) {
  const size_t common = a.size() < b.size() ? a.size() : b.size();
  size_t n = 0;
  for (; n + 8 <= common; n += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + n, sizeof(x));
    std::memcpy(&y, b.data() + n, sizeof(y));
    if (x != y) return n + static_cast<size_t>(__builtin_ctzll(x ^ y)) / 8;
  }
  while (n < common && a[n] == b[n]) ++n;
  return n;
}

// Whether `s` begins with `prefix`.
inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && CommonPrefixLength(s, prefix) == prefix.size();
}

// a.compare(b)'s sign: the first byte that differs orders them, else the
// shorter comes first.
inline int CompareBytes(std::string_view a, std::string_view b) {
  const size_t n = CommonPrefixLength(a, b);
  if (n < a.size() && n < b.size()) {
    return static_cast<uint8_t>(a[n]) < static_cast<uint8_t>(b[n]) ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Bytes [from, from + 8) of `s` as a big-endian number, zero-padded. Among
// strings that share their first `from` bytes, different numbers order
// their strings as the bytes do; equal numbers need a full compare.
inline uint64_t OrderedPrefix8(std::string_view s, size_t from) {
  if (s.size() >= 8 && from < s.size()) {
    // One load and a byte swap: of bytes [from, from + 8) when s has them,
    // else of its last 8 bytes, shifted so that byte `from` leads and
    // zeros fill in after the end.
    const size_t start = s.size() >= from + 8 ? from : s.size() - 8;
    uint64_t v;
    std::memcpy(&v, s.data() + start, sizeof(v));
    return __builtin_bswap64(v) << (8 * (from - start));
  }
  uint64_t p = 0;
  const size_t end = s.size() < from + 8 ? s.size() : from + 8;
  for (size_t i = from; i < end; ++i) {
    p |= uint64_t{static_cast<uint8_t>(s[i])} << (56 - 8 * (i - from));
  }
  return p;
}

inline void PutVarint64(std::string* dst, uint64_t v) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  dst->append(buf, n);
}

inline void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s.data(), s.size());
}

// Consumes a varint from the front of *input.
inline bool GetVarint64(std::string_view* input, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !input->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>((*input)[0]);
    input->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

inline bool GetVarint32(std::string_view* input, uint32_t* value) {
  uint64_t v;
  if (!GetVarint64(input, &v) || v > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(v);
  return true;
}

inline bool GetLengthPrefixed(std::string_view* input, std::string_view* result) {
  uint64_t len;
  if (!GetVarint64(input, &len) || len > input->size()) return false;
  *result = input->substr(0, len);
  input->remove_prefix(len);
  return true;
}

}  // namespace internal
}  // namespace lsmbloom

#endif  // LSMBLOOM_SRC_UTIL_CODING_H_
