// libFuzzer harness: record_validator::ValidateRecord on one hostile line.
// Properties: a rejected line has a one-line printable reason; an accepted
// line's members are canonical (the object they form validates again to the
// same text and facts), and it maps, signs and verifies as an audit entry,
// so the writer and the verifier agree on every record the validator lets in.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "audit_verifier.h"
#include "chain_signer.h"
#include "entry_mapper.h"
#include "fuzz_check.h"
#include "record_validator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static record_validator::ValidRecord record;
  static record_validator::ValidRecord again;
  static chain_signer::ChainSigner signer;
  static chain_signer::Hasher verify_hasher;
  static bool keyed = [] {
    std::string err;
    return signer.Init("fuzz-key", &err) && verify_hasher.Init("fuzz-key", &err);
  }();
  FUZZ_CHECK(keyed);

  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const record_validator::Limits limits;
  std::string reason;
  if (!record_validator::ValidateRecord(line, limits, &record, &reason)) {
    FUZZ_CHECK(IsOnePrintableLine(reason));
    return 0;
  }

  // The canonical members, as an object, are a record too: the same one.
  const std::string object = "{" + record.canonical.substr(0, record.canonical_bytes) + "}";
  record_validator::Limits roomy = limits;
  roomy.max_line_bytes = object.size() + 1;  // escaping may have grown it
  FUZZ_CHECK(record_validator::ValidateRecord(object, roomy, &again, &reason));
  FUZZ_CHECK(again.present_mask == record.present_mask);
  for (int k = 0; k < record_validator::kRecordKeyCount; ++k) {
    if (record.present(k)) FUZZ_CHECK(again.value(k) == record.value(k));
  }
  FUZZ_CHECK(again.binary == record.binary);
  FUZZ_CHECK(again.timestamp == record.timestamp);
  FUZZ_CHECK(record.binary == "unknown" || record_validator::IsPlausibleCommandName(record.binary));

  // Writer and verifier agree.
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = "sb-fuzz";
  labels.agent_did = entry_mapper::DefaultAgentDid("sb-fuzz");
  entry_mapper::SourceRef source;
  source.file = "/var/log/agt/sandboxes/sb-fuzz/denied.log";
  source.offset = size;
  audit_entry::AuditEntryFields fields;
  entry_mapper::MapRecord(record, labels, source, &fields);
  const std::string previous = signer.previous_hash();
  std::string out(signer.MaxLineBytes(fields), '\0');
  size_t written = 0;
  std::string err;
  FUZZ_CHECK(signer.SignNewInto(&fields, nullptr, out.data(), &written, &err) ==
             chain_signer::ChainSigner::Outcome::kSigned);
  FUZZ_CHECK(written > 1 && out[written - 1] == '\n');
  audit_verifier::LineFacts facts;
  const std::string_view entry(out.data(), written - 1);
  FUZZ_CHECK(audit_verifier::VerifyLine(entry, &previous, &verify_hasher, &facts, &reason));
  FUZZ_CHECK(facts.entry_id == fields.entry_id);
  FUZZ_CHECK(facts.previous_hash == previous);
  FUZZ_CHECK(facts.content_hash == signer.previous_hash());
  return 0;
}
