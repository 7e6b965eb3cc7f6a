#include "canonical_json_form.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/reader.h>

#include <random>
#include <string>

#include "canonical_json.h"
#include "random_json_test_util.h"
#include "test_util.h"

namespace {

// Feeds an in-situ parse's SAX events to a FormCheck; stops where it does.
struct Feed : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Feed> {
  canonical_json::FormCheck* f;
  bool Null() { return f->Null(); }
  bool Bool(bool b) { return f->Bool(b); }
  bool Int(int i) { return f->Int64(i); }
  bool Uint(unsigned u) { return f->Uint64(u); }
  bool Int64(int64_t i) { return f->Int64(i); }
  bool Uint64(uint64_t u) { return f->Uint64(u); }
  bool Double(double) { return f->Double(); }
  bool String(const char* s, rapidjson::SizeType n, bool) { return f->String(s, n); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return f->Key(s, n); }
  bool StartObject() { return f->StartObject(); }
  bool EndObject(rapidjson::SizeType) { return f->EndObject(); }
  bool StartArray() { return f->StartArray(); }
  bool EndArray(rapidjson::SizeType) { return f->EndArray(); }
};

// FormCheck's answer for `text`, through the parse audit_verifier.cc uses.
bool IsCanonical(const std::string& text) {
  std::string copy = text;
  copy.push_back('\0');
  canonical_json::FormCheck form;
  if (!form.Reset(text, copy.data())) return false;
  rapidjson::InsituStringStream in(&copy[0]);
  Feed feed;
  feed.f = &form;
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseStopWhenDoneFlag;
  return !reader.Parse<kFlags>(in, feed).IsError() && form.Complete();
}

// The reference: the text parses and AppendValue accepts it.
bool Canonical(const std::string& text, std::string* canonical) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(text.c_str(), text.size());
  std::string err;
  canonical->clear();
  return !d.HasParseError() && canonical_json::AppendValue(d, canonical, &err);
}

}  // namespace

TEST_CASE("canonical_json form: canonical text is taken as it is") {
  for (const char* text :
       {"{}", "[]", "{\"a\": 1, \"b\": [true, null, {\"c\": -2, \"d\": \"x\"}]}",
        "{\"\": 0, \"a\": \"caf\\u00e9 \\ud83d\\ude00\", \"b\": \"\\n\\t\\\"\\\\\\u0001\"}",
        "[[], {}, [{}]]", "\"top\"", "7", "-9223372036854775808", "18446744073709551615",
        "{\"Z\": 1, \"a\": 2, \"\\u00e9\": 3}"}) {
    std::string canonical;
    REQUIRE_MESSAGE(Canonical(text, &canonical), text);
    REQUIRE(canonical == text);
    CHECK_MESSAGE(IsCanonical(text), text);
  }
  CHECK(IsCanonical(random_json::Nested(canonical_json::kMaxFormDepth, "1", true)));
}

TEST_CASE("canonical_json form: any other way of writing the same value is not") {
  for (const char* text : {
           "{\"a\":1}",            // the separators
           "{\"a\": 1,\"b\": 2}",  //
           "{\"a\" : 1}",          //
           " {}",
           "{} ",
           "{ }",
           "[1 ]",                  // whitespace
           "{\"b\": 1, \"a\": 2}",  // keys out of order
           "{\"a\": 1, \"a\": 1}",  // a key twice
           "\"\\u00E9\"",           // upper-case hex
           "\"\\u0041\"",
           "\"\\/\"",      // an escape where none is needed
           "\"\\u000a\"",  // the long form of a short one
           "\"caf\xc3\xa9\"",
           "\"\x7f\"",     // bytes that need an escape
           "\"\\udc00\"",  // a lone surrogate: not UTF-8
           "-0",
           "1.0",
           "1e3",
           "1.5",  // numbers
           "0123",
           "00",
           "[01]",
           "{\"a\": 007}",  // leading zeros (the parse stops after a top-level "0")
           "18446744073709551616",
           "{\"a\": 1}}",
           "{\"a\": 1",  // not one value
       }) {
    CHECK_MESSAGE(!IsCanonical(text), text);
  }
  // Nesting the general path refuses is never taken, and the checker stops
  // the parse before the stack grows.
  CHECK_FALSE(IsCanonical(random_json::Nested(canonical_json::kMaxFormDepth + 1, "1", true)));
  CHECK_FALSE(IsCanonical(random_json::Nested(100000, "1", true)));
}

TEST_CASE("canonical_json form: taken exactly when AppendValue writes the text back") {
  std::mt19937_64 rng(test_util::TestSeed(17));
  int canonical = 0, as_is = 0;
  for (int i = 0; i < 6000; ++i) {
    // At most 21 levels deep (FormCheck stops at 32), written compact
    // (canonical only where it has no separator) or with canonical
    // separators (canonical when the keys happen to be sorted and every
    // escape is the canonical one).
    const std::string text = random_json::Value(&rng, 20, i % 2 == 0);
    std::string want;
    const bool ok = Canonical(text, &want);
    const bool taken = IsCanonical(text);
    CHECK_MESSAGE(taken == (ok && want == text), text);
    as_is += taken;
    // Its canonical text, when there is one, is taken.
    if (ok) {
      CHECK_MESSAGE(IsCanonical(want), want);
      ++canonical;
    }
  }
  // The generator reached both sides.
  MESSAGE(canonical, " values with a canonical text, ", as_is, " texts canonical as written");
  CHECK(canonical > 1000);
  CHECK(as_is > 500);
}
