#include "canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <vector>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace canonical_json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

char* WriteU16Escape(uint32_t unit, char* out) {
  out[0] = '\\';
  out[1] = 'u';
  out[2] = kHex[(unit >> 12) & 0xf];
  out[3] = kHex[(unit >> 8) & 0xf];
  out[4] = kHex[(unit >> 4) & 0xf];
  out[5] = kHex[unit & 0xf];
  return out + 6;
}

// Decodes one strict UTF-8 sequence starting at s[*i]; false when invalid.
bool DecodeUtf8(std::string_view s, size_t* i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(*i);
  size_t len;
  uint32_t min;
  if (c < 0x80) {
    *cp = c;
    ++*i;
    return true;
  } else if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    min = 0x80;
    *cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    min = 0x800;
    *cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    min = 0x10000;
    *cp = c & 0x07;
  } else {
    return false;
  }
  if (*i + len > s.size()) return false;
  for (size_t k = 1; k < len; ++k) {
    const unsigned char cc = b(*i + k);
    if ((cc & 0xc0) != 0x80) return false;
    *cp = (*cp << 6) | (cc & 0x3f);
  }
  if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff)) return false;
  *i += len;
  return true;
}

// Printable ASCII other than '"' and '\\' is copied as is: true for those bytes.
struct PlainTable {
  bool plain[256];
  constexpr PlainTable() : plain() {
    for (int c = 0x20; c <= 0x7e; ++c) plain[c] = (c != '"' && c != '\\');
  }
};
constexpr PlainTable kPlain;

#ifdef __SSE2__
// Bit k set for each of 16 bytes at `s` that is not plain.
inline unsigned SpecialMask16(const char* s) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  // Signed compares: bytes >= 0x80 are negative, so "> 0x1f" also drops them.
  const __m128i printable =
      _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x1f)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x7f)));
  const __m128i quote_or_backslash =
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  return static_cast<unsigned>(_mm_movemask_epi8(quote_or_backslash)) |
         (~static_cast<unsigned>(_mm_movemask_epi8(printable)) & 0xffffu);
}
#endif

// Whether any of 8 bytes is not plain (a yes or no: a borrow can mark a
// byte above the first one that is not).
inline bool SpecialWord(const char* s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  const auto has_byte = [](uint64_t w, unsigned char c) {
    const uint64_t x = w ^ (kOnes * c);
    return (x - kOnes) & ~x & kHigh;
  };
  uint64_t w;
  memcpy(&w, s, 8);
  return ((w & kHigh) | ((w - kOnes * 0x20) & ~w & kHigh) | has_byte(w, 0x7f) | has_byte(w, '"') |
          has_byte(w, '\\')) != 0;
}

