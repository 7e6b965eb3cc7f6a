// The whole core chain, line to verified entry: every prefix of a good log,
// and random mutations of good lines.
#include "pipeline.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "audit_verifier.h"
#include "config.h"
#include "test_util.h"

namespace {

const std::vector<std::string> kGoodLines = {
    R"({"argc":3,"argv":["-sSL","https://example.com/x"],"argv0":"curl","binary":"curl","confined":true,)"
    R"("event":"command_denied","gid":65534,"host":"sb-1","issue":2662,"path":"/usr/bin/curl","pid":7,)"
    R"("ppid":1,"redactions":0,"timestamp":"2026-06-14T10:00:00Z","timestamp_ns":1781431200123456789,)"
    R"("truncated":false,"uid":65534,"version":"0.1.0"})",
    R"({"argv":["clone","x"],"binary":"git","event":"command_denied","issue":2662,"timestamp":"2026-06-14T10:00:00Z"})",
    "{\"argc\":4,\"argv\":[\"caf\xc3\xa9\",\"\\u0001\\\"\\\\\",\"\xf0\x9f\x98\x80\"],\"binary\":"
    "\"ssh\","
    "\"event\":\"command_denied\",\"issue\":2662,\"redactions\":1,\"timestamp\":\"2026-12-31T23:59:"
    "59Z\","
    "\"truncated\":true}",
};

struct Chain {
  chain_signer::ChainSigner signer;
  chain_signer::Hasher verifier;
  std::string previous;
  uint64_t entries = 0;
  Chain() {
    std::string err;
    REQUIRE(signer.Init("pipeline test key", &err));
    REQUIRE(verifier.Init("pipeline test key", &err));
  }
  // Signs as the collector does (entry id derived) and independently
  // verifies one entry, its id included.
  void Add(audit_entry::AuditEntryFields* f) {
    std::string out, err, reason;
    out.resize(signer.MaxLineBytes(*f));
    size_t written = 0;
    REQUIRE(signer.SignNewInto(f, nullptr, &out[0], &written, &err) ==
            chain_signer::ChainSigner::Outcome::kSigned);
    out.resize(written);
    REQUIRE(out.back() == '\n');
    out.pop_back();
    audit_verifier::LineFacts facts;
    CAPTURE(out);
    REQUIRE(audit_verifier::VerifyLine(out, &previous, &verifier, &facts, &reason));
    CHECK(f->entry_id == test_util::DocumentedEntryId(*f, previous, &verifier));
    CHECK(out.find("\"entry_id\": \"" + f->entry_id + "\"") != std::string::npos);
    previous = facts.content_hash;
    ++entries;
  }
};

entry_mapper::SourceLabels Labels() {
  entry_mapper::SourceLabels l;
  l.sandbox_id = "sb-1";
  l.agent_did = entry_mapper::DefaultAgentDid("sb-1");
  return l;
}

}  // namespace

TEST_CASE("every prefix of a good log: whole lines become entries, the rest stays pending") {
  std::string log;
  for (const auto& line : kGoodLines) log += line + "\n";
  test_util::TempDir dir;
  const std::string path = dir / "denied.log";
  const record_validator::Limits limits;
  for (size_t len = 0; len <= log.size(); ++len) {
    test_util::WriteFile(path, log.substr(0, len));
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    line_reader::Reader reader(4096, limits.max_line_bytes);
    line_reader::Position pos;
    record_validator::ValidRecord rec;
    audit_entry::AuditEntryFields fields;
    Chain chain;
    std::string err, reason;
    const auto r = reader.Read(
        fd, &pos,
        [&](const line_reader::Item& item) {
          REQUIRE(item.kind == line_reader::Item::Kind::kLine);
          CAPTURE(len);
          REQUIRE(record_validator::ValidateRecord(item.line, limits, &rec, &reason));
          entry_mapper::MapRecord(rec, Labels(), {path, 1, 2, item.offset, {}}, &fields);
          chain.Add(&fields);
          return true;
        },
        &err);
    REQUIRE(r == line_reader::ReadResult::kEndOfData);
    const uint64_t pending = line_reader::Reader::PendingBytes(fd, pos);
    close(fd);
    const std::string prefix = log.substr(0, len);
    const size_t complete = static_cast<size_t>(std::count(prefix.begin(), prefix.end(), '\n'));
    CHECK(chain.entries == complete);
    const size_t last_nl = prefix.rfind('\n');
    CHECK(pending == (last_nl == std::string::npos ? len : len - last_nl - 1));
    // The pending bytes are a valid record only when they are a whole line
    // whose newline has not arrived yet.
    if (pending > 0) {
      const std::string_view tail = std::string_view(prefix).substr(len - pending);
      const bool whole = std::find(kGoodLines.begin(), kGoodLines.end(), tail) != kGoodLines.end();
      CHECK(record_validator::ValidateRecord(tail, limits, &rec, &reason) == whole);
    }
  }
}

