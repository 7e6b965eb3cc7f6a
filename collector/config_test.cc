#include "config.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace {

std::string Fails(const std::string& text) {
  config::Config c;
  std::vector<std::string> warnings;
  std::string err;
  CAPTURE(text);
  CHECK_FALSE(config::ParseConfig(text, "c.json", &c, &warnings, &err));
  return err;
}

}  // namespace

TEST_CASE("config: a full valid configuration") {
  config::Config c;
  std::vector<std::string> warnings;
  std::string err;
  REQUIRE(config::ParseConfig(R"({
    "output": "/var/lib/agt/audit.jsonl", "key_file": "/etc/agt/key", "state_dir": "/var/lib/agt/state",
    "watch": ["/var/log/agt/sandboxes/{sandbox_id}/denied.log"],
    "sources": [{"path": "/srv/a/denied.log", "sandbox_id": "a", "environment": "prod", "agent_did": null},
                {"pattern": "/srv/p/{sandbox_id}/denied.log", "compute_driver": "docker",
                 "agent_did": "did:agt:x:{sandbox_id}:{sandbox_id}"}],
    "limits": {"max_line_size": "1MiB", "max_argv_entries": 10, "max_argv_size": "1KB"}})",
                              "c.json", &c, &warnings, &err));
  CHECK(c.limits.max_line_bytes == 1048576);
  CHECK(c.limits.max_argv_bytes == 1000);
  CHECK(c.limits.max_argv_entries == 10);
  entry_mapper::SourceLabels l;
  REQUIRE(config::LabelsForPath(c, "/srv/a/denied.log", &l, &err));
  CHECK(l.sandbox_id == "a");
  CHECK_FALSE(l.agent_did);
  CHECK(*l.environment == "prod");
  REQUIRE(config::LabelsForPath(c, "/srv/p/b7/denied.log", &l, &err));
  CHECK(l.sandbox_id == "b7");
  CHECK(*l.agent_did == "did:agt:x:b7:b7");
  CHECK(*l.compute_driver == "docker");
  REQUIRE(config::LabelsForPath(c, "/var/log/agt/sandboxes/w/denied.log", &l, &err));
  CHECK(*l.agent_did == "did:agt:sandbox:w");
  CHECK_FALSE(l.environment);
  CHECK_FALSE(config::LabelsForPath(c, "/elsewhere/denied.log", &l, &err));
  CHECK(err.find("matches no source") != std::string::npos);
}

TEST_CASE("config: comments are allowed, as in the packaged default") {
  config::Config c;
  std::vector<std::string> warnings;
  std::string err;
  REQUIRE(
      config::ParseConfig("// the audit file\n{\n  \"output\": \"/a.jsonl\" /* here */\n"
                          "  // \"key_file\": \"/k\"\n}\n",
                          "c.json", &c, &warnings, &err));
  CHECK(c.output == "/a.jsonl");
  CHECK(c.key_file.empty());
  CHECK(Fails("{\"output\": \"/a\" /* never closed }").find("c.json:1:") == 0);
}