// Length of the leading run of plain bytes, 16 (or 8) at a time. Most
// strings are short (keys, labels, ids): their last bytes are checked with
// one load that overlaps bytes already found plain, not one by one.
size_t PlainPrefix(const char* s, size_t n) {
  size_t i = 0;
#ifdef __SSE2__
  if (n >= 16) {
    for (; i + 16 <= n; i += 16) {
      const unsigned special = SpecialMask16(s + i);
      if (special != 0) return i + static_cast<size_t>(__builtin_ctz(special));
    }
    if (i == n) return n;
    // The last 16 bytes: those before i are plain, so the first byte
    // marked is the first one at or after i that is not.
    const unsigned special = SpecialMask16(s + n - 16);
    return special != 0 ? n - 16 + static_cast<size_t>(__builtin_ctz(special)) : n;
  }
#endif
  for (; i + 8 <= n; i += 8) {
    if (SpecialWord(s + i)) break;
  }
  if (i + 8 > n && i < n && n >= 8) {
    // Fewer than 8 bytes left after plain ones: the last 8 at once.
    if (!SpecialWord(s + n - 8)) return n;
  }
  while (i < n && kPlain.plain[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

}  // namespace

bool IsPrintableAscii(std::string_view text) {
  const char* const s = text.data();
  const size_t n = text.size();
  size_t i = 0;
#ifdef __SSE2__
  // c + 1, as a signed byte, is above 0x20 exactly for 0x20-0x7e (0x7f and
  // up wrap to negative or 0): one add and one compare per 16 bytes, and
  // one test per 64 (the verifier checks every line it reads).
  const __m128i one = _mm_set1_epi8(1), space = _mm_set1_epi8(0x20);
  const auto printable = [&](size_t at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    return _mm_cmpgt_epi8(_mm_add_epi8(v, one), space);
  };
  for (; i + 64 <= n; i += 64) {
    const __m128i all = _mm_and_si128(_mm_and_si128(printable(i), printable(i + 16)),
                                      _mm_and_si128(printable(i + 32), printable(i + 48)));
    if (_mm_movemask_epi8(all) != 0xffff) return false;
  }
  for (; i + 16 <= n; i += 16) {
    if (_mm_movemask_epi8(printable(i)) != 0xffff) return false;
  }
#endif
  for (; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  uint32_t cp;
  while (i < text.size()) {
    if (!DecodeUtf8(text, &i, &cp)) return i;
  }
  return std::string_view::npos;
}

void AppendUint(uint64_t value, std::string* out) {
  char buf[kMaxUintBytes];
  out->append(buf, static_cast<size_t>(WriteUint(value, buf) - buf));
}

void AppendInt(int64_t value, std::string* out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

char* WriteUint(uint64_t value, char* out) {
  return std::to_chars(out, out + kMaxUintBytes, value).ptr;
}

char* WriteString(std::string_view utf8, char* out) {
  *out++ = '"';
  size_t i = 0;
  const size_t n = utf8.size();
  while (i < n) {
    // Copy the longest run of plain bytes at once: the common case.
    const size_t run = PlainPrefix(utf8.data() + i, n - i);
    if (run > 0) {
      memcpy(out, utf8.data() + i, run);
      out += run;
      i += run;
      if (i == n) break;
    }
    const unsigned char c = static_cast<unsigned char>(utf8[i]);
    char short_form = 0;
    switch (c) {
      case '"': short_form = '"'; break;
      case '\\': short_form = '\\'; break;
      case '\n': short_form = 'n'; break;
      case '\r': short_form = 'r'; break;
      case '\t': short_form = 't'; break;
      case '\b': short_form = 'b'; break;
      case '\f': short_form = 'f'; break;
      default: break;
    }
    if (short_form != 0) {
      out[0] = '\\';
      out[1] = short_form;
      out += 2;
      ++i;
      continue;
    }
    uint32_t cp;
    if (!DecodeUtf8(utf8, &i, &cp)) return nullptr;
    if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      out = WriteU16Escape(0xd800 + (v >> 10), out);
      out = WriteU16Escape(0xdc00 + (v & 0x3ff), out);
    } else {
      out = WriteU16Escape(cp, out);
    }
  }
  *out++ = '"';
  return out;
}

bool AppendString(std::string_view utf8, std::string* out) {
  // Plain text (most strings: keys, hashes, ids) is copied between its
  // quotes, without first filling the worst case's room.
  if (PlainPrefix(utf8.data(), utf8.size()) == utf8.size()) {
    out->push_back('"');
    out->append(utf8);
    out->push_back('"');
    return true;
  }
  const size_t old = out->size();
  out->resize(old + MaxStringBytes(utf8.size()));
  char* const end = WriteString(utf8, &(*out)[old]);
  if (end == nullptr) {
    out->resize(old);
    return false;
  }
  out->resize(static_cast<size_t>(end - out->data()));
  return true;
}

namespace {

bool AppendValueAt(const rapidjson::Value& value, int depth, std::string* out, std::string* err) {
  if (depth > kMaxDepth) {
    *err = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
    return false;
  }
  switch (value.GetType()) {
    case rapidjson::kNullType: out->append("null"); return true;
    case rapidjson::kFalseType: out->append("false"); return true;
    case rapidjson::kTrueType: out->append("true"); return true;
    case rapidjson::kNumberType:
      if (value.IsUint64()) {
        AppendUint(value.GetUint64(), out);
      } else if (value.IsInt64()) {
        AppendInt(value.GetInt64(), out);
      } else {
        *err = "non-integer number";
        return false;
      }
      return true;
    case rapidjson::kStringType:
      if (!AppendString(std::string_view(value.GetString(), value.GetStringLength()), out)) {
        *err = "string is not valid UTF-8";
        return false;
      }
      return true;
    case rapidjson::kArrayType: {
      out->push_back('[');
      bool first = true;
      for (const auto& item : value.GetArray()) {
        if (!first) out->append(", ");
        first = false;
        if (!AppendValueAt(item, depth + 1, out, err)) return false;
      }
      out->push_back(']');
      return true;
    }
    case rapidjson::kObjectType: {
      // Python sorts str keys by code point; for valid UTF-8 that is byte order.
      std::vector<const rapidjson::Value::Member*> members;
      members.reserve(value.MemberCount());
      for (const auto& m : value.GetObject()) members.push_back(&m);
      const auto key = [](const rapidjson::Value::Member* m) {
        return std::string_view(m->name.GetString(), m->name.GetStringLength());
      };
      std::sort(members.begin(), members.end(),
                [&](const auto* a, const auto* b) { return key(a) < key(b); });
      out->push_back('{');
      for (size_t k = 0; k < members.size(); ++k) {
        if (k > 0) {
          if (key(members[k]) == key(members[k - 1])) {
            *err = "duplicate key";
            return false;
          }
          out->append(", ");
        }
        if (!AppendString(key(members[k]), out)) {
          *err = "key is not valid UTF-8";
          return false;
        }
        out->append(": ");
        if (!AppendValueAt(members[k]->value, depth + 1, out, err)) return false;
      }
      out->push_back('}');
      return true;
    }
  }
  *err = "unknown JSON value type";
  return false;
}

}  // namespace

bool AppendValue(const rapidjson::Value& value, std::string* out, std::string* err) {
  return AppendValueAt(value, 0, out, err);
}

}  // namespace canonical_json
