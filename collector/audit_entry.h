// One AGT SignedAuditEntry before signing: the fields upstream's
// FileAuditSink writes, minus the three the chain signer computes
// (content_hash, previous_hash, signature).
#ifndef AGT_COLLECTOR_AUDIT_ENTRY_H_
#define AGT_COLLECTOR_AUDIT_ENTRY_H_

#include <optional>
#include <string>

namespace audit_entry {

// A JSON string or null.
using NullableString = std::optional<std::string>;

struct AuditEntryFields {
  std::string entry_id;   // "audit_" + 16 lowercase hex digits
  std::string timestamp;  // Python isoformat() of an aware UTC datetime
  std::string event_type;
  NullableString agent_did;
  std::string action;
  std::string resource;
  NullableString target_did;
  // The `data` object, already serialised canonically (see canonical_json.h):
  // keys sorted, ", " / ": " separators, ASCII-only escapes. Kept as text so
  // the hot path never builds a value tree for it.
  std::string data_canonical = "{}";
  std::string outcome;
  std::string policy_decision;
  std::string matched_rule;
  NullableString trace_id;
  NullableString session_id;
  NullableString sandbox_id;
  NullableString environment;
  NullableString compute_driver;
};

}  // namespace audit_entry

#endif  // AGT_COLLECTOR_AUDIT_ENTRY_H_
