#include "record_validator.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace {

using record_validator::Limits;
using record_validator::ValidRecord;

const std::string kFull =
    R"({"argc":3,"argv":["-sSL","https://example.com/x"],"argv0":"curl","binary":"curl","confined":true,)"
    R"("event":"command_denied","gid":65534,"host":"sb-1","issue":2662,"path":"/usr/bin/curl","pid":7,)"
    R"("ppid":1,"redactions":0,"timestamp":"2026-06-14T10:00:00Z","timestamp_ns":1781431200123456789,)"
    R"("truncated":false,"uid":65534,"version":"0.1.0"})";
const std::string kUpstream =
    R"({"argv":["clone","x"],"binary":"git","event":"command_denied","issue":2662,"timestamp":"2026-06-14T10:00:00Z"})";

std::string Reject(const std::string& line, const Limits& limits = Limits()) {
  ValidRecord rec;
  std::string reason;
  CAPTURE(line);
  CHECK_FALSE(record_validator::ValidateRecord(line, limits, &rec, &reason));
  CHECK_FALSE(reason.empty());
  return reason;
}

// kUpstream with `from` replaced by `to`.
std::string Edit(const std::string& from, const std::string& to,
                 const std::string& base = kUpstream) {
  std::string s = base;
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("valid: a full shim record and an upstream five-key record") {
  ValidRecord rec;
  std::string reason;
  REQUIRE(record_validator::ValidateRecord(kFull, Limits(), &rec, &reason));
  CHECK(rec.binary == "curl");
  CHECK(rec.has_timestamp_ns);
  CHECK(rec.timestamp_ns == 1781431200123456789u);
  CHECK(rec.epoch_seconds == 1781431200);
  CHECK(rec.value(record_validator::kArgv) == R"(["-sSL", "https://example.com/x"])");
  CHECK(rec.value(record_validator::kConfined) == "true");
  CHECK(rec.present(record_validator::kVersion));
  // The same instance is reused for the next line: nothing carries over.
  REQUIRE(record_validator::ValidateRecord(kUpstream, Limits(), &rec, &reason));
  CHECK_FALSE(rec.has_timestamp_ns);
  CHECK_FALSE(rec.present(record_validator::kVersion));
  CHECK(rec.binary == "git");
  REQUIRE(record_validator::ValidateRecord(Edit("\"binary\":\"git\"", "\"binary\":\"unknown\""),
                                           Limits(), &rec, &reason));
}

TEST_CASE("rejected: encoding and JSON shape") {
  CHECK(Reject("{\"argv\":[\"\xff\"]}").find("not valid UTF-8") != std::string::npos);
  CHECK(Reject("\xc3\x28").find("not valid UTF-8") != std::string::npos);
  CHECK(Reject(Edit("\"clone\"", "\"\\udc00\"")).find("not valid UTF-8") != std::string::npos);
  CHECK(Reject(Edit("\"clone\"", "\"\\ud800x\"")).find("invalid JSON") != std::string::npos);
  CHECK(Reject("") == "empty line");
  CHECK(Reject("[1]") == "not a JSON object");
  CHECK(Reject("\"x\"") == "not a JSON object");
  CHECK(Reject("42") == "not a JSON object");
  CHECK(Reject(" " + kUpstream) == "bytes before the JSON object");
  CHECK(Reject(kUpstream + " ").find("trailing bytes") == 0);
  CHECK(Reject(kUpstream + "\r") == "a carriage return after the JSON object (CRLF line ending)");
  CHECK(Reject(kUpstream + "\r\r").find("trailing bytes") == 0);
  CHECK(Reject("\xef\xbb\xbf" + kUpstream) ==
        "a byte order mark (EF BB BF) before the JSON object");
  CHECK(Reject(kUpstream + kUpstream).find("trailing bytes") == 0);
  CHECK(Reject("{\"argv\":[],")
            .find("a cut record (the line ends inside the JSON object after 11 bytes") == 0);
  CHECK(Reject(kUpstream.substr(0, 20)).find("a cut record") == 0);
  CHECK(Reject("{\"argv\":[]]}").find("invalid JSON at byte") == 0);
  CHECK(Reject(Edit("2662", "NaN")).find("NaN or Infinity") == 0);
  CHECK(Reject(Edit("2662", "Infinity")).find("NaN or Infinity") == 0);
  CHECK(Reject(Edit("2662", "-Infinity")).find("NaN or Infinity") == 0);
  CHECK(Reject(Edit("\"binary\":\"git\"", "\"binary\":\"git\",\"binary\":\"git\"")) ==
        "duplicate key \"binary\"");
}

TEST_CASE("rejected: a raw control byte inside a string, at any position") {
  // Every byte below 0x20 must be escaped in JSON. Positions 1-40 cover any
  // 16-byte alignment of a vectorised string scan (RapidJSON's SSE2 scan
  // misses 0x1a-0x1f, so it must stay off).
  for (int c = 0x01; c < 0x20; ++c) {
    for (size_t at = 1; at <= 40; ++at) {
      std::string arg(41, 'a');
      arg[at - 1] = static_cast<char>(c);
      CAPTURE(c);
      CAPTURE(at);
      CHECK(Reject(Edit("\"clone\"", "\"" + arg + "\"")).find("invalid JSON") == 0);
    }
  }
}

TEST_CASE("rejected: nesting deeper than the schema") {
  CHECK(Reject(Edit("[\"clone\",\"x\"]", "[[\"x\"]]")).find("nesting deeper") != std::string::npos);
  CHECK(Reject(Edit("[\"clone\",\"x\"]", "[{}]")).find("nesting deeper") != std::string::npos);
  CHECK(Reject(Edit("\"git\"", "{\"a\":1}")).find("nesting deeper") != std::string::npos);
  // Deep nesting is refused at the second level, never recursed into.
  CHECK(Reject(Edit("[\"clone\",\"x\"]", std::string(50000, '['))).find("nesting") !=
        std::string::npos);
}

TEST_CASE("rejected: vocabulary, required keys, types") {
  CHECK(Reject(Edit("\"issue\"", "\"isue\"")) == "unknown key \"isue\"");
  CHECK(Reject(Edit("\"issue\"", "\"a\\u0000\\n\"")) == "unknown key \"a\\x00\\x0a\"");
  CHECK(Reject(Edit(",\"issue\":2662", "")) == "missing key \"issue\"");
  CHECK(Reject(Edit("\"argv\":[\"clone\",\"x\"],", "")) == "missing key \"argv\"");
  CHECK(Reject(Edit("\"command_denied\"", "\"command_allowed\"")) ==
        "key \"event\" is not \"command_denied\"");
  CHECK(Reject(Edit("2662", "\"2662\"")) ==
        "key \"issue\": expected an integer >= 0, got a string");
  CHECK(Reject(Edit("2662", "2662.0")).find("non-integer") != std::string::npos);
  CHECK(Reject(Edit("2662", "1e3")).find("non-integer") != std::string::npos);
  CHECK(Reject(Edit("2662", "-1")) == "key \"issue\": must be >= 0");
  CHECK(Reject(Edit("2662", "99999999999999999999")).find("out-of-range") != std::string::npos);
  CHECK(Reject(Edit("\"git\"", "null")).find("expected a string") != std::string::npos);
  CHECK(Reject(Edit("\"x\"]", "1]")).find("argv element 1") != std::string::npos);
  CHECK(Reject(Edit("[\"clone\",\"x\"]", "\"clone x\"")).find("expected an array of strings") !=
        std::string::npos);
  CHECK(Reject(Edit("\"pid\":7", "\"pid\":true", kFull)).find("expected an integer") !=
        std::string::npos);
  CHECK(Reject(Edit("\"confined\":true", "\"confined\":1", kFull)).find("true or false") !=
        std::string::npos);
}

TEST_CASE("rejected: binary not a plausible command name") {
  for (const char* bad : {"", ".", "..", "a/b", "a b", "caf\\u00e9", "x\\n"}) {
    CAPTURE(bad);
    CHECK(Reject(Edit("\"git\"", std::string("\"") + bad + "\"")).find("plausible") !=
          std::string::npos);
  }
  CHECK(Reject(Edit("\"git\"", "\"" + std::string(65, 'a') + "\"")).find("plausible") !=
        std::string::npos);
  ValidRecord rec;
  std::string reason;
  CHECK(record_validator::ValidateRecord(Edit("\"git\"", "\"" + std::string(64, 'a') + "\""),
                                         Limits(), &rec, &reason));
  CHECK(
      record_validator::ValidateRecord(Edit("\"git\"", "\"g++-12.x_Y\""), Limits(), &rec, &reason));
}

TEST_CASE("timestamps: only real UTC instants in the shim's format") {
  int64_t t = 0;
  CHECK(record_validator::ParseShimTimestamp("1970-01-01T00:00:00Z", &t));
  CHECK(t == 0);
  CHECK(record_validator::ParseShimTimestamp("2024-02-29T23:59:59Z", &t));
  CHECK(t == 1709251199);
  CHECK(record_validator::ParseShimTimestamp("2000-02-29T00:00:00Z", &t));
  for (const char* bad :
       {"2026-02-30T10:00:00Z", "2026-02-29T10:00:00Z", "1900-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
        "2026-01-00T00:00:00Z", "2026-06-14T24:00:00Z", "2026-06-14T23:60:00Z",
        "2026-06-14T23:59:60Z", "2026-06-14T10:00:00", "2026-06-14 10:00:00Z",
        "2026-06-14T10:00:00+00:00", "2026-06-14T10:00:00.5Z", "0000-01-01T00:00:00Z",
        "2026-6-14T10:00:00Z", "+026-06-14T10:00:00Z", "2026-06-14T10:00:00z"}) {
    CAPTURE(bad);
    CHECK_FALSE(record_validator::ParseShimTimestamp(bad, &t));
    CHECK(Reject(Edit("2026-06-14T10:00:00Z", bad)).find("timestamp") != std::string::npos);
  }
}

TEST_CASE("timestamp_ns must fall in the same second as timestamp") {
  CHECK(Reject(Edit("1781431200123456789", "1781431201000000000", kFull)) ==
        "key \"timestamp_ns\" is not within the second of \"timestamp\"");
  CHECK(Reject(Edit("1781431200123456789", "1781431199999999999", kFull)).find("timestamp_ns") ==
        5);
  ValidRecord rec;
  std::string reason;
  CHECK(record_validator::ValidateRecord(Edit("1781431200123456789", "1781431200999999999", kFull),
                                         Limits(), &rec, &reason));
  CHECK(record_validator::ValidateRecord(Edit("1781431200123456789", "1781431200000000000", kFull),
                                         Limits(), &rec, &reason));
}

TEST_CASE("argv and line limits") {
  Limits limits;
  limits.max_argv_entries = 3;
  limits.max_argv_bytes = 10;
  ValidRecord rec;
  std::string reason;
  CHECK(record_validator::ValidateRecord(Edit("[\"clone\",\"x\"]", "[\"a\",\"b\",\"cdefghij\"]"),
                                         limits, &rec, &reason));
  CHECK(Reject(Edit("[\"clone\",\"x\"]", "[\"a\",\"b\",\"c\",\"d\"]"), limits) ==
        "argv has more than 3 entries");
  CHECK(Reject(Edit("[\"clone\",\"x\"]", "[\"a\",\"b\",\"cdefghijk\"]"), limits) ==
        "argv exceeds 10 bytes");
  Limits defaults;
  std::string many = "[";
  for (int i = 0; i < 4097; ++i) many += i ? ",\"\"" : "\"\"";
  many += "]";
  CHECK(Reject(Edit("[\"clone\",\"x\"]", many)) == "argv has more than 4096 entries");
  limits = Limits();
  limits.max_line_bytes = 50;
  CHECK(Reject(kUpstream, limits) == "line exceeds 50 bytes");
}

TEST_CASE("records whose canonical text outgrows the line the most stay within its bound") {
  // Empty argv strings gain a byte each (", " for ","), non-ASCII triples
  // ("\u00e9" for two bytes), escaped controls stay as long: all fit the
  // 6-bytes-per-line-byte room the validator sizes (else "internal error").
  ValidRecord rec;
  std::string reason;
  std::string empties = "[";
  for (int i = 0; i < 4096; ++i) empties += i ? ",\"\"" : "\"\"";
  empties += "]";
  CHECK(record_validator::ValidateRecord(Edit("[\"clone\",\"x\"]", empties), Limits(), &rec,
                                         &reason));
  CHECK(rec.value(record_validator::kArgv).size() == 2 + 4096 * 2 + 4095 * 2);
  std::string accents(3000, 'x');
  for (size_t i = 0; i < accents.size(); i += 2) accents.replace(i, 2, "\xc3\xa9");
  std::string escapes;
  for (int i = 0; i < 500; ++i) escapes += "\\u0001\\ud83d\\ude00";
  CHECK(record_validator::ValidateRecord(
      Edit("[\"clone\",\"x\"]", "[\"" + accents + "\",\"" + escapes + "\"]"), Limits(), &rec,
      &reason));
  CHECK(rec.value(record_validator::kArgv).size() == 2 + 2 + 1500 * 6 + 2 + 2 + 500 * 18);
}

TEST_CASE("edge values: accepted ones get Python's canonical text, the rest a reason") {
  // What the validator accepts, the canonical serialiser writes exactly as
  // json.dumps(ensure_ascii=True) would after json.loads of the record.
  const struct {
    const char* arg;        // inside the quotes of argv[0], as JSON source
    const char* canonical;  // argv's canonical text
  } kAccepted[] = {
      {"a\\u0000b", R"(["a\u0000b", "x"])"},                     // NUL via escape: kept, escaped
      {"\\/etc", R"(["/etc", "x"])"},                            // escaped solidus: plain "/"
      {"\\u00e9\xc3\xa9", R"(["\u00e9\u00e9", "x"])"},           // escaped and raw, same text
      {"\xf0\x9f\x98\x80", R"(["\ud83d\ude00", "x"])"},          // non-BMP: surrogate pair
      {"\\ud83d\\ude00", R"(["\ud83d\ude00", "x"])"},            // an escaped pair is that char
      {"\xef\xbf\xbe\xef\xbf\xbf", R"(["\ufffe\uffff", "x"])"},  // noncharacters are valid
      {"\xf4\x8f\xbf\xbf", R"(["\udbff\udfff", "x"])"},          // U+10FFFF, the last code point
      {"\x7f", R"(["\u007f", "x"])"},                            // DEL is not printable ASCII
      {"\\u2028", R"(["\u2028", "x"])"},
  };
  for (const auto& c : kAccepted) {
    CAPTURE(c.arg);
    ValidRecord rec;
    std::string reason;
    REQUIRE(record_validator::ValidateRecord(Edit("\"clone\"", std::string("\"") + c.arg + "\""),
                                             Limits(), &rec, &reason));
    CHECK(rec.value(record_validator::kArgv) == c.canonical);
  }
  // Strings Python would decode but that are not strict UTF-8: refused.
  for (const char* bad : {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xed\xbf\xbf",
                          "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\\udc00", "\\udfff"}) {
    CAPTURE(bad);
    CHECK(Reject(Edit("\"clone\"", std::string("\"") + bad + "\"")).find("not valid UTF-8") !=
          std::string::npos);
  }
  // Counts are non-negative integers spelled as integers: -0 (Python's 0),
  // 1e3 (Python's 1000.0) and anything beyond uint64 are refused, uint64's
  // maximum is kept digit for digit.
  CHECK(Reject(Edit("\"pid\":7", "\"pid\":-0", kFull)) == "key \"pid\": must be >= 0");
  CHECK(Reject(Edit("\"pid\":7", "\"pid\":1E3", kFull)).find("non-integer") != std::string::npos);
  CHECK(Reject(Edit("\"pid\":7", "\"pid\":18446744073709551616", kFull)).find("out-of-range") !=
        std::string::npos);
  ValidRecord rec;
  std::string reason;
  REQUIRE(record_validator::ValidateRecord(Edit("\"pid\":7", "\"pid\":18446744073709551615", kFull),
                                           Limits(), &rec, &reason));
  CHECK(rec.value(record_validator::kPid) == "18446744073709551615");
  // A key spelled with an escape is that key: a duplicate all the same.
  CHECK(Reject(Edit("\"issue\":2662", "\"issue\":2662,\"\\u0069ssue\":2662")) ==
        "duplicate key \"issue\"");
}

TEST_CASE("every rejection names one kind from the bounded set, with a stable label") {
  const struct {
    std::string line;
    record_validator::Problem problem;
  } cases[] = {
      {"", record_validator::Problem::kEmpty},
      {"{\"argv\":\"\xff\"}", record_validator::Problem::kNotUtf8},
      {"[1]", record_validator::Problem::kNotJson},
      {kUpstream + " x", record_validator::Problem::kNotJson},
      {kUpstream.substr(0, 30), record_validator::Problem::kCutRecord},
      {Edit("\"issue\":2662", "\"issue\":2662,\"nope\":1"), record_validator::Problem::kUnknownKey},
      {Edit("\"issue\":2662", "\"issue\":2662,\"issue\":1"),
       record_validator::Problem::kDuplicateKey},
      {Edit("\"issue\":2662", "\"issue\":\"x\""), record_validator::Problem::kWrongType},
      {Edit("\"issue\":2662,", ""), record_validator::Problem::kMissingKey},
      {Edit("command_denied", "other"), record_validator::Problem::kBadValue},
      {Edit("2026-06-14T10:00:00Z", "2026-02-30T10:00:00Z"), record_validator::Problem::kBadValue},
  };
  for (const auto& c : cases) {
    ValidRecord rec;
    std::string reason;
    record_validator::Problem problem = record_validator::Problem::kNone;
    CAPTURE(c.line);
    CHECK_FALSE(record_validator::ValidateRecord(c.line, Limits(), &rec, &reason, &problem));
    CHECK(problem == c.problem);
  }
  Limits small;
  small.max_argv_entries = 1;
  ValidRecord rec;
  std::string reason;
  record_validator::Problem problem = record_validator::Problem::kNone;
  CHECK_FALSE(record_validator::ValidateRecord(kUpstream, small, &rec, &reason, &problem));
  CHECK(problem == record_validator::Problem::kArgvTooLarge);
  // Labels are distinct metric label values.
  std::set<std::string> labels;
  for (int i = 0; i < static_cast<int>(record_validator::Problem::kProblemCount); ++i) {
    labels.insert(record_validator::ProblemLabel(static_cast<record_validator::Problem>(i)));
  }
  CHECK(labels.size() == static_cast<size_t>(record_validator::Problem::kProblemCount));
}
