#include "chain_signer.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include "canonical_json.h"
#include "test_util.h"

namespace {

// Fills fields from one object of vectors/input.jsonl.
audit_entry::AuditEntryFields FieldsFromInput(const std::string& line) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  REQUIRE(doc.IsObject());
  audit_entry::AuditEntryFields f;
  const auto str = [&](const char* k) { return std::string(doc[k].GetString()); };
  const auto opt = [&](const char* k) -> audit_entry::NullableString {
    if (doc[k].IsNull()) return std::nullopt;
    return std::string(doc[k].GetString());
  };
  f.entry_id = str("entry_id");
  f.timestamp = str("timestamp");
  f.event_type = str("event_type");
  f.agent_did = opt("agent_did");
  f.action = str("action");
  f.resource = str("resource");
  f.target_did = opt("target_did");
  f.outcome = str("outcome");
  f.policy_decision = str("policy_decision");
  f.matched_rule = str("matched_rule");
  f.trace_id = opt("trace_id");
  f.session_id = opt("session_id");
  f.sandbox_id = opt("sandbox_id");
  f.environment = opt("environment");
  f.compute_driver = opt("compute_driver");
  f.data_canonical.clear();
  std::string err;
  REQUIRE(canonical_json::AppendValue(doc["data"], &f.data_canonical, &err));
  return f;
}

}  // namespace

TEST_CASE("the writer reproduces upstream's expected.jsonl byte for byte") {
  const std::string dir = test_util::VectorsDir();
  const auto inputs = test_util::Lines(test_util::ReadFile(dir + "/input.jsonl"));
  const std::string expected = test_util::ReadFile(dir + "/expected.jsonl");
  const std::string key = test_util::ReadFile(dir + "/key.bin");
  REQUIRE(inputs.size() == 6);
  REQUIRE(key.size() == 26);

  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init(key, &err));
  std::string out;
  for (const std::string& line : inputs)
    REQUIRE(signer.SignAppend(FieldsFromInput(line), &out, &err));
  CHECK(out == expected);
}

TEST_CASE("a different key changes every signature but no content hash") {
  const std::string dir = test_util::VectorsDir();
  const auto inputs = test_util::Lines(test_util::ReadFile(dir + "/input.jsonl"));
  const auto expected = test_util::Lines(test_util::ReadFile(dir + "/expected.jsonl"));
  chain_signer::ChainSigner signer;
  std::string err, out;
  REQUIRE(signer.Init("another key", &err));
  for (const std::string& line : inputs)
    REQUIRE(signer.SignAppend(FieldsFromInput(line), &out, &err));
  const auto got = test_util::Lines(out);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const auto field = [](const std::string& l, const char* k) {
      rapidjson::Document d;
      d.Parse(l.data(), l.size());
      return std::string(d[k].GetString());
    };
    CHECK(field(got[i], "content_hash") == field(expected[i], "content_hash"));
    CHECK(field(got[i], "signature") != field(expected[i], "signature"));
  }
}

TEST_CASE("the chain continues from a given previous hash") {
  const std::string dir = test_util::VectorsDir();
  const auto inputs = test_util::Lines(test_util::ReadFile(dir + "/input.jsonl"));
  const auto expected = test_util::Lines(test_util::ReadFile(dir + "/expected.jsonl"));
  const std::string key = test_util::ReadFile(dir + "/key.bin");
  chain_signer::ChainSigner signer;
  std::string err, out;
  REQUIRE(signer.Init(key, &err));
  // Resume after entry 3 as a restarted writer would.
  rapidjson::Document d;
  d.Parse(expected[2].data(), expected[2].size());
  signer.SetPreviousHash(d["content_hash"].GetString());
  for (size_t i = 3; i < inputs.size(); ++i)
    REQUIRE(signer.SignAppend(FieldsFromInput(inputs[i]), &out, &err));
  CHECK(out == expected[3] + "\n" + expected[4] + "\n" + expected[5] + "\n");
}

