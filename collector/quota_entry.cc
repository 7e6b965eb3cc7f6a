#include "quota_entry.h"

#include <time.h>

#include "canonical_json.h"

namespace quota_entry {
namespace {

// "YYYY-MM-DDTHH:MM:SS" of an epoch second, UTC.
std::string Utc(int64_t epoch) {
  const time_t t = static_cast<time_t>(epoch);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

}  // namespace

void MapSummary(const sandbox_quota::Held& held, const sandbox_quota::Limits& limits,
                const entry_mapper::SourceLabels& labels, const std::string& file,
                audit_entry::AuditEntryFields* out) {
  const int64_t end = held.since + limits.interval_seconds;
  *out = audit_entry::AuditEntryFields();
  out->timestamp = Utc(end) + "+00:00";  // as entry timestamps: isoformat, aware UTC
  out->event_type = kEventType;
  out->agent_did = labels.agent_did;
  out->action = "log_lines";
  out->resource = "denied_log";
  out->outcome = "summarised";
  out->policy_decision = "rate_limit";
  out->matched_rule = "sandbox_quota";
  out->session_id = labels.session_id;
  out->sandbox_id = labels.sandbox_id;
  out->environment = labels.environment;
  out->compute_driver = labels.compute_driver;
  // Keys in sorted order (canonical JSON), as every entry's data.
  std::string& d = out->data_canonical;
  d = "{\"bytes\": ";
  canonical_json::AppendUint(held.bytes, &d);
  d += ", \"interval_end\": ";
  canonical_json::AppendString(Utc(end) + "Z", &d);
  d += ", \"interval_start\": ";
  canonical_json::AppendString(Utc(held.since) + "Z", &d);
  d += ", \"limits\": {\"interval_seconds\": ";
  canonical_json::AppendUint(limits.interval_seconds, &d);
  d += ", \"max_bytes\": ";
  canonical_json::AppendUint(limits.max_bytes, &d);
  d += ", \"max_entries\": ";
  canonical_json::AppendUint(limits.max_entries, &d);
  d += "}, \"lines\": ";
  canonical_json::AppendUint(held.lines, &d);
  d += ", \"source\": {\"file\": ";
  canonical_json::AppendString(file, &d);
  d += "}}";
}

}  // namespace quota_entry
