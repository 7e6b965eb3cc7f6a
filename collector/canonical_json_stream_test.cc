#include "canonical_json_stream.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/reader.h>

#include <random>
#include <string>

#include "canonical_json.h"
#include "random_json_test_util.h"
#include "test_util.h"

namespace {

// Feeds one parsed value's SAX events to a StreamWriter.
struct Feed : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Feed> {
  canonical_json::StreamWriter* w;
  bool Null() {
    w->Null();
    return true;
  }
  bool Bool(bool b) {
    w->Bool(b);
    return true;
  }
  bool Int(int i) {
    w->Int64(i);
    return true;
  }
  bool Uint(unsigned u) {
    w->Uint64(u);
    return true;
  }
  bool Int64(int64_t i) {
    w->Int64(i);
    return true;
  }
  bool Uint64(uint64_t u) {
    w->Uint64(u);
    return true;
  }
  bool Double(double) {
    w->Double();
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    w->String({s, n});
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    w->Key({s, n});
    return true;
  }
  bool StartObject() {
    w->StartObject();
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    w->EndObject();
    return true;
  }
  bool StartArray() {
    w->StartArray();
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    w->EndArray();
    return true;
  }
};

// Both ways over one JSON text: (ok, text or error) must be the same. Text
// RapidJSON refuses (a lone low surrogate, in some versions) is refused by
// both parses alike and has nothing to compare.
void CheckSame(canonical_json::StreamWriter* w, const std::string& json) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(json.c_str(), json.size());
  if (d.HasParseError()) {
    rapidjson::BaseReaderHandler<> ignore;
    rapidjson::Reader reader;
    rapidjson::StringStream in(json.c_str());
    CHECK_MESSAGE(reader.Parse<rapidjson::kParseIterativeFlag>(in, ignore).IsError(), json);
    return;
  }
  std::string want, want_err;
  const bool want_ok = canonical_json::AppendValue(d, &want, &want_err);
  w->Reset();
  Feed feed;
  feed.w = w;
  rapidjson::Reader reader;
  rapidjson::StringStream in(json.c_str());
  REQUIRE(!reader.Parse<rapidjson::kParseIterativeFlag>(in, feed).IsError());
  std::string got, got_err;
  const bool got_ok = w->Finish(&got, &got_err);
  CHECK_MESSAGE(got_ok == want_ok, json);
  CHECK_MESSAGE(got == (want_ok ? want : std::string()), json);
  CHECK_MESSAGE(got_err == want_err, json);
}

}  // namespace

TEST_CASE("canonical_json stream: the same text as AppendValue, sorted at every depth") {
  canonical_json::StreamWriter w;
  for (const char* json : {"{}", "[]", "{\"b\":1,\"a\":[true,null,{\"d\":\"x\",\"c\":-2}]}",
                           "{\"a\":1,\"b\":2}", "[[],{},[{}]]", "{\"\\u00e9\":1,\"z\":2}",
                           "{\"k\":\"\\ud83d\\ude00 caf\\u00e9\"}", "\"top\"", "7"}) {
    CheckSame(&w, json);
  }
}

TEST_CASE("canonical_json stream: the same refusal, the first in sorted order") {
  canonical_json::StreamWriter w;
  for (const char* json :
       {"{\"a\":1.5}", "{\"a\":1,\"a\":2}", "{\"\\udc00\":1}", "[\"\\udc00\"]",
        // The first error in key order wins, not the first in the text.
        "{\"b\":1.5,\"a\":{\"x\":1,\"x\":2}}", "{\"b\":{\"x\":1,\"x\":2},\"a\":1.5}",
        "{\"b\":1,\"a\":1,\"a\":2.5}", "[1,2.5,\"\\udc00\"]", "[\"\\udc00\",2.5]"}) {
    CheckSame(&w, json);
  }
  // Nesting: 32 levels below the top are fine, 33 are refused, as deep as it goes.
  CheckSame(&w, random_json::Nested(32, "1"));
  CheckSame(&w, random_json::Nested(33, "1"));
  CheckSame(&w, random_json::Nested(33, "[]"));
  CheckSame(&w, random_json::Nested(500, "{\"a\":1.5}"));
  CheckSame(&w, "{\"b\":" + random_json::Nested(40, "1") + ",\"a\":1.5}");
  CheckSame(&w, "{\"a\":" + random_json::Nested(40, "1") + ",\"b\":1.5}");
}

TEST_CASE("canonical_json stream: random values read the same both ways") {
  std::mt19937_64 rng(test_util::TestSeed(17));
  canonical_json::StreamWriter w;
  for (int i = 0; i < 3000; ++i) CheckSame(&w, random_json::Value(&rng, 40, false));
}
