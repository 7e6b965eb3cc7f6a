#include "forward/cloud_event.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <string>

// Upstream's own output for the same entries (../shared/vectors/agt-cloudevents,
// copied into tests/data/cloudevents-vectors): equal key for key.
TEST_CASE("cloud event: upstream's golden vectors, key for key") {
  std::ifstream in(AGT_COLLECTOR_CLOUDEVENT_VECTORS_DIR "/input.jsonl");
  std::ifstream want(AGT_COLLECTOR_CLOUDEVENT_VECTORS_DIR "/expected.jsonl");
  REQUIRE(in.good());
  REQUIRE(want.good());
  std::string line, expected, got, err;
  int n = 0;
  while (std::getline(in, line)) {
    REQUIRE(std::getline(want, expected));
    REQUIRE(cloud_event::FromEntryLine(line, &got, &err));
    rapidjson::Document a, b;
    a.Parse(got.c_str());
    b.Parse(expected.c_str());
    CAPTURE(got);
    CAPTURE(expected);
    CHECK(a == b);
    ++n;
  }
  CHECK(n == 6);
}

TEST_CASE("cloud event: time is RFC 3339 (upstream's '+00:00Z' is not)") {
  std::string out, err;
  REQUIRE(cloud_event::FromEntryLine(
      R"({"entry_id": "e", "event_type": "tool_blocked", "timestamp": "2026-01-01T00:00:00+00:00",)"
      R"( "content_hash": "c", "previous_hash": "", "agent_did": null, "trace_id": "t",)"
      R"( "session_id": null, "data": {"outcome": "x"}})",
      &out, &err));
  CHECK(out.find(R"("time": "2026-01-01T00:00:00Z")") != std::string::npos);
  CHECK(out.find(R"("type": "ai.agentmesh.tool.blocked")") != std::string::npos);
  CHECK(out.find(R"("traceid": "t")") != std::string::npos);
  CHECK(out.find("sessionid") == std::string::npos);
  CHECK(out.find(R"("outcome": "x")") != std::string::npos);  // the entry's data wins
  CHECK_FALSE(cloud_event::FromEntryLine("[]", &out, &err));
}

TEST_CASE("cloud event: a lone byte of a byte-order mark before the entry is refused") {
  const std::string entry =
      R"({"entry_id": "audit_1", "event_type": "command_denied", "timestamp": "t", )"
      R"("content_hash": "a", "previous_hash": "b"})";
  std::string out, err;
  REQUIRE(cloud_event::FromEntryLine(entry, &out, &err));
  for (const char* lead : {"\xef", "\xbb", "\xbf", "\xef\xbb\xbf"}) {
    CAPTURE(lead);
    CHECK_FALSE(cloud_event::FromEntryLine(lead + entry, &out, &err));
    CHECK(err == "not a JSON object");
  }
  CHECK_FALSE(cloud_event::FromEntryLine(entry + std::string("\0{}", 3), &out, &err));
}
