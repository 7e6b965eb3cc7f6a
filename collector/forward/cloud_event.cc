#include "forward/cloud_event.h"

#include <rapidjson/document.h>

#include "canonical_json.h"
#include "json_text.h"

namespace cloud_event {
namespace {

// Upstream's _CE_TYPE_MAP; any other event type is "ai.agentmesh." + it.
constexpr struct {
  const char* event_type;
  const char* ce_type;
} kTypeMap[] = {
    {"tool_invocation", "ai.agentmesh.tool.invoked"},
    {"tool_blocked", "ai.agentmesh.tool.blocked"},
    {"policy_evaluation", "ai.agentmesh.policy.evaluation"},
    {"policy_violation", "ai.agentmesh.policy.violation"},
    {"trust_handshake", "ai.agentmesh.trust.handshake"},
    {"trust_score_updated", "ai.agentmesh.trust.score.updated"},
    {"agent_registered", "ai.agentmesh.agent.registered"},
    {"agent_verified", "ai.agentmesh.agent.verified"},
    {"audit_integrity", "ai.agentmesh.audit.integrity.verified"},
};

std::string CeType(std::string_view event_type) {
  for (const auto& row : kTypeMap) {
    if (event_type == row.event_type) return row.ce_type;
  }
  return "ai.agentmesh." + std::string(event_type);
}

// RFC 3339 in UTC: "+00:00" becomes "Z" (upstream appends "Z" to it).
std::string Rfc3339Utc(std::string_view t) {
  constexpr std::string_view kUtc = "+00:00";
  if (t.size() > kUtc.size() && t.substr(t.size() - kUtc.size()) == kUtc) {
    return std::string(t.substr(0, t.size() - kUtc.size())) + "Z";
  }
  return std::string(t);
}

bool Truthy(const rapidjson::Value& v) {
  return v.IsString() ? v.GetStringLength() > 0 : !v.IsNull();
}

}  // namespace

bool FromEntryLine(std::string_view line, std::string* out, std::string* err) {
  rapidjson::Document doc;
  if (!json_text::Parse<rapidjson::kParseValidateEncodingFlag>(line, &doc) || !doc.IsObject()) {
    *err = "not a JSON object";
    return false;
  }
  for (const char* key : {"entry_id", "event_type", "timestamp", "content_hash", "previous_hash"}) {
    const auto it = doc.FindMember(key);
    if (it == doc.MemberEnd() || !it->value.IsString()) {
      *err = std::string("the entry has no string \"") + key + "\"";
      return false;
    }
  }
  auto& alloc = doc.GetAllocator();
  const auto null = rapidjson::Value();
  auto get = [&](const char* key) -> const rapidjson::Value& {
    const auto it = doc.FindMember(key);
    return it == doc.MemberEnd() ? null : it->value;
  };
  auto copy = [&](const rapidjson::Value& v) { return rapidjson::Value(v, alloc); };
  auto str = [&](const std::string& s) { return rapidjson::Value(s.c_str(), s.size(), alloc); };

  rapidjson::Value data(rapidjson::kObjectType);
  for (const char* key : {"action", "resource", "outcome", "policy_decision", "matched_rule"}) {
    data.AddMember(rapidjson::StringRef(key), copy(get(key)), alloc);
  }
  const rapidjson::Value& entry_data = get("data");
  if (entry_data.IsObject()) {  // **self.data: its keys win
    for (const auto& m : entry_data.GetObject()) {
      const auto it = data.FindMember(m.name);
      if (it != data.MemberEnd()) {
        it->value = copy(m.value);
      } else {
        data.AddMember(copy(m.name), copy(m.value), alloc);
      }
    }
  }
  rapidjson::Value ce(rapidjson::kObjectType);
  ce.AddMember("specversion", "1.0", alloc);
  ce.AddMember("id", copy(get("entry_id")), alloc);
  ce.AddMember("type", str(CeType(get("event_type").GetString())), alloc);
  ce.AddMember("source", copy(get("agent_did")), alloc);
  ce.AddMember("time", str(Rfc3339Utc(get("timestamp").GetString())), alloc);
  ce.AddMember("datacontenttype", "application/json", alloc);
  ce.AddMember("data", data, alloc);
  ce.AddMember("agentmeshentryhash", copy(get("content_hash")), alloc);
  ce.AddMember("agentmeshprevioushash", copy(get("previous_hash")), alloc);
  if (Truthy(get("trace_id"))) ce.AddMember("traceid", copy(get("trace_id")), alloc);
  if (Truthy(get("session_id"))) ce.AddMember("sessionid", copy(get("session_id")), alloc);
  out->clear();
  return canonical_json::AppendValue(ce, out, err);
}

}  // namespace cloud_event
