#include "audit_tamper.h"

#include <doctest/doctest.h>
#include <stdio.h>

#include <string>
#include <vector>

#include "audit_file.h"
#include "collector_events.h"
#include "test_util.h"

using audit_tamper::Kind;

namespace {

// A file of `n` entries, synced; the head as run would have saved it.
chain_head::ChainHead Make(const std::string& path, int n) {
  audit_file::AuditFileWriter w;
  std::string err;
  REQUIRE(w.Open(path, "key", &err));
  for (int i = 0; i < n; ++i) {
    audit_entry::AuditEntryFields f = test_util::SampleEntry(i);
    bool appended = false;
    REQUIRE(w.AppendNew(&f, nullptr, &appended, &err));
  }
  REQUIRE(w.Sync(&err));
  return w.durable_head();
}

audit_tamper::Finding CheckWith(const std::string& path, const chain_head::ChainHead* head) {
  audit_tamper::Finding f;
  std::string err;
  REQUIRE(audit_tamper::Check(path, "key", head, &f, &err) == audit_tamper::CheckResult::kDone);
  return f;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

}  // namespace

TEST_CASE("audit_tamper: an intact file, and one that grew after its head, pass") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  const chain_head::ChainHead head = Make(path, 5);
  CHECK(head.entries == 5);
  CHECK(head.content_hash.size() == 64);
  audit_tamper::Finding f = CheckWith(path, &head);
  CHECK(f.kind == Kind::kIntact);
  CHECK(f.entries == 5);
  {
    audit_file::AuditFileWriter w;
    std::string err;
    REQUIRE(w.Open(path, "key", head.size, &err));
    CHECK(w.durable_head().entries == 5);
    audit_entry::AuditEntryFields e = test_util::SampleEntry(9);
    bool appended = false;
    REQUIRE(w.AppendNew(&e, nullptr, &appended, &err));
    REQUIRE(w.Sync(&err));
    CHECK(w.durable_head().entries == 6);
  }
  f = CheckWith(path, &head);
  CHECK(f.kind == Kind::kIntact);
  CHECK(f.entries == 6);
}

TEST_CASE("audit_tamper: every tamper is found, with its first bad position") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  const chain_head::ChainHead head = Make(path, 5);
  const std::string text = test_util::ReadFile(path);
  const std::vector<std::string> lines = test_util::Lines(text);
  REQUIRE(lines.size() == 5);

  SUBCASE("the last entries deleted") {
    test_util::WriteFile(path, Join({lines[0], lines[1], lines[2]}));
    const audit_tamper::Finding f = CheckWith(path, &head);
    CHECK(f.kind == Kind::kTailCut);
    CHECK(f.line == 4);
    CHECK(f.offset == Join({lines[0], lines[1], lines[2]}).size());
  }
  SUBCASE("emptied") {
    test_util::WriteFile(path, "");
    CHECK(CheckWith(path, &head).kind == Kind::kEmptied);
  }
  SUBCASE("an entry deleted in the middle") {
    test_util::WriteFile(path, Join({lines[0], lines[1], lines[3], lines[4]}));
    const audit_tamper::Finding f = CheckWith(path, &head);
    CHECK(f.kind == Kind::kBroken);
    CHECK(f.line == 3);
  }
  SUBCASE("two entries swapped") {
    test_util::WriteFile(path, Join({lines[0], lines[2], lines[1], lines[3], lines[4]}));
    const audit_tamper::Finding f = CheckWith(path, &head);
    CHECK(f.kind == Kind::kBroken);
    CHECK(f.line == 2);
  }
  SUBCASE("an entry edited") {
    std::string edited = lines[3];
    edited.replace(edited.find("\"i\": 3"), 6, "\"i\": 7");
    test_util::WriteFile(path, Join({lines[0], lines[1], lines[2], edited, lines[4]}));
    const audit_tamper::Finding f = CheckWith(path, &head);
    CHECK(f.kind == Kind::kBroken);
    CHECK(f.line == 4);
  }
  SUBCASE("the last durable entry cut in half: kept, reported as a cut tail") {
    const std::string cut = text.substr(0, text.size() - lines[4].size() / 2 - 1);
    test_util::WriteFile(path, cut);
    const audit_tamper::Finding f = CheckWith(path, &head);
    CHECK(f.kind == Kind::kTailCut);
    CHECK(f.line == 5);
    CHECK(f.torn_bytes > 0);
    audit_file::AuditFileWriter w;
    std::string err;
    CHECK_FALSE(w.Open(path, "key", head.size, &err));
    CHECK(err.find("kept, not cut") != std::string::npos);
    CHECK(test_util::ReadFile(path) == cut);
  }
  SUBCASE("a torn line past the head is a crash's, not a tamper") {
    test_util::WriteFile(path, text + "{\"entry_id\": \"audit_");
    const audit_tamper::Finding f = CheckWith(path, &head);
    CHECK(f.kind == Kind::kIntact);
    CHECK(f.torn_bytes > 0);
    // Without a head nothing proves it: it is not cut silently.
    CHECK(CheckWith(path, nullptr).kind == Kind::kTornUnproven);
    audit_file::AuditFileWriter w;
    std::string err;
    REQUIRE(w.Open(path, "key", head.size, &err));
    CHECK(w.recovery_notice().find("read again") != std::string::npos);
    CHECK(test_util::ReadFile(path) == text);
  }
  SUBCASE("another file put in its place") {
    test_util::WriteFile(dir / "copy", text);
    REQUIRE(rename((dir / "copy").c_str(), path.c_str()) == 0);
    CHECK(CheckWith(path, &head).kind == Kind::kReplaced);
  }
  SUBCASE("the file removed") {
    REQUIRE(remove(path.c_str()) == 0);
    CHECK(CheckWith(path, &head).kind == Kind::kMissing);
    CHECK(CheckWith(path, nullptr).kind == Kind::kIntact);
  }
}

TEST_CASE("collector_events: a suppression and a tamper entry sign and verify") {
  test_util::TempDir dir;
  const std::string path = dir / "audit.jsonl";
  audit_file::AuditFileWriter w;
  std::string err;
  REQUIRE(w.Open(path, "key", &err));
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = "sb-1";
  labels.agent_did = "did:agt:sandbox:sb-1";
  audit_entry::AuditEntryFields f;
  collector_events::MapSuppression({"/x/sb-1/denied.log", "a FIFO in place of the log", ""}, labels,
                                   &f);
  bool appended = false;
  REQUIRE(w.AppendNew(&f, nullptr, &appended, &err));
  CHECK(f.event_type == "denied_log_suppressed");
  CHECK(f.data_canonical.find("\"found\": \"a FIFO in place of the log\"") != std::string::npos);
  audit_tamper::Finding finding;
  finding.kind = Kind::kTailCut;
  finding.line = 4;
  collector_events::MapTampered(path, finding, nullptr, path + ".tampered-x", &f);
  REQUIRE(w.AppendNew(&f, nullptr, &appended, &err));
  REQUIRE(w.Sync(&err));
  CHECK(f.data_canonical.find("\"finding\": \"tail_cut\"") != std::string::npos);
  const chain_head::ChainHead head = w.durable_head();
  CHECK(CheckWith(path, &head).kind == Kind::kIntact);
  CHECK(CheckWith(path, &head).entries == 2);
}
