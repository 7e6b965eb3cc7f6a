#include "audit_verifier.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

// Good lines (no '\n'), each signed after the last with `key` (the data as
// the mapper gives it: canonical already): entries
// whose data holds every kind of value, escapes and non-ASCII text, with
// and without the signed labels.
std::vector<std::string> SignedLines(const std::string& key) {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init(key, &err));
  const char* const data[] = {
      "{}",
      "{\"i\": 1}",
      "{\"argv\": [\"caf\\u00e9\", \"\\ud83d\\ude00\", \"a\\\"b\\\\c\\n\\t\\u0001\", \"\"], "
      "\"big\": 18446744073709551615, \"f\": false, \"n\": -12, \"t\": true, \"z\": null}",
      "{\"labels\": {\"compute_driver\": null, \"environment\": \"prod\", \"sandbox_id\": "
      "\"sb\"}, \"nested\": [[{\"a\": [{}]}], {\"\": 0, \"\\u00e9\": \"x\"}]}",
  };
  std::vector<std::string> lines;
  int i = 0;
  for (const char* d : data) {
    audit_entry::AuditEntryFields f = test_util::SampleEntry(i++);
    f.data_canonical = d;
    if (f.data_canonical.find("labels") != std::string::npos) f.environment = "prod";
    f.trace_id = "tr\\ace \"\xc3\xa9\"";
    std::string line;
    REQUIRE(signer.SignAppend(f, &line, &err));
    line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

struct Verdict {
  bool ok;
  std::string reason, entry_id, content_hash, previous_hash;
  bool operator==(const Verdict& o) const {
    return ok == o.ok && reason == o.reason && entry_id == o.entry_id &&
           content_hash == o.content_hash && previous_hash == o.previous_hash;
  }
};

Verdict Run(audit_verifier::LineChecker* checker, const std::string& line,
            const std::string* previous, chain_signer::Hasher* hasher) {
  Verdict v;
  audit_verifier::LineFacts facts;
  v.ok = checker->Check(line, previous, hasher, &facts, &v.reason);
  if (v.ok) {
    v.entry_id = facts.entry_id;
    v.content_hash = facts.content_hash;
    v.previous_hash = facts.previous_hash;
  }
  return v;
}

// One edit of a good line: the kinds of change that keep it JSON but not
// canonical (or not valid, or not signed) as well as plain damage.
std::string Mutate(std::string line, std::mt19937_64* rng) {
  const auto pick = [&](size_t n) { return static_cast<size_t>((*rng)() % n); };
  const auto replace_one = [&](const std::string& from, const std::string& to) {
    std::vector<size_t> at;
    for (size_t p = line.find(from); p != std::string::npos; p = line.find(from, p + 1))
      at.push_back(p);
    if (!at.empty()) line.replace(at[pick(at.size())], from.size(), to);
  };
  const char* const bytes[] = {" ", ",", "\"", "\\", "\x7f", "\xc3", "0", "-", ".", "}", "\t"};
  switch (pick(12)) {
    case 0: line[pick(line.size())] ^= static_cast<char>(1u << pick(8)); break;
    case 1: line.erase(pick(line.size()), 1); break;
    case 2: line.insert(pick(line.size() + 1), bytes[pick(sizeof bytes / sizeof bytes[0])]); break;
    case 3: replace_one(", ", ","); break;
    case 4: replace_one(": ", ":"); break;
    case 5: replace_one("\\u00e9", pick(2) ? "\\u00E9" : "\xc3\xa9"); break;
    case 6: replace_one("x", "\\u0078"); break;
    case 7: replace_one("\\n", "\\u000a"); break;
    case 8: replace_one("1", pick(2) ? "1.0" : "1e0"); break;
    case 9: replace_one(": 0", ": -0"); break;
    case 10: {  // two keys the other way round
      replace_one("\"action\": \"exec\", \"agent_did\"", "\"agent_did\"");
      replace_one(", \"compute_driver\"", ", \"action\": \"exec\", \"compute_driver\"");
      break;
    }
    default: {  // a member twice
      const std::string member = pick(2) ? ", \"outcome\": \"denied\"" : ", \"i\": 1";
      if (line.find(member) != std::string::npos) replace_one(member, member + member);
      break;
    }
  }
  return line;
}

}  // namespace

