#include "forward/forward_message.h"

#include <doctest/doctest.h>

namespace {

const char* kLine =
    R"({"action": "exec", "agent_did": "did:agt:sandbox:sb-0", "content_hash": "ab", )"
    R"("data": {}, "entry_id": "audit_0000000000000007", "event_type": "command_denied", )"
    R"("outcome": "denied", "previous_hash": "cd", "resource": "a\"b]c\\", )"
    R"("sandbox_id": "sb-0", "timestamp": "2026-06-14T10:00:00.123456+00:00"})";

}  // namespace

TEST_CASE("forward message: RFC 5424 header, structured data, and the line as MSG") {
  forward_message::EntryFacts e;
  std::string err, out;
  REQUIRE(forward_message::ParseEntry(kLine, &e, &err));
  forward_message::Format(e, "host1", 8, kLine, 1 << 20, &out);
  const std::string want =
      std::string(
          "<37>1 2026-06-14T10:00:00.123456+00:00 host1 agt-collector - command_denied "
          "[agt@32473 entry_id=\"audit_0000000000000007\" sandbox_id=\"sb-0\" "
          "resource=\"a\\\"b\\]c\\\\\" outcome=\"denied\" seq=\"8\" previous_hash=\"cd\" "
          "content_hash=\"ab\"] ") +
      kLine;
  CHECK(out == want);
}

TEST_CASE("forward message: an oversized entry becomes a notice, never a cut line") {
  forward_message::EntryFacts e;
  std::string err, out;
  REQUIRE(forward_message::ParseEntry(kLine, &e, &err));
  forward_message::Format(e, "host1", 8, kLine, 200, &out);
  CHECK(out.find(" entry_oversized [agt@32473 entry_id=\"audit_0000000000000007\"") !=
        std::string::npos);
  CHECK(out.find(" size=\"" + std::to_string(std::string(kLine).size()) + "\"]") !=
        std::string::npos);
  CHECK(out.back() == ']');  // no MSG at all
  CHECK(out.find("\"action\"") == std::string::npos);
}

TEST_CASE("forward message: a timestamp or host of another shape is the NILVALUE") {
  forward_message::EntryFacts e;
  e.entry_id = "audit_1";
  e.event_type = "command_denied";
  std::string out;
  for (const char* t : {"2026-06-14 10:00:00", "2026-06-14T10:00:00.1234567Z", "x", ""}) {
    e.timestamp = t;
    forward_message::Format(e, "bad host", 1, "{}", 4096, &out);
    CAPTURE(t);
    CHECK(out.rfind("<37>1 - - agt-collector - command_denied [", 0) == 0);
  }
  e.timestamp = "2026-06-14T10:00:00Z";
  forward_message::Format(e, "h", 1, "{}", 4096, &out);
  CHECK(out.rfind("<37>1 2026-06-14T10:00:00Z h ", 0) == 0);
}

TEST_CASE("forward message: a line that is not an entry is refused by the parser") {
  forward_message::EntryFacts e;
  std::string err;
  CHECK_FALSE(forward_message::ParseEntry("not json", &e, &err));
  CHECK_FALSE(forward_message::ParseEntry(R"({"entry_id": 1})", &e, &err));
  CHECK(err.find("entry_id") != std::string::npos);
}

TEST_CASE("forward message: a lone byte of a byte-order mark before the entry is refused") {
  forward_message::EntryFacts e;
  std::string err;
  REQUIRE(forward_message::ParseEntry(kLine, &e, &err));
  for (const char* lead : {"\xef", "\xbb", "\xbf", "\xef\xbb\xbf"}) {
    CAPTURE(lead);
    CHECK_FALSE(forward_message::ParseEntry(lead + std::string(kLine), &e, &err));
    CHECK(err == "not a JSON object");
  }
  // A NUL is not the end of the text.
  CHECK_FALSE(forward_message::ParseEntry(kLine + std::string("\0{}", 3), &e, &err));
}
