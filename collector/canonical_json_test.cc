#include "canonical_json.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <random>

#include "test_util.h"

namespace {

std::string Str(std::string_view s) {
  std::string out;
  REQUIRE(canonical_json::AppendString(s, &out));
  return out;
}

std::string Value(const char* json) {
  rapidjson::Document d;
  d.Parse(json);
  REQUIRE_FALSE(d.HasParseError());
  std::string out, err;
  REQUIRE(canonical_json::AppendValue(d, &out, &err));
  return out;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

}  // namespace

TEST_CASE("strings escape like Python's json.dumps(ensure_ascii=True)") {
  CHECK(Str("") == "\"\"");
  CHECK(Str("plain /text~") == "\"plain /text~\"");
  CHECK(Str("q\"b\\") == "\"q\\\"b\\\\\"");
  CHECK(Str("\n\r\t\b\f") == "\"\\n\\r\\t\\b\\f\"");
  CHECK(Str(std::string("\x00\x01\x1f\x7f", 4)) == "\"\\u0000\\u0001\\u001f\\u007f\"");
  CHECK(Str("caf\xc3\xa9") == "\"caf\\u00e9\"");
  CHECK(Str("\xc2\x80") == "\"\\u0080\"");
  CHECK(Str("\xe6\x97\xa5") == "\"\\u65e5\"");
  CHECK(Str("\xe2\x80\xa8") == "\"\\u2028\"");
  CHECK(Str("\xef\xbf\xbf") == "\"\\uffff\"");
  CHECK(Str("\xf0\x9f\x98\x80") == "\"\\ud83d\\ude00\"");
  CHECK(Str("\xf4\x8f\xbf\xbf") == "\"\\udbff\\udfff\"");
  CHECK(Str("\xf0\x90\x80\x80") == "\"\\ud800\\udc00\"");
}

TEST_CASE("strings: a byte to escape is found at every place in every length, by every check") {
  // The plain run is found 16 and 8 bytes at a time, its end with a load
  // that overlaps plain bytes: every length up to three wide loads, every
  // place in it, each kind of byte that ends the run.
  const std::pair<std::string, std::string> escapes[] = {
      {"\"", "\\\""},         {"\\", "\\\\"},
      {"\n", "\\n"},          {std::string(1, '\0'), "\\u0000"},
      {"\x1f", "\\u001f"},    {"\x7f", "\\u007f"},
      {"\xc3\xa9", "\\u00e9"}};
  for (size_t length = 0; length <= 48; ++length) {
    const std::string plain(length, 'a');
    CHECK(Str(plain) == "\"" + plain + "\"");
    for (size_t at = 0; at < length; ++at) {
      for (const auto& [raw, escaped] : escapes) {
        const std::string text = plain.substr(0, at) + raw + plain.substr(at + 1);
        CAPTURE(length);
        CAPTURE(at);
        CHECK(Str(text) == "\"" + plain.substr(0, at) + escaped + plain.substr(at + 1) + "\"");
      }
    }
  }
}

TEST_CASE("IsPrintableAscii: every byte value at every place, in blocks and in the tail") {
  // Lengths past two 64-byte blocks, so each byte is met in a 64-byte
  // block, in a 16-byte one and in the bytes left after them.
  for (size_t length = 1; length <= 150; length += (length < 70 ? 1 : 13)) {
    const std::string plain(length, '~');
    CHECK(canonical_json::IsPrintableAscii(plain));
    for (size_t at = 0; at < length; ++at) {
      std::string text = plain;
      for (int b = 0; b < 256; ++b) {
        text[at] = static_cast<char>(b);
        CAPTURE(length);
        CAPTURE(at);
        CAPTURE(b);
        CHECK(canonical_json::IsPrintableAscii(text) == (b >= 0x20 && b <= 0x7e));
      }
    }
  }
  CHECK(canonical_json::IsPrintableAscii(""));
}

TEST_CASE("strings that are not strict UTF-8 are refused") {
  for (const char* bad :
       {"\xff", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80", "\xed\xbf\xbf",
        "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xc3", "\xe6\x97", "\x80", "ok\xf0\x9f\x98"}) {
    std::string out;
    CAPTURE(bad);
    CHECK_FALSE(canonical_json::AppendString(bad, &out));
    CHECK(canonical_json::FirstInvalidUtf8(bad) != std::string_view::npos);
  }
  CHECK(canonical_json::FirstInvalidUtf8("ok \xc3\xa9 \xed\xa0\x80") == 6);
  CHECK(canonical_json::FirstInvalidUtf8("ok \xc3\xa9 \xf0\x9f\x98\x80") == std::string_view::npos);
  CHECK(canonical_json::FirstInvalidUtf8("") == std::string_view::npos);
}

TEST_CASE(
    "property: every code point class round-trips through RapidJSON, output is printable ASCII") {
  const uint64_t seed = test_util::TestSeed(2662);
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
  const uint32_t ranges[][2] = {
      {0x00, 0x1f},     {0x20, 0x7e},     {0x7f, 0x9f},        {0xa0, 0x7ff}, {0x800, 0xd7ff},
      {0xe000, 0xfffd}, {0xfffe, 0xffff}, {0x10000, 0x10ffff}, {0x22, 0x22},  {0x5c, 0x5c}};
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 16);
    for (int i = 0; i < n; ++i) {
      const auto& r = ranges[rng() % (sizeof ranges / sizeof ranges[0])];
      AppendUtf8(r[0] + rng() % (r[1] - r[0] + 1), &text);
    }
    std::string out;
    REQUIRE(canonical_json::AppendString(text, &out));
    for (const char c : out) REQUIRE((c >= 0x20 && c <= 0x7e));
    rapidjson::Document d;
    d.Parse(out.data(), out.size());
    REQUIRE(d.IsString());
    CHECK(std::string(d.GetString(), d.GetStringLength()) == text);
    // Short forms only for the seven characters Python abbreviates.
    CHECK(out.find("\\u0022") == std::string::npos);
    CHECK(out.find("\\u005c") == std::string::npos);
    CHECK(out.find("\\u000a") == std::string::npos);
  }
}