TEST_CASE("verify: the lines this project and upstream write are taken as canonical") {
  chain_signer::Hasher hasher;
  std::string err;
  REQUIRE(hasher.Init("key", &err));
  audit_verifier::LineChecker checker;
  std::string previous;
  for (const std::string& line : SignedLines("key")) {
    CAPTURE(line);
    const Verdict v = Run(&checker, line, &previous, &hasher);
    CHECK(v.ok);
    CHECK(checker.last_canonical());
    previous = v.content_hash;
  }
  // Upstream's golden vectors, as its FileAuditSink wrote them.
  chain_signer::Hasher upstream;
  REQUIRE(upstream.Init(test_util::ReadFile(test_util::VectorsDir() + "/key.bin"), &err));
  previous.clear();
  for (const std::string& line :
       test_util::Lines(test_util::ReadFile(test_util::VectorsDir() + "/expected.jsonl"))) {
    CAPTURE(line);
    const Verdict v = Run(&checker, line, &previous, &upstream);
    CHECK(v.ok);
    CHECK(checker.last_canonical());
    previous = v.content_hash;
  }
  // JSON that is valid but written another way verifies the general way.
  const std::string line = SignedLines("key")[1];
  for (const std::string& other : {" " + line, line + " ", "{ " + line.substr(1)}) {
    CAPTURE(other);
    CHECK(Run(&checker, other, nullptr, &hasher).ok);
    CHECK_FALSE(checker.last_canonical());
  }
}

TEST_CASE("verify: canonical lines and the general way give the same verdict on any edit") {
  chain_signer::Hasher hasher;
  std::string err;
  REQUIRE(hasher.Init("key", &err));
  audit_verifier::LineChecker fast;
  audit_verifier::LineChecker general(false);
  std::vector<std::string> lines = SignedLines("key");
  for (const std::string& line :
       test_util::Lines(test_util::ReadFile(test_util::VectorsDir() + "/expected.jsonl"))) {
    lines.push_back(line);  // signed with another key: the signature fails, the rest is checked
  }
  std::mt19937_64 rng(test_util::TestSeed(17));
  int taken = 0, valid = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string line = lines[rng() % lines.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) line = Mutate(line, &rng);
    const std::string previous(64, 'a');
    for (const std::string* expected : {static_cast<const std::string*>(nullptr), &previous}) {
      const Verdict a = Run(&fast, line, expected, &hasher);
      const Verdict b = Run(&general, line, expected, &hasher);
      CHECK_MESSAGE(a == b, line, "\n fast: ", a.reason, "\n general: ", b.reason);
      taken += fast.last_canonical();
      valid += a.ok;
    }
  }
  // Both sides came up: edits that keep the line canonical and verifying
  // (a key order kept, a value's bytes the same), and the rest.
  MESSAGE(taken, " checks taken as canonical, ", valid, " valid");
  CHECK(taken > 1000);
  CHECK(valid > 100);
}

namespace {

// `n` chained entries, each line with its '\n'.
std::vector<std::string> ChainedLines(int n, const std::string& key) {
  chain_signer::ChainSigner signer;
  std::string err;
  REQUIRE(signer.Init(key, &err));
  std::vector<std::string> lines;
  for (int i = 0; i < n; ++i) {
    std::string line;
    REQUIRE(signer.SignAppend(test_util::SampleEntry(i), &line, &err));
    lines.push_back(line);
  }
  return lines;
}

audit_verifier::VerifyResult VerifyRebuilt(const std::string& text,
                                           audit_verifier::VerifyReport* report,
                                           bool drop_duplicates = true) {
  test_util::TempDir dir;
  test_util::WriteFile(dir / "audit.jsonl", text);
  std::string err;
  return audit_verifier::VerifyAuditFile(dir / "audit.jsonl", "key", report, &err, drop_duplicates);
}

}  // namespace

