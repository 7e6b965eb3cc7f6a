#include "chain_signer.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include "canonical_json.h"

namespace chain_signer {
namespace {

bool AppendKeyString(std::string_view key, std::string_view value, std::string* out) {
  out->append(key);
  return canonical_json::AppendString(value, out);
}

bool AppendKeyNullable(std::string_view key, const audit_entry::NullableString& value,
                       std::string* out) {
  out->append(key);
  if (!value) {
    out->append("null");
    return true;
  }
  return canonical_json::AppendString(*value, out);
}

// Where the five line-only members go into the payload text.
struct SpliceMarks {
  size_t after_agent_did = 0;  // compute_driver, content_hash
  size_t after_entry_id = 0;   // environment
  size_t after_resource = 0;   // sandbox_id
  size_t after_session_id = 0;  // signature
};

bool AppendPayloadMarked(const audit_entry::AuditEntryFields& f, std::string_view previous_hash,
                         std::string* out, SpliceMarks* marks) {
  out->reserve(out->size() + f.data_canonical.size() + 640);
  bool ok = AppendKeyString("{\"action\": ", f.action, out);
  ok &= AppendKeyNullable(", \"agent_did\": ", f.agent_did, out);
  marks->after_agent_did = out->size();
  out->append(", \"data\": ");
  out->append(f.data_canonical);
  ok &= AppendKeyString(", \"entry_id\": ", f.entry_id, out);
  marks->after_entry_id = out->size();
  ok &= AppendKeyString(", \"event_type\": ", f.event_type, out);
  ok &= AppendKeyString(", \"matched_rule\": ", f.matched_rule, out);
  ok &= AppendKeyString(", \"outcome\": ", f.outcome, out);
  ok &= AppendKeyString(", \"policy_decision\": ", f.policy_decision, out);
  ok &= AppendKeyString(", \"previous_hash\": ", previous_hash, out);
  ok &= AppendKeyString(", \"resource\": ", f.resource, out);
  marks->after_resource = out->size();
  ok &= AppendKeyNullable(", \"session_id\": ", f.session_id, out);
  marks->after_session_id = out->size();
  ok &= AppendKeyNullable(", \"target_did\": ", f.target_did, out);
  ok &= AppendKeyString(", \"timestamp\": ", f.timestamp, out);
  ok &= AppendKeyNullable(", \"trace_id\": ", f.trace_id, out);
  out->push_back('}');
  return ok;
}

// Appends the line: `payload` (with its marks) and the five other members.
bool SpliceLine(std::string_view payload, const SpliceMarks& m,
                const audit_entry::AuditEntryFields& f, std::string_view content_hash,
                std::string_view signature, std::string* extra, std::string* out) {
  // Each spliced group is escaped into `extra`, then copied in place.
  bool ok = true;
  size_t from = 0;
  const auto copy_to = [&](size_t to) {
    out->append(payload.data() + from, to - from);
    from = to;
  };
  out->reserve(out->size() + payload.size() + 400);
  copy_to(m.after_agent_did);
  extra->clear();
  ok &= AppendKeyNullable(", \"compute_driver\": ", f.compute_driver, extra);
  ok &= AppendKeyString(", \"content_hash\": ", content_hash, extra);
  out->append(*extra);
  copy_to(m.after_entry_id);
  extra->clear();
  ok &= AppendKeyNullable(", \"environment\": ", f.environment, extra);
  out->append(*extra);
  copy_to(m.after_resource);
  extra->clear();
  ok &= AppendKeyNullable(", \"sandbox_id\": ", f.sandbox_id, extra);
  out->append(*extra);
  copy_to(m.after_session_id);
  extra->clear();
  ok &= AppendKeyString(", \"signature\": ", signature, extra);
  out->append(*extra);
  copy_to(payload.size());
  return ok;
}

void ToHex(const unsigned char* bytes, size_t n, std::string* hex) {
  static constexpr char kHex[] = "0123456789abcdef";
  hex->resize(n * 2);
  for (size_t i = 0; i < n; ++i) {
    (*hex)[2 * i] = kHex[bytes[i] >> 4];
    (*hex)[2 * i + 1] = kHex[bytes[i] & 0xf];
  }
}

std::string OpenSslError(const char* what) {
  char buf[256];
  const unsigned long code = ERR_get_error();
  ERR_error_string_n(code, buf, sizeof buf);
  return std::string("agt-collector: error: OpenSSL ") + what + ": " + buf;
}

}  // namespace

// Key order is the byte-sorted order of the field names; the fields are
// those of upstream's SignedAuditEntry.
bool AppendPayload(const audit_entry::AuditEntryFields& f, std::string_view previous_hash,
                   std::string* out) {
  SpliceMarks marks;
  return AppendPayloadMarked(f, previous_hash, out, &marks);
}

Hasher::Hasher() = default;

Hasher::~Hasher() {
  EVP_MAC_CTX_free(mac_ctx_);
  EVP_MAC_free(mac_);
  EVP_MD_CTX_free(md_ctx_);
  EVP_MD_free(const_cast<EVP_MD*>(sha256_));
}

bool Hasher::Init(std::string_view key, std::string* err) {
  if (key.empty()) {
    *err = "agt-collector: error: the HMAC key is empty";
    return false;
  }
  if (md_ctx_ == nullptr) {
    sha256_ = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    md_ctx_ = EVP_MD_CTX_new();
    mac_ = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (mac_ != nullptr) mac_ctx_ = EVP_MAC_CTX_new(mac_);
    if (sha256_ == nullptr || md_ctx_ == nullptr || mac_ctx_ == nullptr) {
      *err = OpenSslError("SHA-256/HMAC setup");
      return false;
    }
  }
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
      OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(mac_ctx_, reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                   params) != 1) {
    *err = OpenSslError("EVP_MAC_init");
    return false;
  }
  return true;
}

