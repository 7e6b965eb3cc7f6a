// The AGT audit chain: content_hash = SHA-256 hex of the canonical payload,
// previous_hash = the previous entry's content_hash ("" for the first),
// signature = HMAC-SHA256 hex (operator's key) over the ASCII content_hash.
// The output line is the whole 19-field object, serialised canonically:
// ChainSigner writes it once, in place, and hashes the payload as the parts
// of the line it consists of (the line minus compute_driver, content_hash,
// environment, sandbox_id and signature), so nothing is escaped or copied
// twice; content_hash and signature are filled into their slots after.
//
// The collector's own entry ids (agt-audit-jsonl(5), ENTRY IDS) come from the
// same hash: "audit_" + the first 16 hex digits of the SHA-256 of the
// payload's text up to the end of the "data" value,
//   {"action": "exec", "agent_did": ..., "data": {...}
// which holds the record's validated fields and where it was read (file,
// device, inode, offset). content_hash continues from that state, so an id
// costs one finalisation instead of a second pass over the record.
#ifndef AGT_COLLECTOR_CHAIN_SIGNER_H_
#define AGT_COLLECTOR_CHAIN_SIGNER_H_

#include <openssl/evp.h>

#include <string>
#include <string_view>
#include "audit_entry.h"
#include "entry_id_set.h"

namespace chain_signer {

constexpr size_t kHashHexLength = 64;
// "audit_" + 16 hex digits, as upstream's ids and ours are.
constexpr size_t kEntryIdLength = 22;

// Serialises the 14 payload fields (entry_id ... session_id, previous_hash),
// keys sorted, exactly as upstream hashes them. False when a field is not
// valid UTF-8 (the output is then unusable).
bool AppendPayload(const audit_entry::AuditEntryFields& fields, std::string_view previous_hash,
                   std::string* out);
// The same payload in the two parts around the "data" value (which
// fields.data_canonical holds; these leave it out): `{"action": ...,
// "data": ` and `, "entry_id": ... }`. The verifier hashes head, its own
// canonical data text and tail in turn, so the data is never copied.
bool AppendPayloadHead(const audit_entry::AuditEntryFields& fields, std::string* out);
bool AppendPayloadTail(const audit_entry::AuditEntryFields& fields, std::string_view previous_hash,
                       std::string* out);

// Keyed hashing with the OpenSSL contexts fetched once and reused, so the hot
// path allocates nothing per entry.
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  // An empty key is refused.
  bool Init(std::string_view key, std::string* err);
  // 64 lowercase hex digits each.
  bool Sha256Hex(std::string_view data, std::string* hex, std::string* err);
  bool HmacHex(std::string_view data, std::string* hex, std::string* err);
  // HMAC written to hex[0..63].
  bool HmacHexOf(std::string_view data, char* hex, std::string* err);

  // The same SHA-256 as a stream: Begin, Update as often as needed, then
  // FinishHex; PeekDigest gives the digest of what was fed so far without
  // ending the stream (entry ids).
  bool Sha256Begin(std::string* err);
  bool Sha256Update(std::string_view part, std::string* err);
  bool Sha256PeekDigest(unsigned char digest[32], std::string* err);
  bool Sha256FinishHex(char* hex, std::string* err);

 private:
  EVP_MD_CTX* md_ctx_ = nullptr;
  EVP_MD_CTX* peek_ctx_ = nullptr;  // PeekDigest's copy of md_ctx_
  const EVP_MD* sha256_ = nullptr;
  EVP_MAC* mac_ = nullptr;
  EVP_MAC_CTX* mac_ctx_ = nullptr;
};

// Signs entries one after the other, carrying previous_hash forward.
class ChainSigner {
 public:
  bool Init(std::string_view key, std::string* err) { return hasher_.Init(key, err); }
  // Continue an existing chain (the last line's content_hash), "" for a new one.
  void SetPreviousHash(std::string_view previous_hash) { previous_hash_ = previous_hash; }
  const std::string& previous_hash() const { return previous_hash_; }
  Hasher* hasher() { return &hasher_; }

  // Appends the signed line plus '\n' to *out and advances the chain. For
  // the tests (upstream's golden vectors give the entry_id): the collector
  // signs into its batch (SignNewInto).
  bool SignAppend(const audit_entry::AuditEntryFields& fields, std::string* out, std::string* err);

  // The same into caller-owned room (a batch buffer that keeps its size):
  // at most MaxLineBytes(fields) bytes are written at `out`, *written of them
  // the line. On failure nothing counts and the chain stays where it was.
  size_t MaxLineBytes(const audit_entry::AuditEntryFields& fields) const;
  bool SignInto(const audit_entry::AuditEntryFields& fields, char* out, size_t* written,
                std::string* err);

  // The collector's own entries: fields->entry_id is derived (see the top of
  // this file) and stored, then the entry is signed as SignInto does. When
  // the id is in *already_written (may be null), a line written before a
  // crash, it is erased from the set and nothing is written: kAlreadyWritten,
  // the chain stays where it was.
  enum class Outcome { kSigned, kAlreadyWritten, kFailed };
  Outcome SignNewInto(audit_entry::AuditEntryFields* fields,
                      entry_id_set::EntryIdSet* already_written, char* out, size_t* written,
                      std::string* err);

 private:
  // SignInto and SignNewInto: with derived_id null, fields.entry_id is used
  // as given; else the id is derived into *derived_id (which may be
  // fields.entry_id itself: it is written before the line uses it).
  Outcome Sign(const audit_entry::AuditEntryFields& fields, std::string* derived_id,
               entry_id_set::EntryIdSet* already_written, char* out, size_t* written,
               std::string* err);

  Hasher hasher_;
  std::string previous_hash_;
};

}  // namespace chain_signer

#endif  // AGT_COLLECTOR_CHAIN_SIGNER_H_