TEST_CASE("random mutations never crash and never yield an entry that fails verification") {
  std::mt19937_64 rng(test_util::TestSeed(2662));
  const record_validator::Limits limits;
  record_validator::ValidRecord rec;
  audit_entry::AuditEntryFields fields;
  Chain chain;
  std::string reason;
  const std::string interesting = "{}[]\",:\\0123456789eE.-+ntfu\x80\xbf\xc3\xed\xf0\xf4\xff\n\r\t";
  uint64_t accepted = 0, rejected = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string line = kGoodLines[rng() % kGoodLines.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !line.empty(); ++e) {
      const size_t at = rng() % line.size();
      const char c =
          (rng() % 2) ? interesting[rng() % interesting.size()] : static_cast<char>(rng());
      switch (rng() % 5) {
        case 0: line[at] = c; break;
        case 1: line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        case 2: line.erase(at, 1 + rng() % 8); break;
        case 3: line.insert(at, line.substr(rng() % line.size(), rng() % 16)); break;
        case 4: line.resize(at); break;
      }
    }
    if (!record_validator::ValidateRecord(line, limits, &rec, &reason)) {
      CHECK_FALSE(reason.empty());
      ++rejected;
      continue;
    }
    ++accepted;
    entry_mapper::MapRecord(rec, Labels(), {"/l", 1, 2, static_cast<uint64_t>(round), {}}, &fields);
    CHECK(record_validator::IsPlausibleCommandName(fields.resource));
    chain.Add(&fields);
  }
  CHECK(accepted > 100);  // the mutations keep some records valid
  CHECK(rejected > 10000);
}

TEST_CASE("one rule for a source's labels, whatever the intake") {
  config::Config cfg;
  std::vector<std::string> warnings;
  std::string err;
  REQUIRE(config::ParseConfig(
      R"({"sources": [{"pattern": "/l/{sandbox_id}/denied.log", "environment": "prod"}]})",
      "c.json", &cfg, &warnings, &err));
  entry_mapper::SourceLabels labels;
  // Named by the configuration: its labels.
  REQUIRE(pipeline::LabelsFor(&cfg, "/l/sb-1/denied.log", "", &labels, &err));
  CHECK(labels.sandbox_id == "sb-1");
  CHECK(labels.environment == "prod");
  // The sandbox id the intake knows wins over the configured one.
  REQUIRE(pipeline::LabelsFor(&cfg, "/l/sb-1/denied.log", "sb-2", &labels, &err));
  CHECK(labels.sandbox_id == "sb-2");
  CHECK(labels.environment == "prod");
  // Not named, but the intake knows the sandbox: its defaults.
  REQUIRE(pipeline::LabelsFor(&cfg, "/elsewhere/denied.log", "sb-3", &labels, &err));
  CHECK(labels.sandbox_id == "sb-3");
  CHECK(labels.agent_did == entry_mapper::DefaultAgentDid("sb-3"));
  CHECK_FALSE(labels.environment.has_value());
  REQUIRE(pipeline::LabelsFor(nullptr, "/any", "sb-4", &labels, &err));
  CHECK(labels.sandbox_id == "sb-4");
  // Neither: refused, naming the path and the configuration.
  CHECK_FALSE(pipeline::LabelsFor(&cfg, "/elsewhere/denied.log", "", &labels, &err));
  CHECK(err == "/elsewhere/denied.log: matches no source or watch pattern in c.json");
  CHECK_FALSE(pipeline::LabelsFor(nullptr, "/any", "", &labels, &err));
}

TEST_CASE("Ingest: a line is validated, mapped and appended once; replays and junk are not") {
  test_util::TempDir dir;
  const std::string out_path = dir / "audit.jsonl";
  const std::string key(32, 'k');
  audit_file::AuditFileWriter out;
  std::string err;
  REQUIRE(out.Open(out_path, key, &err));
  entry_id_set::EntryIdSet written;
  const record_validator::Limits limits;
  const entry_mapper::SourceLabels labels = Labels();
  pipeline::Origin origin{"/l/sb-1/denied.log", {7, 9}, 0, &labels, {}};
  {
    pipeline::Ingest validate_only(limits, nullptr, nullptr);
    CHECK(validate_only.Line(kGoodLines[0], origin, &err) == pipeline::Outcome::kValid);
  }
  pipeline::Ingest ingest(limits, &out, &written);
  REQUIRE(ingest.Line(kGoodLines[0], origin, &err) == pipeline::Outcome::kAppended);
  CHECK(ingest.entry().resource == "curl");
  const std::string first_id = ingest.entry().entry_id;
  CHECK(ingest.Line("{\"not\": \"a record\"}", origin, &err) == pipeline::Outcome::kRejected);
  CHECK_FALSE(err.empty());
  origin.offset = 100;
  REQUIRE(ingest.Line(kGoodLines[1], origin, &err) == pipeline::Outcome::kAppended);
  REQUIRE(out.Sync(&err));
  // A replay of the first line from the same origin: its entry id is known.
  written.Insert(first_id);
  origin.offset = 0;
  CHECK(ingest.Line(kGoodLines[0], origin, &err) == pipeline::Outcome::kAlreadyPresent);
  audit_verifier::VerifyReport report;
  REQUIRE(audit_verifier::VerifyAuditFile(out_path, key, &report, &err) ==
          audit_verifier::VerifyResult::kValid);
  CHECK(report.entries == 2);
}