TEST_CASE("config: unknown keys name their JSON path, with a hint") {
  CHECK(Fails(R"({"outptu": "x"})") == "c.json: outptu: unknown key (did you mean \"output\"?)");
  CHECK(
      Fails(
          R"({"sources": [{"path": "/a", "sandbox_id": "a"}, {"pattern": "/{sandbox_id}/l", "enviroment": 1}]})") ==
      "c.json: sources[1].enviroment: unknown key (did you mean \"environment\"?)");
  CHECK(
      Fails(R"({"limits": {"max_line": 5}})").find("limits.max_line: unknown key (did you mean") !=
      std::string::npos);
  CHECK(Fails(R"({"zzzzzzzz": 1})") == "c.json: zzzzzzzz: unknown key");
  // A nested key spelled as the schema spells it is no key at this level (the
  // first crashed the parser: it set a member of a forward never begun).
  CHECK(Fails(R"({"forward[].name": "x"})").find("forward[].name: unknown key") !=
        std::string::npos);
  CHECK(Fails(R"({"sources[].path": "/a"})").find("sources[].path: unknown key") !=
        std::string::npos);
  CHECK(Fails(R"({"limits.max_line_size": 300})").find("limits.max_line_size: unknown key") !=
        std::string::npos);
  CHECK(Fails(R"({"forward": [{"url": "relp://h:1", "forward[].name": "x"}]})")
            .find("forward[0].forward[].name: unknown key") != std::string::npos);
  CHECK(Fails(R"({"output": "a", "output": "b"})").find("output: duplicate key") !=
        std::string::npos);
}

TEST_CASE("config: types, semantics, JSON errors with line:column") {
  CHECK(Fails(R"({"watch": "x"})").find("watch: expected an array of strings") !=
        std::string::npos);
  CHECK(Fails(R"({"watch": [1]})").find("watch[0]: expected a string") != std::string::npos);
  CHECK(Fails(R"({"sources": [{"path": "rel", "sandbox_id": "a"}]})").find("absolute") !=
        std::string::npos);
  CHECK(Fails(R"({"sources": [{"pattern": "/{sandbox_id}/l", "sandbox_id": "a"}]})")
            .find("not allowed") != std::string::npos);
  CHECK(
      Fails(R"({"sources": [{"path": "/a", "sandbox_id": "../x"}]})").find("sandbox_id: must be") !=
      std::string::npos);
  CHECK(Fails(R"({"limits": {"max_line_size": "64K"}})").find("unknown size unit \"K\"") !=
        std::string::npos);
  CHECK(Fails(R"({"limits": {"max_line_size": 10}})").find("between 256") != std::string::npos);
  CHECK(Fails(R"({"limits": {"max_argv_entries": 0}})").find("between 1") != std::string::npos);
  CHECK(Fails(R"({"output": "\ud800"})").find("invalid JSON") != std::string::npos);
  CHECK(Fails(R"({"output": "\udc00"})").find("UTF-8") != std::string::npos);
  CHECK(Fails("{\n  \"output\": ,\n}").find("c.json:2:13: invalid JSON") != std::string::npos);
  CHECK(Fails("[]").find("must be a JSON object") != std::string::npos);
  // Bytes after a NUL are not ignored (a DOM parse would stop there).
  CHECK(Fails(std::string("{}\0{\"bogus\": 1}", 15)).find("c.json:1:3: invalid JSON: a NUL byte") !=
        std::string::npos);
}

TEST_CASE("sizes: explicit units") {
  uint64_t b = 0;
  std::string err;
  CHECK((config::ParseSize("4096", &b, &err) && b == 4096));
  CHECK((config::ParseSize("2B", &b, &err) && b == 2));
  CHECK((config::ParseSize("1KB", &b, &err) && b == 1000));
  CHECK((config::ParseSize("1KiB", &b, &err) && b == 1024));
  CHECK((config::ParseSize("3MB", &b, &err) && b == 3000000));
  CHECK((config::ParseSize("3MiB", &b, &err) && b == 3145728));
  CHECK((config::ParseSize("1GiB", &b, &err) && b == 1073741824));
  for (const char* bad : {"", "MiB", "1M", "1k", "1 MiB", "1mib", "1.5MiB", "-1",
                          "99999999999999999999999", "99999999999GiB", "18446744073709551616"}) {
    CAPTURE(bad);
    CHECK_FALSE(config::ParseSize(bad, &b, &err));
  }
}

TEST_CASE("the schema table covers the run mode's keys") {
  size_t n = 0;
  const config::SchemaRow* rows = config::Schema(&n);
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; ++i) {
    keys.push_back(rows[i].key);
    CHECK(std::string(rows[i].help).size() > 5);
  }
  for (const char* k : {"watch", "state_dir", "output", "key_file", "sources[].pattern"}) {
    CHECK(std::find(keys.begin(), keys.end(), k) != keys.end());
  }
}

TEST_CASE("config: forward destinations, checked like every other key") {
  config::Config c;
  std::vector<std::string> warnings;
  std::string err;
  REQUIRE(config::ParseConfig(R"({"forward": [
      {"url": "relp+tls://logs.example.org:2514", "ca_file": "/ca.pem", "cert_file": "/c.pem",
       "key_file": "/c.key", "max_message_size": "64KiB"},
      {"name": "backup", "url": "syslog+tcp://10.0.0.2:514", "format": "cloudevents"}]})",
                              "c.json", &c, &warnings, &err));
  REQUIRE(c.forward.size() == 2);
  CHECK(c.forward[0].name == "relp_tls-logs.example.org-2514");
  CHECK(c.forward[0].permitted_peer == "logs.example.org");
  CHECK(c.forward[0].max_message_bytes == 65536);
  CHECK(c.forward[1].format == forward_destination::Format::kCloudEvents);
  CHECK(Fails(R"({"forward": [{"url": "relp://h:1", "ca_fil": "/x"}]})") ==
        "c.json: forward[0].ca_fil: unknown key (did you mean \"ca_file\"?)");
  CHECK(Fails(R"({"forward": [{"url": "ftp://h:1"}]})").find("forward[0].url: a destination is") !=
        std::string::npos);
  CHECK(Fails(R"({"forward": [{"name": "x"}]})") == "c.json: forward[0]: needs \"url\"");
  CHECK(Fails(R"({"forward": [{"url": "relp+tls://h:1"}]})").find("needs a CA file") !=
        std::string::npos);
  CHECK(Fails(R"({"forward": [{"url": "relp://h:1"}, {"url": "relp://h:1"}]})")
            .find("a second destination named") != std::string::npos);
  CHECK(Fails(R"({"forward": [{"url": "relp://h:1", "format": "json"}]})")
            .find("\"rfc5424\" or \"cloudevents\"") != std::string::npos);
  CHECK(Fails(R"({"forward": [{"url": "relp://h:1", "name": "../x"}]})")
            .find("forward[0].name: must be") != std::string::npos);
}

TEST_CASE("config: a lone byte of a byte-order mark is refused, not skipped") {
  // Document::Parse(str, len) would drop each of 0xEF, 0xBB, 0xBF at the
  // start on its own: "\xbb{...}" read as the object after it.
  for (const char* lead : {"\xef", "\xbb", "\xbf", "\xef\xbb\xbf"}) {
    CAPTURE(lead);
    CHECK(Fails(std::string(lead) + R"({"output": "/var/log/a.jsonl"})")
              .find("c.json:1:1: invalid JSON") != std::string::npos);
  }
}
