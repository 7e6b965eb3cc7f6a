// Serialises JSON exactly as Python's json.dumps(obj, sort_keys=True) does
// (ensure_ascii=True, separators ", " and ": "). Upstream AGT hashes and
// writes its audit entries in that form, so every byte must match; no JSON
// library writes it, hence this file.
#ifndef AGT_COLLECTOR_CANONICAL_JSON_H_
#define AGT_COLLECTOR_CANONICAL_JSON_H_

#include <rapidjson/document.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace canonical_json {

// Appends `utf8` as a quoted JSON string: printable ASCII (0x20-0x7e) as is,
// except `"` and `\`; \n \r \t \b \f short forms; every other code point as
// \uXXXX (lowercase hex), above U+FFFF as a surrogate pair. Returns false
// (and appends nothing) when `utf8` is not strict UTF-8: overlong
// forms, surrogate code points (e.g. from an escaped lone "\udc00") and
// values above U+10FFFF are refused.
bool AppendString(std::string_view utf8, std::string* out);

// The hot path writes into room the caller sized beforehand (one resize per
// record instead of a capacity check per piece). Each escaped byte takes at
// most 6 output bytes ("\u0001"), so a string needs MaxStringBytes() room.
constexpr size_t MaxStringBytes(size_t utf8_bytes) { return 6 * utf8_bytes + 2; }
// Writes `utf8` quoted and escaped as AppendString does, at `out` (room for
// MaxStringBytes(utf8.size())); returns one past the last byte written, or
// nullptr when `utf8` is not strict UTF-8.
char* WriteString(std::string_view utf8, char* out);
// Writes a decimal integer (at most kMaxUintBytes bytes); returns the end.
constexpr size_t kMaxUintBytes = 20;
char* WriteUint(uint64_t value, char* out);
// Copies `text` to `out`; returns the end.
inline char* WriteRaw(std::string_view text, char* out) {
  memcpy(out, text.data(), text.size());
  return out + text.size();
}

// True when every byte is printable ASCII (0x20-0x7e), as every byte of
// canonical text is.
bool IsPrintableAscii(std::string_view text);

// Offset of the first byte of `text` that breaks strict UTF-8 (as
// AppendString judges it), or std::string_view::npos when it is all valid.
size_t FirstInvalidUtf8(std::string_view text);

// Appends a JSON integer (decimal, no allocation).
void AppendUint(uint64_t value, std::string* out);
void AppendInt(int64_t value, std::string* out);

// Appends `value` canonically: objects with keys sorted by code point at every
// depth, integers as integers, null/true/false. Refuses (false, *err set)
// non-integer numbers (the audit schema has none, and Python's float repr is
// not worth reproducing), invalid strings, duplicate keys and nesting deeper
// than kMaxDepth.
constexpr int kMaxDepth = 32;
bool AppendValue(const rapidjson::Value& value, std::string* out, std::string* err);

}  // namespace canonical_json

#endif  // AGT_COLLECTOR_CANONICAL_JSON_H_
