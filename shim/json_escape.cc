#include "json_escape.h"

namespace json_escape {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length of the well-formed UTF-8 sequence at raw[pos], or 0 when the byte
// there does not start one (RFC 3629 table: no overlongs, no surrogates,
// nothing above U+10FFFF).
std::size_t WellFormedLength(std::string_view raw, std::size_t pos) {
  auto byte = [&](std::size_t i) -> unsigned {
    return pos + i < raw.size() ? static_cast<unsigned char>(raw[pos + i]) : 0x100u;
  };
  auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  unsigned b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (in(b0, 0xc2, 0xdf)) return in(byte(1), 0x80, 0xbf) ? 2 : 0;
  unsigned lo = 0x80, hi = 0xbf;
  if (b0 == 0xe0) lo = 0xa0;
  if (b0 == 0xed) hi = 0x9f;
  if (in(b0, 0xe0, 0xef)) {
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xbf) ? 3 : 0;
  }
  if (b0 == 0xf0) lo = 0x90;
  if (b0 == 0xf4) hi = 0x8f;
  if (in(b0, 0xf0, 0xf4)) {
    return in(byte(1), lo, hi) && in(byte(2), 0x80, 0xbf) && in(byte(3), 0x80, 0xbf) ? 4 : 0;
  }
  return 0;
}

std::size_t UnicodeEscape(unsigned code, char* out) {
  out[0] = '\\';
  out[1] = 'u';
  out[2] = kHex[(code >> 12) & 0xf];
  out[3] = kHex[(code >> 8) & 0xf];
  out[4] = kHex[(code >> 4) & 0xf];
  out[5] = kHex[code & 0xf];
  return 6;
}

}  // namespace

std::size_t NextUnit(std::string_view raw, std::size_t pos, char* out, std::size_t* out_size) {
  unsigned char c = static_cast<unsigned char>(raw[pos]);
  if (c == '"' || c == '\\') {
    out[0] = '\\';
    out[1] = static_cast<char>(c);
    *out_size = 2;
    return 1;
  }
  if (c < 0x20 || c == 0x7f) {
    *out_size = UnicodeEscape(c, out);
    return 1;
  }
  std::size_t length = WellFormedLength(raw, pos);
  if (length == 0) {
    out[0] = '\xef';  // U+FFFD REPLACEMENT CHARACTER
    out[1] = '\xbf';
    out[2] = '\xbd';
    *out_size = 3;
    return 1;
  }
  if (length == 3 && c == 0xe2 && static_cast<unsigned char>(raw[pos + 1]) == 0x80) {
    unsigned char c2 = static_cast<unsigned char>(raw[pos + 2]);
    if (c2 == 0xa8 || c2 == 0xa9) {
      *out_size = UnicodeEscape(0x2000u | 0x28u | (c2 - 0xa8u), out);
      return 3;
    }
  }
  for (std::size_t i = 0; i < length; ++i) out[i] = raw[pos + i];
  *out_size = length;
  return length;
}

std::size_t EscapedSize(std::string_view raw) {
  std::size_t total = 0;
  char unit[kMaxUnitSize];
  for (std::size_t pos = 0; pos < raw.size();) {
    std::size_t unit_size = 0;
    pos += NextUnit(raw, pos, unit, &unit_size);
    total += unit_size;
  }
  return total;
}

}  // namespace json_escape
