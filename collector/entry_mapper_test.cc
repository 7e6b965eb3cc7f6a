#include "entry_mapper.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

namespace {

const std::string kFull =
    R"({"argc":3,"argv":["-sSL","https://example.com/x"],"argv0":"curl","binary":"curl","confined":true,)"
    R"("event":"command_denied","gid":65534,"host":"sb-1","issue":2662,"path":"/usr/bin/curl","pid":7,)"
    R"("ppid":1,"redactions":0,"timestamp":"2026-06-14T10:00:00Z","timestamp_ns":1781431200123456789,)"
    R"("truncated":false,"uid":65534,"version":"0.1.0"})";

record_validator::ValidRecord Validate(const std::string& line) {
  record_validator::ValidRecord rec;
  std::string reason;
  REQUIRE(record_validator::ValidateRecord(line, record_validator::Limits(), &rec, &reason));
  return rec;
}

}  // namespace

TEST_CASE("mapping per SPEC: fixed fields, labels from the operator, data with source") {
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = "sb-1";
  labels.agent_did = "did:agt:sandbox:sb-1";
  labels.environment = "prod";
  labels.compute_driver = "docker";
  entry_mapper::SourceRef source{"/var/log/agt/sandboxes/sb-1/denied.log", 2049, 1234, 422, {}};
  audit_entry::AuditEntryFields f;
  entry_mapper::MapRecord(Validate(kFull), labels, source, &f);
  CHECK(f.event_type == "command_denied");
  CHECK(f.action == "exec");
  CHECK(f.resource == "curl");
  CHECK(f.outcome == "denied");
  CHECK(f.policy_decision == "deny");
  CHECK(f.matched_rule == "command_denylist");
  CHECK(f.timestamp == "2026-06-14T10:00:00.123456+00:00");
  CHECK_FALSE(f.target_did);
  CHECK_FALSE(f.trace_id);
  CHECK_FALSE(f.session_id);
  CHECK(*f.sandbox_id == "sb-1");
  CHECK(*f.environment == "prod");
  CHECK(*f.compute_driver == "docker");
  CHECK(f.entry_id.empty());  // derived when signed (chain_signer_test.cc)
  CHECK(
      f.data_canonical ==
      R"({"argc": 3, "argv": ["-sSL", "https://example.com/x"], "argv0": "curl", )"
      R"("attestation": {"attested": false}, "binary": "curl", )"
      R"("confined": true, "event": "command_denied", "gid": 65534, "host": "sb-1", "issue": 2662, )"
      R"("labels": {"compute_driver": "docker", "environment": "prod", "sandbox_id": "sb-1"}, )"
      R"("path": "/usr/bin/curl", "pid": 7, "ppid": 1, "redactions": 0, "source": {"device": 2049, )"
      R"("file": "/var/log/agt/sandboxes/sb-1/denied.log", "inode": 1234, "offset": 422}, )"
      R"("timestamp": "2026-06-14T10:00:00Z", "timestamp_ns": 1781431200123456789, "truncated": false, )"
      R"("uid": 65534, "version": "0.1.0"})");
  rapidjson::Document d;
  d.Parse(f.data_canonical.c_str());
  CHECK(d.IsObject());
}

TEST_CASE("entry timestamps follow Python's isoformat()") {
  const std::string base =
      R"({"argv":[],"binary":"git","event":"command_denied","issue":2662,"timestamp":"2026-12-31T23:59:59Z")";
  CHECK(entry_mapper::EntryTimestamp(Validate(base + "}")) == "2026-12-31T23:59:59+00:00");
  CHECK(entry_mapper::EntryTimestamp(Validate(base + ",\"timestamp_ns\":1798761599000000000}")) ==
        "2026-12-31T23:59:59+00:00");
  // Sub-microsecond nanoseconds are truncated; zero microseconds drop the fraction.
  CHECK(entry_mapper::EntryTimestamp(Validate(base + ",\"timestamp_ns\":1798761599000000999}")) ==
        "2026-12-31T23:59:59+00:00");
  CHECK(entry_mapper::EntryTimestamp(Validate(base + ",\"timestamp_ns\":1798761599000001000}")) ==
        "2026-12-31T23:59:59.000001+00:00");
  CHECK(entry_mapper::EntryTimestamp(Validate(base + ",\"timestamp_ns\":1798761599999999999}")) ==
        "2026-12-31T23:59:59.999999+00:00");
}

TEST_CASE("data is the same text whatever order the record's keys came in") {
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = "sb-1";
  const entry_mapper::SourceRef source{"/l", 1, 2, 3, {}};
  const auto data_of = [&](const std::string& line) {
    audit_entry::AuditEntryFields f;
    entry_mapper::MapRecord(Validate(line), labels, source, &f);
    return f.data_canonical;
  };
  const std::string sorted = data_of(kFull);
  // Reversed key order: the member-by-member path.
  rapidjson::Document d;
  d.Parse(kFull.c_str());
  std::string reversed = "{";
  for (auto m = d.MemberEnd(); m != d.MemberBegin();) {
    --m;
    const std::string key = m->name.GetString();
    const size_t at = kFull.find("\"" + key + "\":");
    REQUIRE(at != std::string::npos);
    // The member's text as it stands in kFull, up to the next top-level ','.
    size_t end = at, depth = 0;
    for (bool in_string = false; end < kFull.size(); ++end) {
      const char c = kFull[end];
      if (c == '"' && kFull[end - 1] != '\\') in_string = !in_string;
      if (in_string) continue;
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if ((c == ',' && depth == 0) || (c == '}' && end == kFull.size() - 1)) break;
    }
    if (reversed.size() > 1) reversed += ",";
    reversed += kFull.substr(at, end - at);
  }
  reversed += "}";
  CHECK(reversed != kFull);
  CHECK(data_of(reversed) == sorted);
  // Only keys after "source", only keys before it, and the minimal record.
  const std::string minimal = R"({"argv":[],"binary":"git","event":"command_denied","issue":2662,)"
                              R"("timestamp":"2026-06-14T10:00:00Z"})";
  CHECK(data_of(minimal) ==
        R"({"argv": [], "attestation": {"attested": false}, "binary": "git", )"
        R"("event": "command_denied", "issue": 2662, )"
        R"("labels": {"compute_driver": null, "environment": null, "sandbox_id": "sb-1"}, )"
        R"("source": {"device": 1, "file": "/l", "inode": 2, "offset": 3}, )"
        R"("timestamp": "2026-06-14T10:00:00Z"})");
  const std::string shuffled = R"({"timestamp":"2026-06-14T10:00:00Z","issue":2662,"argv":[],)"
                               R"("event":"command_denied","binary":"git"})";
  CHECK(data_of(shuffled) == data_of(minimal));
}

TEST_CASE("an attested record carries the kernel's facts in data.attestation") {
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = "sb-1";
  entry_mapper::SourceRef source{"/run/agt-deny/denied.sock", 0, 0, 9, R"({"attested": true})"};
  audit_entry::AuditEntryFields f;
  entry_mapper::MapRecord(Validate(kFull), labels, source, &f);
  rapidjson::Document d;
  d.Parse(f.data_canonical.c_str());
  REQUIRE(d.IsObject());
  CHECK(d["attestation"]["attested"].IsTrue());
  CHECK(d["source"]["offset"].GetUint() == 9);
}
