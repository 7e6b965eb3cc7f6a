// Verifies a signed audit JSONL file the way upstream AGT's HashChainVerifier
// does: per line, recompute content_hash over the canonical payload, check
// previous_hash links to the previous line and the HMAC signature.
#ifndef AGT_COLLECTOR_AUDIT_VERIFIER_H_
#define AGT_COLLECTOR_AUDIT_VERIFIER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "canonical_json_stream.h"
#include "chain_signer.h"

namespace audit_verifier {

// The longest entry line read back (verify, resuming a chain): a record
// line may be up to 16 MiB (the largest configurable limit) and its
// canonical text up to three times that (a 2-byte UTF-8 character becomes
// a 6-byte \uXXXX escape), plus the entry's other fields.
constexpr size_t kMaxEntryLineBytes = 64u << 20;

enum class VerifyResult { kValid, kBroken, kCannotOpen, kError };

struct VerifyReport {
  uint64_t entries = 0;        // lines verified good
  uint64_t broken_line = 0;    // 1-based, when kBroken
  std::string broken_reason;   // when kBroken
  std::string last_content_hash;
};

struct LineFacts {
  std::string entry_id;
  std::string content_hash;
  std::string previous_hash;
};

// Checks one line: all 19 fields with their types, content_hash recomputed
// over the canonical payload, the HMAC signature (`hasher` holds the key),
// and, unless `expected_previous_hash` is null, the link to the previous
// line. Used by the verifier and by the writer when resuming a file.
bool VerifyLine(std::string_view line, const std::string* expected_previous_hash,
                chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason);

// VerifyLine for many lines: one SAX pass per line (no value tree), its
// buffers kept from line to line.
class LineChecker {
 public:
  bool Check(std::string_view line, const std::string* expected_previous_hash,
             chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason);

 private:
  class Handler;
  // A field's first value in the line (the type is all a non-string needs).
  struct Seen {
    enum Type : uint8_t { kAbsent, kString, kNull, kObjectData, kOther } type = kAbsent;
    std::string_view text;  // kString: into copy_
  };
  Seen seen_[19];
  size_t members_ = 0;
  bool root_object_ = false;
  std::string copy_, payload_, computed_, mac_;
  audit_entry::AuditEntryFields fields_;
  canonical_json::StreamWriter data_;
};

// kCannotOpen / kError (with *err) for I/O problems; a bad line is kBroken.
VerifyResult VerifyAuditFile(const std::string& path, std::string_view key, VerifyReport* report,
                             std::string* err);

}  // namespace audit_verifier

#endif  // AGT_COLLECTOR_AUDIT_VERIFIER_H_
