#include "entry_mapper.h"

#include <openssl/evp.h>
#include <string.h>

#include "canonical_json.h"

namespace entry_mapper {

using record_validator::RecordKey;
using record_validator::ValidRecord;

std::string DefaultAgentDid(std::string_view sandbox_id) {
  return "did:agt:sandbox:" + std::string(sandbox_id);
}

namespace {

// SHA-256 for entry ids, fetched once per thread: an implicit fetch per
// record costs as much as the hash.
class IdHasher {
 public:
  IdHasher() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {}
  ~IdHasher() {
    EVP_MD_CTX_free(ctx_);
    EVP_MD_free(md_);
  }
  IdHasher(const IdHasher&) = delete;
  IdHasher& operator=(const IdHasher&) = delete;

  // Appends "audit_" + 16 hex digits for the documented id input.
  void AppendId(std::string_view sandbox_id, const SourceRef& source, std::string_view line,
                std::string* out) {
    input_.assign("agt-entry-id/v1\n");
    input_.append(sandbox_id);
    input_.push_back('\n');
    canonical_json::AppendUint(source.device, &input_);
    input_.push_back(':');
    canonical_json::AppendUint(source.inode, &input_);
    input_.push_back('\n');
    canonical_json::AppendUint(source.offset, &input_);
    input_.push_back('\n');
    unsigned char digest[EVP_MAX_MD_SIZE] = {};
    unsigned int len = 0;
    // SHA-256 fails only without memory or the default provider; the id
    // stays well-formed (zeros) and the entry is still written.
    if (md_ == nullptr || ctx_ == nullptr || EVP_DigestInit_ex(ctx_, md_, nullptr) != 1 ||
        EVP_DigestUpdate(ctx_, input_.data(), input_.size()) != 1 ||
        EVP_DigestUpdate(ctx_, line.data(), line.size()) != 1 ||
        EVP_DigestFinal_ex(ctx_, digest, &len) != 1) {
      memset(digest, 0, sizeof digest);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out->append("audit_");
    for (int i = 0; i < 8; ++i) {
      out->push_back(kHex[digest[i] >> 4]);
      out->push_back(kHex[digest[i] & 0xf]);
    }
  }

 private:
  EVP_MD* md_;
  EVP_MD_CTX* ctx_;
  std::string input_;
};

IdHasher& ThreadIdHasher() {
  thread_local IdHasher hasher;
  return hasher;
}

void AppendEntryTimestamp(const ValidRecord& record, std::string* out) {
  // "YYYY-MM-DDTHH:MM:SS" from the validated shim timestamp (same second as
  // timestamp_ns, checked by the validator).
  out->append(record.timestamp, 0, 19);
  if (record.has_timestamp_ns) {
    const uint32_t micros = static_cast<uint32_t>((record.timestamp_ns % 1000000000u) / 1000u);
    if (micros != 0) {
      char buf[8] = {'.'};
      for (int i = 6, v = static_cast<int>(micros); i >= 1; --i, v /= 10) {
        buf[i] = static_cast<char>('0' + v % 10);
      }
      out->append(buf, 7);
    }
  }
  out->append("+00:00");
}

}  // namespace

std::string EntryId(std::string_view sandbox_id, const SourceRef& source, std::string_view line) {
  std::string id;
  ThreadIdHasher().AppendId(sandbox_id, source, line, &id);
  return id;
}

std::string EntryTimestamp(const ValidRecord& record) {
  std::string out;
  AppendEntryTimestamp(record, &out);
  return out;
}

void MapRecord(const ValidRecord& record, std::string_view line, const SourceLabels& labels,
               const SourceRef& source, audit_entry::AuditEntryFields* out) {
  out->entry_id.clear();
  ThreadIdHasher().AppendId(labels.sandbox_id, source, line, &out->entry_id);
  out->timestamp.clear();
  AppendEntryTimestamp(record, &out->timestamp);
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
  data.reserve(512);
  data.push_back('{');
  bool first = true;
  const auto member = [&](std::string_view key) {
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
      canonical_json::AppendUint(source.device, &data);
      data.append(", \"file\": ");
      const size_t file_at = data.size();
      if (!canonical_json::AppendString(source.file, &data)) {
        // A path that is not UTF-8 cannot be JSON text; keep the entry and
        // mark the path (device and inode still identify the file).
        data.resize(file_at);
        data.append("\"<path not UTF-8>\"");
      }
      data.append(", \"inode\": ");
      canonical_json::AppendUint(source.inode, &data);
      data.append(", \"offset\": ");
      canonical_json::AppendUint(source.offset, &data);
      data.push_back('}');
    }
    if (!record.present(k)) continue;
    member(record_validator::RecordKeyName(k));
    data.append(record.value[k]);
  }
  data.push_back('}');
}

}  // namespace entry_mapper