bool Hasher::Sha256Hex(std::string_view data, std::string* hex, std::string* err) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (md_ctx_ == nullptr || EVP_DigestInit_ex(md_ctx_, sha256_, nullptr) != 1 ||
      EVP_DigestUpdate(md_ctx_, data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(md_ctx_, digest, &len) != 1) {
    *err = OpenSslError("SHA-256");
    return false;
  }
  ToHex(digest, len, hex);
  return true;
}

bool Hasher::HmacHex(std::string_view data, std::string* hex, std::string* err) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  size_t len = 0;
  // A NULL key re-initialises with the key given to Init().
  if (mac_ctx_ == nullptr || EVP_MAC_init(mac_ctx_, nullptr, 0, nullptr) != 1 ||
      EVP_MAC_update(mac_ctx_, reinterpret_cast<const unsigned char*>(data.data()),
                     data.size()) != 1 ||
      EVP_MAC_final(mac_ctx_, mac, &len, sizeof mac) != 1) {
    *err = OpenSslError("HMAC-SHA256");
    return false;
  }
  ToHex(mac, len, hex);
  return true;
}

bool ChainSigner::SignAppend(const audit_entry::AuditEntryFields& fields, std::string* out,
                             std::string* err) {
  payload_.clear();
  SpliceMarks marks;
  if (!AppendPayloadMarked(fields, previous_hash_, &payload_, &marks)) {
    *err = "agt-collector: error: entry " + fields.entry_id + " holds a string that is not UTF-8";
    return false;
  }
  if (!hasher_.Sha256Hex(payload_, &content_hash_, err) ||
      !hasher_.HmacHex(content_hash_, &signature_, err)) {
    return false;
  }
  const size_t before = out->size();
  if (!SpliceLine(payload_, marks, fields, content_hash_, signature_, &extra_, out)) {
    out->resize(before);
    *err = "agt-collector: error: entry " + fields.entry_id + " holds a string that is not UTF-8";
    return false;
  }
  out->push_back('\n');
  previous_hash_.swap(content_hash_);
  return true;
}

}  // namespace chain_signer
