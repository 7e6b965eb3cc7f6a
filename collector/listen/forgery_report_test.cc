#include "listen/forgery_report.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace {

peer_attestation::Peer PeerIn(const std::string& cgroup, uint64_t ino) {
  peer_attestation::Peer p;
  p.pid = 42;
  p.uid = 65534;
  p.gid = 65534;
  p.exe_known = true;
  p.exe_path = "/usr/bin/python3.11";
  p.exe.dev = 1;
  p.exe.ino = ino;
  p.cgroup = cgroup;
  p.sandbox_id = "sb-1";
  return p;
}

uint64_t CountOf(const forgery_report::Due& d) {
  rapidjson::Document doc;
  doc.Parse(d.fields.data_canonical.c_str());
  REQUIRE(doc.IsObject());
  return doc["count"].GetUint64();
}

}  // namespace

TEST_CASE("the prefix is bounded and escaped to printable ASCII") {
  CHECK(forgery_report::EscapedPrefix("ab\\c\n\x01\xff", 100) == "ab\\x5cc\\x0a\\x01\\xff");
  CHECK(forgery_report::EscapedPrefix(std::string(1000, 'x'), 256).size() == 256);
}

TEST_CASE("the first forgery from a peer is written at once, repeats are counted per interval") {
  forgery_report::Reporter r("/run/agt-deny/denied.sock", 1000, 8);
  std::vector<forgery_report::Due> due;
  const std::string record = R"({"binary":"curl","event":"command_denied"})";
  r.Seen(PeerIn("/docker/x", 7), "not the shim", record, 10000, &due);
  REQUIRE(due.size() == 1);
  const audit_entry::AuditEntryFields& f = due[0].fields;
  CHECK(f.event_type == "denial_record_forged");
  CHECK(*f.sandbox_id == "sb-1");
  CHECK(f.timestamp == "1970-01-01T00:00:10+00:00");
  rapidjson::Document doc;
  doc.Parse(f.data_canonical.c_str());
  REQUIRE(doc.IsObject());
  CHECK(std::string(doc["prefix"].GetString()) == record);
  CHECK(doc["attestation"]["attested"].IsFalse());
  CHECK(doc["attestation"]["uid"].GetUint() == 65534);
  CHECK(std::string(doc["labels"]["sandbox_id"].GetString()) == "sb-1");
  CHECK(CountOf(due[0]) == 1);
  due.clear();
  for (int i = 0; i < 100000; ++i)
    r.Seen(PeerIn("/docker/x", 7), "not the shim", record, 10001, &due);
  r.Seen(PeerIn("/docker/y", 7), "not the shim", record, 10001, &due);  // another container
  CHECK(due.size() == 1);
  due.clear();
  r.Flush(10500, &due);
  CHECK(due.empty());  // the interval has not ended
  CHECK(r.MsUntilDue(10500) == 500);
  r.Flush(11000, &due);
  REQUIRE(due.size() == 1);
  CHECK(CountOf(due[0]) == 100000);
  due.clear();
  r.Flush(12500, &due);  // both quiet for a whole interval: forgotten
  CHECK(due.empty());
  CHECK(r.MsUntilDue(12500) == -1);
  r.Seen(PeerIn("/docker/x", 7), "not the shim", record, 12600, &due);
  CHECK(due.size() == 1);  // forgotten: the next one is written at once again
}

TEST_CASE("peers beyond the table's size are counted together, not remembered one by one") {
  forgery_report::Reporter r("/s", 1000, 2);
  std::vector<forgery_report::Due> due;
  for (uint64_t ino = 0; ino < 1000; ++ino) r.Seen(PeerIn("/c", ino), "x", "", 0, &due);
  CHECK(due.size() == 2);
  due.clear();
  r.FlushAll(5, &due);
  REQUIRE(due.size() == 1);
  CHECK(CountOf(due[0]) == 998);
}

TEST_CASE("a peer without a sandbox id: null labels, outside and in the signed copy") {
  forgery_report::Reporter r("/s", 1000, 2);
  std::vector<forgery_report::Due> due;
  peer_attestation::Peer p = PeerIn("/user.slice", 1);
  p.sandbox_id.clear();
  r.Seen(p, "x", "", 0, &due);
  REQUIRE(due.size() == 1);
  CHECK_FALSE(due[0].fields.sandbox_id);
  rapidjson::Document doc;
  doc.Parse(due[0].fields.data_canonical.c_str());
  CHECK(doc["labels"]["sandbox_id"].IsNull());
}
