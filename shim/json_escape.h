// JSON string escaping for hostile bytes: any byte string becomes the body of
// a valid UTF-8 JSON string.
//
// Rules (the man page documents the same):
//  - `"` and `\` become `\"` and `\\`;
//  - control characters U+0000-U+001F and U+007F, and U+2028/U+2029 (line
//    breaks in JavaScript), become `\u00XX` / `\u2028` / `\u2029`
//    (lowercase hex);
//  - every byte that is not part of a well-formed UTF-8 sequence (stray
//    continuation bytes, overlong forms, surrogates, values above U+10FFFF,
//    cut sequences) becomes U+FFFD, one per byte;
//  - all other characters are copied as they are.
// Output is produced in "units" (one escape or one whole character) so a cut
// never lands inside an escape or a UTF-8 sequence.
#ifndef AGT_DENY_SHIM_JSON_ESCAPE_H_
#define AGT_DENY_SHIM_JSON_ESCAPE_H_

#include <cstddef>
#include <string_view>

namespace json_escape {

// The longest output of one unit (`\u00XX` is 6 bytes).
inline constexpr std::size_t kMaxUnitSize = 6;

// Escapes the unit starting at raw[pos] into `out` (room for kMaxUnitSize
// bytes); returns how many raw bytes it consumed (>= 1) and sets *out_size.
std::size_t NextUnit(std::string_view raw, std::size_t pos, char* out, std::size_t* out_size);

// The escaped size of all of `raw`.
std::size_t EscapedSize(std::string_view raw);

}  // namespace json_escape

#endif  // AGT_DENY_SHIM_JSON_ESCAPE_H_