TEST_CASE("an empty key is refused") {
  chain_signer::ChainSigner signer;
  std::string err;
  CHECK_FALSE(signer.Init("", &err));
  CHECK(err.find("empty") != std::string::npos);
}

TEST_CASE("Hasher: known SHA-256 and HMAC-SHA256 values (RFC 4231 case 2)") {
  chain_signer::Hasher h;
  std::string err, hex;
  REQUIRE(h.Init("Jefe", &err));
  REQUIRE(h.Sha256Hex("abc", &hex, &err));
  CHECK(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  REQUIRE(h.HmacHex("what do ya want for nothing?", &hex, &err));
  CHECK(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Reuse gives the same answer (the context is re-initialised per call).
  REQUIRE(h.HmacHex("what do ya want for nothing?", &hex, &err));
  CHECK(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("a line of strings escaped at their worst fits MaxLineBytes and reads back") {
  // Control bytes take 6 output bytes each: the bound's worst case.
  const std::string controls(300, '\x01');
  audit_entry::AuditEntryFields f;
  f.entry_id = f.timestamp = f.event_type = f.action = f.resource = controls;
  f.outcome = f.policy_decision = f.matched_rule = controls;
  f.agent_did = f.target_did = f.trace_id = f.session_id = controls;
  f.sandbox_id = f.environment = f.compute_driver = controls;
  f.data_canonical = "{\"k\": \"" + std::string(100, 'v') + "\"}";
  chain_signer::ChainSigner signer;
  std::string err, out;
  REQUIRE(signer.Init("k", &err));
  signer.SetPreviousHash(std::string(64, 'a'));
  const size_t bound = signer.MaxLineBytes(f);
  REQUIRE(signer.SignAppend(f, &out, &err));
  CHECK(out.size() <= bound);
  CHECK(out.size() > 15 * 6 * controls.size());
  rapidjson::Document d;
  d.Parse(out.data(), out.size() - 1);
  REQUIRE(d.IsObject());
  CHECK(d.MemberCount() == 19);
  CHECK(std::string(d["compute_driver"].GetString()) == controls);
  CHECK(std::string(d["previous_hash"].GetString()) == std::string(64, 'a'));
  CHECK(signer.previous_hash() == d["content_hash"].GetString());
  // Not UTF-8: refused, nothing appended, the chain stays where it was.
  f.resource = "\xff";
  const std::string before = out;
  CHECK_FALSE(signer.SignAppend(f, &out, &err));
  CHECK(out == before);
  CHECK(signer.previous_hash() == d["content_hash"].GetString());
}

namespace {

// A collector entry as entry_mapper fills it: entry_id left to the signer.
audit_entry::AuditEntryFields NewEntry(uint64_t offset) {
  audit_entry::AuditEntryFields f;
  f.timestamp = "2026-06-14T10:00:00+00:00";
  f.event_type = "command_denied";
  f.agent_did = "did:agt:sandbox:sb-1";
  f.action = "exec";
  f.resource = "curl";
  f.outcome = "denied";
  f.policy_decision = "deny";
  f.matched_rule = "command_denylist";
  f.sandbox_id = "sb-1";
  f.data_canonical = R"({"argv": ["-sSL"], "binary": "curl", "event": "command_denied", )"
                     R"("issue": 2662, "source": {"device": 2049, "file": "/l/sb-1/denied.log", )"
                     R"("inode": 1234, "offset": )" +
                     std::to_string(offset) + R"(}, "timestamp": "2026-06-14T10:00:00Z"})";
  return f;
}

// SignNewInto into a string; "" when the id was already written.
std::string SignNew(chain_signer::ChainSigner* signer, audit_entry::AuditEntryFields* f,
                    entry_id_set::EntryIdSet* already_written = nullptr) {
  std::string out(signer->MaxLineBytes(*f), '\0'), err;
  size_t written = 0;
  const auto outcome = signer->SignNewInto(f, already_written, &out[0], &written, &err);
  REQUIRE(outcome != chain_signer::ChainSigner::Outcome::kFailed);
  out.resize(written);
  return out;
}

}  // namespace

TEST_CASE("derived entry ids: the SHA-256 of the payload up to the end of data, pinned") {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init("k", &err));
  audit_entry::AuditEntryFields f = NewEntry(422);
  const std::string line = SignNew(&signer, &f);
  // The documented text, written out by hand (agt-audit-jsonl(5), ENTRY IDS).
  const std::string prefix =
      R"({"action": "exec", "agent_did": "did:agt:sandbox:sb-1", "data": )" + f.data_canonical;
  chain_signer::Hasher h;
  std::string hex;
  REQUIRE(h.Init("unused", &err));
  REQUIRE(h.Sha256Hex(prefix, &hex, &err));
  CHECK(f.entry_id == "audit_" + hex.substr(0, 16));
  CHECK(f.entry_id == test_util::DocumentedEntryId(f, "", &h));
  // Pinned: changing the derivation breaks exactly-once across an upgrade.
  CHECK(f.entry_id == "audit_fce8cd252b9d3f0e");
  CHECK(line.find("\"entry_id\": \"" + f.entry_id + "\"") != std::string::npos);
  rapidjson::Document d;
  d.Parse(line.data(), line.size() - 1);
  REQUIRE(d.IsObject());
  CHECK(std::string(d["entry_id"].GetString()) == f.entry_id);
}

TEST_CASE("derived entry ids: the same line read again gets the same id, another line not") {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init("k", &err));
  audit_entry::AuditEntryFields a = NewEntry(10), again = NewEntry(10);
  SignNew(&signer, &a);
  // A replay after a crash lands at another chain position: same id.
  SignNew(&signer, &again);
  CHECK(again.entry_id == a.entry_id);
  const auto id_of = [&](audit_entry::AuditEntryFields f) {
    SignNew(&signer, &f);
    return f.entry_id;
  };
  CHECK(id_of(NewEntry(11)) != a.entry_id);  // another offset
  audit_entry::AuditEntryFields other_file = NewEntry(10);
  other_file.data_canonical.replace(other_file.data_canonical.find("2049"), 4, "2050");
  CHECK(id_of(other_file) != a.entry_id);  // another device
  audit_entry::AuditEntryFields other_record = NewEntry(10);
  other_record.data_canonical.replace(other_record.data_canonical.find("-sSL"), 4, "-sSk");
  CHECK(id_of(other_record) != a.entry_id);  // another record at the same place
  audit_entry::AuditEntryFields other_agent = NewEntry(10);
  other_agent.agent_did = "did:agt:sandbox:sb-2";
  CHECK(id_of(other_agent) != a.entry_id);
  // Members after "data" do not enter the id.
  audit_entry::AuditEntryFields later_members = NewEntry(10);
  later_members.timestamp = "2026-06-14T10:00:01+00:00";
  later_members.sandbox_id = "x";
  CHECK(id_of(later_members) == a.entry_id);
}

TEST_CASE("an entry whose id was already written is skipped and the chain stays put") {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init("k", &err));
  audit_entry::AuditEntryFields first = NewEntry(0);
  SignNew(&signer, &first);
  const std::string chain_before = signer.previous_hash();
  entry_id_set::EntryIdSet already_written;
  already_written.Insert(first.entry_id);
  already_written.Insert("audit_0000000000000000");
  audit_entry::AuditEntryFields replay = NewEntry(0);
  CHECK(SignNew(&signer, &replay, &already_written).empty());
  CHECK(replay.entry_id == first.entry_id);
  CHECK(signer.previous_hash() == chain_before);
  CHECK_FALSE(already_written.Contains(first.entry_id));  // each id skips one entry only
  CHECK(already_written.size() == 1);
  audit_entry::AuditEntryFields next = NewEntry(200);
  const std::string line = SignNew(&signer, &next, &already_written);
  CHECK_FALSE(line.empty());
  CHECK(signer.previous_hash() != chain_before);
  CHECK(line.find("\"previous_hash\": \"" + chain_before + "\"") != std::string::npos);
}
