// An audit entry as a CloudEvents 1.0 JSON envelope, equal key for key to
// upstream AGT's AuditEntry.to_cloudevent() with entry_hash = the signed
// entry's content_hash: id, type ("ai.agentmesh." + event_type, or
// upstream's mapped name), source (agent_did), time, datacontenttype,
// data (action, resource, outcome, policy_decision, matched_rule, then the
// entry's data over them), agentmeshentryhash, agentmeshprevioushash, and
// traceid / sessionid when set. One deliberate difference: upstream writes
// time as isoformat() + "Z" ("...+00:00Z", not RFC 3339); ours ends in "Z".
// Written with canonical_json (keys sorted, as json.dumps(sort_keys=True)).
#ifndef AGT_COLLECTOR_FORWARD_CLOUD_EVENT_H_
#define AGT_COLLECTOR_FORWARD_CLOUD_EVENT_H_

#include <string>
#include <string_view>

namespace cloud_event {

// *out (reused) gets the envelope of one signed entry line; false with a
// bare reason when the line is not an entry.
bool FromEntryLine(std::string_view line, std::string* out, std::string* err);

}  // namespace cloud_event

#endif  // AGT_COLLECTOR_FORWARD_CLOUD_EVENT_H_
