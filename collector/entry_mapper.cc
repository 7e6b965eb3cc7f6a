#include "entry_mapper.h"

#include <openssl/evp.h>

#include "canonical_json.h"

namespace entry_mapper {

using record_validator::RecordKey;
using record_validator::ValidRecord;

std::string DefaultAgentDid(std::string_view sandbox_id) {
  return "did:agt:sandbox:" + std::string(sandbox_id);
}

std::string EntryId(std::string_view sandbox_id, const SourceRef& source, std::string_view line) {
  std::string input = "agt-entry-id/v1\n";
  input.append(sandbox_id);
  input += "\n" + std::to_string(source.device) + ":" + std::to_string(source.inode) + "\n" +
           std::to_string(source.offset) + "\n";
  input.append(line);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // One-shot digest: EVP_Digest cannot fail for SHA-256 short of memory
  // exhaustion, in which case the id is still well-formed (zeros).
  if (EVP_Digest(input.data(), input.size(), digest, &len, EVP_sha256(), nullptr) != 1) {
    std::fill(std::begin(digest), std::end(digest), 0);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "audit_";
  for (int i = 0; i < 8; ++i) {
    id.push_back(kHex[digest[i] >> 4]);
    id.push_back(kHex[digest[i] & 0xf]);
  }
  return id;
}

std::string EntryTimestamp(const ValidRecord& record) {
  // "YYYY-MM-DDTHH:MM:SS" from the validated shim timestamp (same second as
  // timestamp_ns, checked by the validator).
  std::string out = record.timestamp.substr(0, 19);
  if (record.has_timestamp_ns) {
    const uint64_t micros = (record.timestamp_ns % 1000000000u) / 1000u;
    if (micros != 0) {
      char buf[8];
      snprintf(buf, sizeof buf, ".%06u", static_cast<unsigned>(micros));
      out += buf;
    }
  }
  out += "+00:00";
  return out;
}

void MapRecord(const ValidRecord& record, std::string_view line, const SourceLabels& labels,
               const SourceRef& source, audit_entry::AuditEntryFields* out) {
  out->entry_id = EntryId(labels.sandbox_id, source, line);
  out->timestamp = EntryTimestamp(record);
  out->event_type = "command_denied";
  out->agent_did = labels.agent_did;
  out->action = "exec";
  out->resource = record.binary;
  out->target_did.reset();
  out->outcome = "denied";
  out->policy_decision = "deny";
  out->matched_rule = "command_denylist";
  out->trace_id.reset();
  out->session_id = labels.session_id;
  out->sandbox_id = labels.sandbox_id;
  out->environment = labels.environment;
  out->compute_driver = labels.compute_driver;

  // data: the record's members (already canonical, in sorted slots) with
  // "source" merged in at its sorted place, between "redactions" and "timestamp".
  std::string& data = out->data_canonical;
  data.clear();
  data.push_back('{');
  bool first = true;
  const auto member = [&](const char* key) {
    if (!first) data.append(", ");
    first = false;
    data.push_back('"');
    data.append(key);
    data.append("\": ");
  };
  for (int k = 0; k < record_validator::kRecordKeyCount; ++k) {
    if (k == record_validator::kTimestamp) {
      member("source");
      data.append("{\"device\": ");
      data.append(std::to_string(source.device));
      data.append(", \"file\": ");
      const size_t file_at = data.size();
      if (!canonical_json::AppendString(source.file, &data)) {
        // A path that is not UTF-8 cannot be JSON text; keep the entry and
        // mark the path (device and inode still identify the file).
        data.resize(file_at);
        data.append("\"<path not UTF-8>\"");
      }
      data.append(", \"inode\": ");
      data.append(std::to_string(source.inode));
      data.append(", \"offset\": ");
      data.append(std::to_string(source.offset));
      data.push_back('}');
    }
    if (!record.present(k)) continue;
    member(record_validator::RecordKeyName(k));
    data.append(record.value[k]);
  }
  data.push_back('}');
}

}  // namespace entry_mapper
