#include "chain_signer.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <algorithm>

#include "canonical_json.h"
#include "hex.h"

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

}  // namespace

bool AppendPayloadHead(const audit_entry::AuditEntryFields& f, std::string* out) {
  bool ok = AppendKeyString("{\"action\": ", f.action, out);
  ok &= AppendKeyNullable(", \"agent_did\": ", f.agent_did, out);
  out->append(", \"data\": ");
  return ok;
}

bool AppendPayloadTail(const audit_entry::AuditEntryFields& f, std::string_view previous_hash,
                       std::string* out) {
  bool ok = AppendKeyString(", \"entry_id\": ", f.entry_id, out);
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

namespace {

// Writes the output line into room sized beforehand, noting where the
// payload's parts and the two hash slots lie.
class LineWriter {
 public:
  explicit LineWriter(char* out) : p_(out) {}
  bool ok() const { return ok_; }
  char* pos() const { return p_; }
  void Raw(std::string_view text) { p_ = canonical_json::WriteRaw(text, p_); }
  void String(std::string_view key, std::string_view value) {
    Raw(key);
    char* const end = canonical_json::WriteString(value, p_);
    if (end == nullptr) {
      ok_ = false;
      return;
    }
    p_ = end;
  }
  void Nullable(std::string_view key, const audit_entry::NullableString& value) {
    if (value) {
      String(key, *value);
    } else {
      Raw(key);
      Raw("null");
    }
  }
  // A quoted 64-digit hex slot, filled in later; returns where its digits go.
  char* HashSlot(std::string_view key) {
    Raw(key);
    *p_++ = '"';
    char* const slot = p_;
    p_ += kHashHexLength;
    *p_++ = '"';
    return slot;
  }

 private:
  char* p_;
  bool ok_ = true;
};

size_t MaxNullableBytes(const audit_entry::NullableString& value) {
  return value ? canonical_json::MaxStringBytes(value->size()) : 4;
}

std::string OpenSslError(const char* what) {
  char buf[256];
  const unsigned long code = ERR_get_error();
  ERR_error_string_n(code, buf, sizeof buf);
  return std::string("OpenSSL ") + what + ": " + buf;
}

}  // namespace

// Key order is the byte-sorted order of the field names; the fields are
// those of upstream's SignedAuditEntry.
bool AppendPayload(const audit_entry::AuditEntryFields& f, std::string_view previous_hash,
                   std::string* out) {
  out->reserve(out->size() + f.data_canonical.size() + 640);
  bool ok = AppendPayloadHead(f, out);
  out->append(f.data_canonical);
  return AppendPayloadTail(f, previous_hash, out) && ok;
}

Hasher::Hasher() = default;

Hasher::~Hasher() {
  EVP_MAC_CTX_free(mac_ctx_);
  EVP_MAC_free(mac_);
  EVP_MD_CTX_free(peek_ctx_);
  EVP_MD_CTX_free(md_ctx_);
  EVP_MD_free(const_cast<EVP_MD*>(sha256_));
}

bool Hasher::Init(std::string_view key, std::string* err) {
  if (key.empty()) {
    *err = "the HMAC key is empty";
    return false;
  }
  if (md_ctx_ == nullptr) {
    sha256_ = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    md_ctx_ = EVP_MD_CTX_new();
    peek_ctx_ = EVP_MD_CTX_new();
    mac_ = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (mac_ != nullptr) mac_ctx_ = EVP_MAC_CTX_new(mac_);
    if (sha256_ == nullptr || md_ctx_ == nullptr || peek_ctx_ == nullptr || mac_ctx_ == nullptr) {
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

bool Hasher::Sha256Begin(std::string* err) {
  if (md_ctx_ == nullptr || EVP_DigestInit_ex(md_ctx_, sha256_, nullptr) != 1) {
    *err = OpenSslError("SHA-256");
    return false;
  }
  return true;
}

bool Hasher::Sha256Update(std::string_view part, std::string* err) {
  if (EVP_DigestUpdate(md_ctx_, part.data(), part.size()) != 1) {
    *err = OpenSslError("SHA-256");
    return false;
  }
  return true;
}

bool Hasher::Sha256PeekDigest(unsigned char digest[32], std::string* err) {
  unsigned int len = 0;
  if (EVP_MD_CTX_copy_ex(peek_ctx_, md_ctx_) != 1 ||
      EVP_DigestFinal_ex(peek_ctx_, digest, &len) != 1 || len != 32) {
    *err = OpenSslError("SHA-256");
    return false;
  }
  return true;
}

bool Hasher::Sha256FinishHex(char* hex, std::string* err) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(md_ctx_, digest, &len) != 1 || len * 2 != kHashHexLength) {
    *err = OpenSslError("SHA-256");
    return false;
  }
  hex::EncodeTo(digest, len, hex);
  return true;
}

bool Hasher::HmacHexOf(std::string_view data, char* hex, std::string* err) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  size_t len = 0;
  // A NULL key re-initialises with the key given to Init().
  if (mac_ctx_ == nullptr || EVP_MAC_init(mac_ctx_, nullptr, 0, nullptr) != 1 ||
      EVP_MAC_update(mac_ctx_, reinterpret_cast<const unsigned char*>(data.data()), data.size()) !=
          1 ||
      EVP_MAC_final(mac_ctx_, mac, &len, sizeof mac) != 1 || len * 2 != kHashHexLength) {
    *err = OpenSslError("HMAC-SHA256");
    return false;
  }
  hex::EncodeTo(mac, len, hex);
  return true;
}

bool Hasher::Sha256Hex(std::string_view data, std::string* hex, std::string* err) {
  hex->resize(kHashHexLength);
  return Sha256Begin(err) && Sha256Update(data, err) && Sha256FinishHex(&(*hex)[0], err);
}

bool Hasher::HmacHex(std::string_view data, std::string* hex, std::string* err) {
  hex->resize(kHashHexLength);
  return HmacHexOf(data, &(*hex)[0], err);
}

size_t ChainSigner::MaxLineBytes(const audit_entry::AuditEntryFields& f) const {
  using canonical_json::MaxStringBytes;
  // Every string escaped at its worst, the fixed text (under 400 bytes) and
  // the three hashes.
  return 512 + f.data_canonical.size() + MaxStringBytes(previous_hash_.size()) +
         2 * (kHashHexLength + 2) + MaxStringBytes(f.action.size()) +
         MaxStringBytes(std::max(f.entry_id.size(), kEntryIdLength)) +
         MaxStringBytes(f.event_type.size()) + MaxStringBytes(f.matched_rule.size()) +
         MaxStringBytes(f.outcome.size()) + MaxStringBytes(f.policy_decision.size()) +
         MaxStringBytes(f.resource.size()) + MaxStringBytes(f.timestamp.size()) +
         MaxNullableBytes(f.agent_did) + MaxNullableBytes(f.compute_driver) +
         MaxNullableBytes(f.environment) + MaxNullableBytes(f.sandbox_id) +
         MaxNullableBytes(f.session_id) + MaxNullableBytes(f.target_did) +
         MaxNullableBytes(f.trace_id);
}

bool ChainSigner::SignAppend(const audit_entry::AuditEntryFields& f, std::string* out,
                             std::string* err) {
  const size_t before = out->size();
  out->resize(before + MaxLineBytes(f));
  size_t written = 0;
  const bool ok = SignInto(f, &(*out)[before], &written, err);
  out->resize(before + written);
  return ok;
}

bool ChainSigner::SignInto(const audit_entry::AuditEntryFields& f, char* line, size_t* written,
                           std::string* err) {
  return Sign(f, nullptr, nullptr, line, written, err) == Outcome::kSigned;
}

ChainSigner::Outcome ChainSigner::SignNewInto(audit_entry::AuditEntryFields* fields,
                                              entry_id_set::EntryIdSet* already_written, char* line,
                                              size_t* written, std::string* err) {
  return Sign(*fields, &fields->entry_id, already_written, line, written, err);
}

ChainSigner::Outcome ChainSigner::Sign(const audit_entry::AuditEntryFields& f,
                                       std::string* derived_id,
                                       entry_id_set::EntryIdSet* already_written, char* line,
                                       size_t* written, std::string* err) {
  *written = 0;
  // Key order is the byte-sorted order of the field names (those of
  // upstream's SignedAuditEntry); the payload is the line without the five
  // members marked "not hashed". It is hashed part by part as the line is
  // written, so the state after "data" is at hand for the entry id.
  LineWriter w(line);
  w.String("{\"action\": ", f.action);
  w.Nullable(", \"agent_did\": ", f.agent_did);
  const std::string_view head(line, static_cast<size_t>(w.pos() - line));
  w.Nullable(", \"compute_driver\": ", f.compute_driver);         // not hashed
  char* const content_hash = w.HashSlot(", \"content_hash\": ");  // not hashed
  const char* from = w.pos();
  w.Raw(", \"data\": ");
  w.Raw(f.data_canonical);
  const std::string_view data(from, static_cast<size_t>(w.pos() - from));
  if (!w.ok()) {
    *err = "an entry holds a string that is not UTF-8";
    return Outcome::kFailed;
  }
  if (!hasher_.Sha256Begin(err) || !hasher_.Sha256Update(head, err) ||
      !hasher_.Sha256Update(data, err)) {
    return Outcome::kFailed;
  }
  if (derived_id != nullptr) {
    unsigned char digest[32];
    if (!hasher_.Sha256PeekDigest(digest, err)) return Outcome::kFailed;
    char id[kEntryIdLength] = {'a', 'u', 'd', 'i', 't', '_'};
    hex::EncodeTo(digest, (kEntryIdLength - 6) / 2, id + 6);
    derived_id->assign(id, sizeof id);
    if (already_written != nullptr &&
        already_written->EraseKey(entry_id_set::KeyOfDigest(digest))) {
      return Outcome::kAlreadyWritten;
    }
  }
  from = w.pos();
  w.String(", \"entry_id\": ", f.entry_id);
  const std::string_view entry_id(from, static_cast<size_t>(w.pos() - from));
  w.Nullable(", \"environment\": ", f.environment);  // not hashed
  const char* const environment_end = w.pos();
  w.String(", \"event_type\": ", f.event_type);
  w.String(", \"matched_rule\": ", f.matched_rule);
  w.String(", \"outcome\": ", f.outcome);
  w.String(", \"policy_decision\": ", f.policy_decision);
  w.String(", \"previous_hash\": ", previous_hash_);
  w.String(", \"resource\": ", f.resource);
  const std::string_view to_resource(environment_end,
                                     static_cast<size_t>(w.pos() - environment_end));
  w.Nullable(", \"sandbox_id\": ", f.sandbox_id);  // not hashed
  const char* const sandbox_end = w.pos();
  w.Nullable(", \"session_id\": ", f.session_id);
  const std::string_view session(sandbox_end, static_cast<size_t>(w.pos() - sandbox_end));
  char* const signature = w.HashSlot(", \"signature\": ");  // not hashed
  const char* const signature_end = w.pos();
  w.Nullable(", \"target_did\": ", f.target_did);
  w.String(", \"timestamp\": ", f.timestamp);
  w.Nullable(", \"trace_id\": ", f.trace_id);
  w.Raw("}");
  const std::string_view tail(signature_end, static_cast<size_t>(w.pos() - signature_end));
  w.Raw("\n");
  if (!w.ok()) {
    *err = "entry " + f.entry_id + " holds a string that is not UTF-8";
    return Outcome::kFailed;
  }
  if (!hasher_.Sha256Update(entry_id, err) || !hasher_.Sha256Update(to_resource, err) ||
      !hasher_.Sha256Update(session, err) || !hasher_.Sha256Update(tail, err) ||
      !hasher_.Sha256FinishHex(content_hash, err) ||
      !hasher_.HmacHexOf(std::string_view(content_hash, kHashHexLength), signature, err)) {
    return Outcome::kFailed;
  }
  *written = static_cast<size_t>(w.pos() - line);
  previous_hash_.assign(content_hash, kHashHexLength);
  return Outcome::kSigned;
}

}  // namespace chain_signer
