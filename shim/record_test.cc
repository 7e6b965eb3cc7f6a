#include "record.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace {

struct Built {
  std::string line;
  rapidjson::Document doc;
};

std::vector<std::string> g_storage;

Built BuildWith(std::vector<std::string> argv, std::string_view exec_path = "/usr/bin/curl",
                std::string_view script = "") {
  std::vector<const char*> ptrs;
  for (const std::string& a : argv) ptrs.push_back(a.c_str());
  ptrs.push_back(nullptr);
  record::Facts facts;
  facts.argc = static_cast<int>(argv.size());
  facts.argv = ptrs.data();
  facts.exec_path = exec_path;
  facts.binary = "curl";
  facts.via = script.empty() ? "path" : "script";
  facts.script = script;
  facts.confined = true;
  facts.pid = 7;
  facts.ppid = 1;
  facts.uid = 65534;
  facts.gid = 65534;
  facts.host = "sb-1";
  facts.time_sec = 1781431200;
  facts.time_nsec = 123456789;
  facts.version = "0.1.0";
  std::string storage(record::kMaxRecordSize, '\0');
  fixed_buffer::Buffer out(storage.data(), storage.size());
  REQUIRE(record::Build(facts, &out));
  Built b;
  b.line = std::string(out.view());
  b.doc.Parse(b.line.c_str(), b.line.size());
  REQUIRE_MESSAGE(!b.doc.HasParseError(), b.line);
  return b;
}

}  // namespace

TEST_CASE("the SPEC example, byte for byte") {
  Built b = BuildWith({"curl", "-sSL", "https://example.com/x"});
  CHECK(b.line ==
        "{\"argc\":3,\"argv\":[\"-sSL\",\"https://example.com/"
        "x\"],\"argv0\":\"curl\",\"binary\":\"curl\","
        "\"confined\":true,\"event\":\"command_denied\",\"gid\":65534,\"host\":\"sb-1\",\"issue\":"
        "2662,"
        "\"path\":\"/usr/bin/"
        "curl\",\"pid\":7,\"ppid\":1,\"redactions\":0,\"timestamp\":\"2026-06-14T10:00:00Z\","
        "\"timestamp_ns\":1781431200123456789,\"truncated\":false,\"uid\":65534,\"version\":\"0.1."
        "0\",\"via\":\"path\"}");
}

TEST_CASE("keys are sorted") {
  Built b = BuildWith({"curl", "x"});
  std::string previous;
  for (auto it = b.doc.MemberBegin(); it != b.doc.MemberEnd(); ++it) {
    std::string key = it->name.GetString();
    CHECK(previous < key);
    previous = key;
  }
}

TEST_CASE("empty argv: argc 0, no argv0") {
  record::Facts facts;
  facts.binary = "unknown";
  facts.exec_path = "/usr/bin/curl";
  std::string storage(record::kMaxRecordSize, '\0');
  fixed_buffer::Buffer out(storage.data(), storage.size());
  REQUIRE(record::Build(facts, &out));
  std::string line(out.view());
  CHECK(line.find("\"argc\":0,\"argv\":[],\"binary\":\"unknown\"") != std::string::npos);
  CHECK(line.find("argv0") == std::string::npos);
}

TEST_CASE("timestamps") {
  auto ts = [](std::int64_t sec) {
    char s[32];
    fixed_buffer::Buffer out(s, sizeof s);
    REQUIRE(record::AppendTimestamp(sec, &out));
    return std::string(out.view());
  };
  CHECK(ts(0) == "1970-01-01T00:00:00Z");
  CHECK(ts(951782400) == "2000-02-29T00:00:00Z");
  CHECK(ts(4102444799) == "2099-12-31T23:59:59Z");
  CHECK(ts(-5) == "1970-01-01T00:00:00Z");
}

TEST_CASE("hostile bytes stay valid JSON with the documented escapes") {
  Built b = BuildWith({"curl", std::string("a\"b\\c\n\x01\xff\xe2\x80\xa8", 11)});
  CHECK(b.line.find("\"a\\\"b\\\\c\\u000a\\u0001\xef\xbf\xbd\\u2028\"") != std::string::npos);
  CHECK(b.doc["argv"][0].GetStringLength() > 0);
}

TEST_CASE("secrets are redacted and counted, argv0 and path too") {
  Built b =
      BuildWith({"https://u:p@h/x", "-H", "Authorization: Bearer zzzzzzzz", "--password", "pw"},
                "/tmp/ghp_0123456789abcdefghijABCDEFGHIJ012345/curl");
  CHECK(std::string(b.doc["argv"][1].GetString()) == "Authorization: [REDACTED]");
  CHECK(std::string(b.doc["argv"][3].GetString()) == "[REDACTED]");
  CHECK(std::string(b.doc["argv0"].GetString()) == "https://u:[REDACTED]@h/x");
  CHECK(b.doc["redactions"].GetInt() == 4);
  CHECK(b.line.find("zzzzzzzz") == std::string::npos);
  CHECK(b.line.find("\"pw\"") == std::string::npos);
}

TEST_CASE("a long argument is cut at the field limit with a marker") {
  Built b = BuildWith({"curl", std::string(5000, 'a'), "next"});
  std::string arg = b.doc["argv"][0].GetString();
  CHECK(arg.size() == record::kMaxFieldSize);
  CHECK(arg.substr(arg.size() - record::kCutMarker.size()) == record::kCutMarker);
  CHECK(std::string(b.doc["argv"][1].GetString()) == "next");
  CHECK(b.doc["truncated"].GetBool());
}