TEST_CASE("values: sorted keys at every depth, Python separators, integers") {
  CHECK(Value("{\"b\":1,\"a\":{\"d\":[1,-2,true,false,null],\"c\":\"x\"}}") ==
        "{\"a\": {\"c\": \"x\", \"d\": [1, -2, true, false, null]}, \"b\": 1}");
  CHECK(Value("[]") == "[]");
  CHECK(Value("{}") == "{}");
  CHECK(Value("18446744073709551615") == "18446744073709551615");
  CHECK(Value("-9223372036854775808") == "-9223372036854775808");
  // Byte order of UTF-8 keys is code point order, as Python sorts str.
  CHECK(Value("{\"\\u00e9\":1,\"z\":2,\"\\ud83d\\ude00\":3,\"\\uffff\":4}") ==
        "{\"z\": 2, \"\\u00e9\": 1, \"\\uffff\": 4, \"\\ud83d\\ude00\": 3}");
}

TEST_CASE("values: floats, duplicate keys and deep nesting are refused") {
  std::string out, err;
  rapidjson::Document d;
  d.Parse("{\"a\":1.5}");
  CHECK_FALSE(canonical_json::AppendValue(d, &out, &err));
  CHECK(err == "non-integer number");
  d.Parse("{\"a\":1,\"a\":2}");
  CHECK_FALSE(canonical_json::AppendValue(d, &out, &err));
  CHECK(err == "duplicate key");
  const std::string deep = std::string(40, '[') + std::string(40, ']');
  d.Parse(deep.c_str());
  REQUIRE_FALSE(d.HasParseError());
  CHECK_FALSE(canonical_json::AppendValue(d, &out, &err));
  CHECK(err.find("nesting") != std::string::npos);
}
