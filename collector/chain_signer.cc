#include "chain_signer.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include "canonical_json.h"

namespace chain_signer {
namespace {

bool AppendKeyString(const char* key, std::string_view value, std::string* out) {
  out->append(key);
  return canonical_json::AppendString(value, out);
}

bool AppendKeyNullable(const char* key, const audit_entry::NullableString& value,
                       std::string* out) {
  out->append(key);
  if (!value) {
    out->append("null");
    return true;
  }
  return canonical_json::AppendString(*value, out);
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

// Key order below is the byte-sorted order of the field names; the two
// functions list the same fields upstream's SignedAuditEntry has.
bool AppendPayload(const audit_entry::AuditEntryFields& f, std::string_view previous_hash,
                   std::string* out) {
  bool ok = AppendKeyString("{\"action\": ", f.action, out);
  ok &= AppendKeyNullable(", \"agent_did\": ", f.agent_did, out);
  out->append(", \"data\": ");
  out->append(f.data_canonical);
  ok &= AppendKeyString(", \"entry_id\": ", f.entry_id, out);
  ok &= AppendKeyString(", \"event_type\": ", f.event_type, out);
  ok &= AppendKeyString(", \"matched_rule\": ", f.matched_rule, out);
  ok &= AppendKeyString(", \"outcome\": ", f.outcome, out);
  ok &= AppendKeyString(", \"policy_decision\": ", f.policy_decision, out);
  ok &= AppendKeyString(", \"previous_hash\": ", previous_hash, out);
  ok &= AppendKeyString(", \"resource\": ", f.resource, out);
  ok &= AppendKeyNullable(", \"session_id\": ", f.session_id, out);
  ok &= AppendKeyNullable(", \"target_did\": ", f.target_did, out);
  ok &= AppendKeyString(", \"timestamp\": ", f.timestamp, out);
  ok &= AppendKeyNullable(", \"trace_id\": ", f.trace_id, out);
  out->push_back('}');
  return ok;
}

bool AppendLine(const audit_entry::AuditEntryFields& f, std::string_view content_hash,
                std::string_view previous_hash, std::string_view signature, std::string* out) {
  bool ok = AppendKeyString("{\"action\": ", f.action, out);
  ok &= AppendKeyNullable(", \"agent_did\": ", f.agent_did, out);
  ok &= AppendKeyNullable(", \"compute_driver\": ", f.compute_driver, out);
  ok &= AppendKeyString(", \"content_hash\": ", content_hash, out);
  out->append(", \"data\": ");
  out->append(f.data_canonical);
  ok &= AppendKeyString(", \"entry_id\": ", f.entry_id, out);
  ok &= AppendKeyNullable(", \"environment\": ", f.environment, out);
  ok &= AppendKeyString(", \"event_type\": ", f.event_type, out);
  ok &= AppendKeyString(", \"matched_rule\": ", f.matched_rule, out);
  ok &= AppendKeyString(", \"outcome\": ", f.outcome, out);
  ok &= AppendKeyString(", \"policy_decision\": ", f.policy_decision, out);
  ok &= AppendKeyString(", \"previous_hash\": ", previous_hash, out);
  ok &= AppendKeyString(", \"resource\": ", f.resource, out);
  ok &= AppendKeyNullable(", \"sandbox_id\": ", f.sandbox_id, out);
  ok &= AppendKeyNullable(", \"session_id\": ", f.session_id, out);
  ok &= AppendKeyString(", \"signature\": ", signature, out);
  ok &= AppendKeyNullable(", \"target_did\": ", f.target_did, out);
  ok &= AppendKeyString(", \"timestamp\": ", f.timestamp, out);
  ok &= AppendKeyNullable(", \"trace_id\": ", f.trace_id, out);
  out->push_back('}');
  return ok;
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
  if (!AppendPayload(fields, previous_hash_, &payload_)) {
    *err = "agt-collector: error: entry " + fields.entry_id + " holds a string that is not UTF-8";
    return false;
  }
  if (!hasher_.Sha256Hex(payload_, &content_hash_, err) ||
      !hasher_.HmacHex(content_hash_, &signature_, err)) {
    return false;
  }
  const size_t before = out->size();
  if (!AppendLine(fields, content_hash_, previous_hash_, signature_, out)) {
    out->resize(before);
    *err = "agt-collector: error: entry " + fields.entry_id + " holds a string that is not UTF-8";
    return false;
  }
  out->push_back('\n');
  previous_hash_.swap(content_hash_);
  return true;
}

}  // namespace chain_signer
