#include "json_escape.h"

#include <doctest/doctest.h>

#include <string>

namespace {

std::string Escape(std::string_view raw) {
  std::string out;
  char unit[json_escape::kMaxUnitSize];
  for (std::size_t pos = 0; pos < raw.size();) {
    std::size_t n = 0;
    pos += json_escape::NextUnit(raw, pos, unit, &n);
    out.append(unit, n);
  }
  CHECK(out.size() == json_escape::EscapedSize(raw));
  return out;
}

}  // namespace

TEST_CASE("plain ASCII and valid UTF-8 pass through") {
  CHECK(Escape("curl -sSL") == "curl -sSL");
  CHECK(Escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST_CASE("quotes and backslashes get short escapes") { CHECK(Escape("a\"b\\c") == "a\\\"b\\\\c"); }

TEST_CASE("control characters and DEL become \\u00XX") {
  CHECK(Escape(std::string_view("\x00\x01\n\t\x1f\x7f", 6)) ==
        "\\u0000\\u0001\\u000a\\u0009\\u001f\\u007f");
}

TEST_CASE("U+2028 and U+2029 are escaped") {
  CHECK(Escape("a\xe2\x80\xa8"
               "b\xe2\x80\xa9") == "a\\u2028b\\u2029");
  CHECK(Escape("\xe2\x80\xa7") == "\xe2\x80\xa7");  // U+2027 stays
}

TEST_CASE("each invalid byte becomes U+FFFD") {
  const std::string fffd = "\xef\xbf\xbd";
  CHECK(Escape("\xff") == fffd);
  CHECK(Escape("\x80\x80") == fffd + fffd);                        // stray continuations
  CHECK(Escape("\xc0\xaf") == fffd + fffd);                        // overlong '/'
  CHECK(Escape("\xed\xa0\x80") == fffd + fffd + fffd);             // surrogate U+D800
  CHECK(Escape("\xf4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // above U+10FFFF
  CHECK(Escape("\xe2\x82") == fffd + fffd);                        // cut sequence
  CHECK(Escape("a\xe2\x82"
               "b") == "a" + fffd + fffd + "b");
}

TEST_CASE("units never split a character") {
  char unit[json_escape::kMaxUnitSize];
  std::size_t n = 0;
  CHECK(json_escape::NextUnit("\xf0\x9f\x98\x80", 0, unit, &n) == 4);
  CHECK(n == 4);
  CHECK(json_escape::NextUnit("\x01", 0, unit, &n) == 1);
  CHECK(n == 6);
}