TEST_CASE(
    "verify --drop-duplicates: a receiver's torn write is dropped once its entry comes whole") {
  const std::vector<std::string> l = ChainedLines(6, "key");
  // Cut short anywhere: after the opening brace, inside a string, just
  // before the newline.
  for (const size_t cut : {size_t{1}, size_t{40}, l[3].size() / 2, l[3].size() - 1}) {
    CAPTURE(cut);
    const std::string fragment = l[3].substr(0, cut);
    {  // The restarted receiver's first message is the torn entry itself.
      audit_verifier::VerifyReport report;
      CHECK(VerifyRebuilt(l[0] + l[1] + l[2] + fragment + l[3] + l[4] + l[5], &report) ==
            audit_verifier::VerifyResult::kValid);
      CHECK(report.entries == 6);
      CHECK(report.torn_writes == 1);
      CHECK(report.duplicates == 0);
    }
    {  // It is an entry sent again from further back; the torn one comes later.
      audit_verifier::VerifyReport report;
      CHECK(VerifyRebuilt(l[0] + l[1] + l[2] + fragment + l[1] + l[2] + l[3] + l[4] + l[5],
                          &report) == audit_verifier::VerifyResult::kValid);
      CHECK(report.entries == 6);
      CHECK(report.torn_writes == 1);
      CHECK(report.duplicates == 2);
    }
    {  // Without --drop-duplicates (the collector's own file) it is a break.
      audit_verifier::VerifyReport report;
      CHECK(VerifyRebuilt(l[0] + l[1] + l[2] + fragment + l[3] + l[4] + l[5], &report, false) ==
            audit_verifier::VerifyResult::kBroken);
      CHECK(report.broken_line == 4);
    }
  }
}

TEST_CASE("verify --drop-duplicates: a torn write whose entry never comes whole is a break") {
  const std::vector<std::string> l = ChainedLines(6, "key");
  const auto check_broken_at_line_3 = [](const std::string& text, const std::string& what) {
    CAPTURE(what);
    audit_verifier::VerifyReport report;
    CHECK(VerifyRebuilt(text, &report) == audit_verifier::VerifyResult::kBroken);
    CHECK(report.broken_line == 3);
    CHECK(report.broken_reason.find("a write cut short") != std::string::npos);
    CHECK(report.broken_reason.find("never arrived") != std::string::npos);
  };
  const std::string fragment_of_4 = l[4].substr(0, l[4].size() / 2);
  check_broken_at_line_3(l[0] + l[1] + fragment_of_4 + l[2] + l[3], "its entry is missing");
  check_broken_at_line_3(l[0] + l[1] + "garbage" + l[2] + l[3], "no entry's bytes");
  // The entry that comes whole differs from the cut-short bytes.
  std::string edited = l[4];
  edited.replace(edited.find("curl"), 4, "wget");
  check_broken_at_line_3(
      l[0] + l[1] + edited.substr(0, edited.find("wget") + 4) + l[2] + l[3] + l[4],
      "it differs from the entry");
  // Only what follows the fragment settles it: the entry whole before it does not.
  check_broken_at_line_3(l[0] + l[1] + l[0].substr(0, l[0].size() - 2) + l[2] + l[3],
                         "its entry came before");
  {  // The whole entry after the fragment must verify too.
    std::string bad = l[2];
    bad.replace(bad.find("curl"), 4, "wget");
    audit_verifier::VerifyReport report;
    CHECK(VerifyRebuilt(l[0] + l[1] + fragment_of_4 + bad + l[3], &report) ==
          audit_verifier::VerifyResult::kBroken);
    CHECK(report.broken_line == 3);
    CHECK(report.broken_reason.find("a write cut short") == std::string::npos);
  }
}