TEST_CASE("a plain field at the limit is kept whole; one byte more is cut") {
  // Plain printable ASCII takes the copy-whole path; one byte over the limit
  // takes the unit-by-unit path. Both must follow the same rule.
  std::string at_limit(record::kMaxFieldSize, 'p');
  std::string over = at_limit + "p";
  char storage[record::kMaxFieldSize + 2];
  for (const std::string& raw :
       {at_limit, over, std::string("plain ~!#$%&'()*+,-./:;<=>?@[]^_`{|}")}) {
    fixed_buffer::Buffer out(storage, sizeof storage);
    bool cut = false;
    REQUIRE(record::AppendField(raw, redact::kNoSpans, record::kMaxFieldSize, &out, &cut));
    std::string field(out.view().substr(1, out.size() - 2));
    CHECK(cut == (raw.size() > record::kMaxFieldSize));
    if (cut) {
      CHECK(field.size() == record::kMaxFieldSize);
      std::string kept = raw.substr(0, record::kMaxFieldSize - record::kCutMarker.size());
      CHECK(field == kept + std::string(record::kCutMarker));
    } else {
      CHECK(field == raw);
    }
  }
  // Too little room: nothing is appended, whichever path.
  char small[8];
  fixed_buffer::Buffer tight(small, sizeof small);
  bool cut = false;
  CHECK_FALSE(
      record::AppendField("12345678", redact::kNoSpans, record::kMaxFieldSize, &tight, &cut));
  CHECK(tight.size() == 0);
}

TEST_CASE("a cut never splits an escape or a character") {
  for (std::size_t pad = 0; pad < 8; ++pad) {
    std::string arg(pad, 'x');
    for (int i = 0; i < 300; ++i) arg += (i % 2 ? "\x01" : "\xf0\x9f\x98\x80");
    Built b = BuildWith({"curl", arg});
    std::string cut = b.doc["argv"][0].GetString();
    CHECK(cut.substr(cut.size() - record::kCutMarker.size()) == record::kCutMarker);
    CHECK(cut.find("\xef\xbf\xbd") == std::string::npos);  // no broken character
  }
}

TEST_CASE("a cut never splits a redaction marker or reveals a secret") {
  // The marker would end past the cut (at byte 504 of 498 kept): it is left
  // out whole, and the secret with it.
  std::string arg =
      std::string(480, 'y') + " GITHUB_TOKEN=abcdefghijklmnopqrstuvwxyz " + std::string(100, 'z');
  Built b = BuildWith({"curl", arg});
  std::string cut = b.doc["argv"][0].GetString();
  CHECK(cut.find("abc") == std::string::npos);
  CHECK(cut.find("GITHUB_TOKEN=...[truncated]") != std::string::npos);
  CHECK(cut.find("[REDAC") == std::string::npos);
  CHECK(cut.substr(cut.size() - record::kCutMarker.size()) == record::kCutMarker);
  CHECK(b.doc["redactions"].GetInt() == 1);
}

TEST_CASE("many arguments: trailing ones are dropped to fit") {
  std::vector<std::string> argv = {"curl"};
  for (int i = 0; i < 2000; ++i) argv.push_back("arg" + std::to_string(i));
  argv.push_back("--password");
  argv.push_back("late-secret");
  Built b = BuildWith(argv);
  CHECK(b.line.size() <= record::kMaxRecordSize);
  CHECK(b.doc["truncated"].GetBool());
  CHECK(b.doc["argc"].GetInt() == 2003);
  CHECK(b.doc["argv"].Size() < 2002);
  CHECK(std::string(b.doc["argv"][0].GetString()) == "arg0");
  CHECK(b.doc["redactions"].GetInt() == 1);  // counted though dropped
  // kept arguments are a prefix, in order
  for (rapidjson::SizeType i = 0; i < b.doc["argv"].Size(); ++i) {
    CHECK(std::string(b.doc["argv"][i].GetString()) == "arg" + std::to_string(i));
  }
}

TEST_CASE("every record fits whatever the arguments") {
  std::vector<std::string> argv = {std::string(3000, '\x01')};
  for (int i = 0; i < 40; ++i) argv.push_back(std::string(700, static_cast<char>(0x80 + i)));
  Built b = BuildWith(argv, std::string(5000, '/'));
  CHECK(b.line.size() <= record::kMaxRecordSize);
  CHECK(b.doc["truncated"].GetBool());
}

TEST_CASE("a script exec names the script, redacted like the path, in sorted place") {
  Built b = BuildWith({"/usr/bin/curl", "/tmp/https://u:scriptsecret@h/ls", "-la"},
                      "/tmp/https://u:scriptsecret@h/ls", "/tmp/https://u:scriptsecret@h/ls");
  CHECK(std::string(b.doc["via"].GetString()) == "script");
  CHECK(std::string(b.doc["script"].GetString()) == "/tmp/https://u:[REDACTED]@h/ls");
  CHECK(b.line.find("scriptsecret") == std::string::npos);
  // argv[1] and path; the script is the path, counted once
  CHECK(b.line.find("\"redactions\":2,\"script\":") != std::string::npos);
  CHECK(b.line.find("\"version\":\"0.1.0\",\"via\":\"script\"}") != std::string::npos);
  Built plain = BuildWith({"curl", "x"});
  CHECK_FALSE(plain.doc.HasMember("script"));
}
