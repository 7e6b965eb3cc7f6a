#include "collector_events.h"

#include <stdio.h>
#include <time.h>

#include <rapidjson/document.h>

#include "canonical_json.h"

namespace collector_events {
namespace {

using rapidjson::Value;

Value Text(const std::string& s, rapidjson::Document::AllocatorType& a) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// The canonical text of `data`; a value the canonical writer refuses (text
// that is not UTF-8: a path a sandbox named) is kept as its escaped bytes.
std::string Canonical(const Value& data) {
  std::string out, err;
  if (!canonical_json::AppendValue(data, &out, &err)) return "{}";
  return out;
}

// Bytes that are not printable ASCII as \xNN, so any path fits a JSON string.
std::string Printable(const std::string& s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

void SetCommon(audit_entry::AuditEntryFields* out) {
  out->entry_id.clear();
  out->timestamp = NowTimestamp();
  out->target_did.reset();
  out->outcome = "detected";
  out->policy_decision = "audit";
  out->trace_id.reset();
}

}  // namespace

std::string NowTimestamp() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char buf[48];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  const long micros = ts.tv_nsec / 1000;
  if (micros != 0) n += static_cast<size_t>(snprintf(buf + n, sizeof buf - n, ".%06ld", micros));
  snprintf(buf + n, sizeof buf - n, "+00:00");
  return buf;
}

void MapSuppression(const Suppression& what, const entry_mapper::SourceLabels& labels,
                    audit_entry::AuditEntryFields* out) {
  SetCommon(out);
  out->event_type = "denied_log_suppressed";
  out->agent_did = labels.agent_did;
  out->action = "suppress_denied_log";
  out->resource = Printable(what.log);
  out->matched_rule = "denied_log_integrity";
  out->session_id = labels.session_id;
  out->sandbox_id = labels.sandbox_id;
  out->environment = labels.environment;
  out->compute_driver = labels.compute_driver;
  rapidjson::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  d.AddMember("log", Text(Printable(what.log), a), a);
  d.AddMember("found", Text(Printable(what.found), a), a);
  d.AddMember("restored", !what.restored.empty(), a);
  if (!what.restored.empty()) d.AddMember("restoration", Text(what.restored, a), a);
  d.AddMember("attested", false, a);
  if (what.repeats > 0) {
    d.AddMember("repeats", what.repeats, a);
    d.AddMember("window_start", what.window_start, a);
    d.AddMember("interval_seconds", what.interval_seconds, a);
  }
  out->data_canonical = Canonical(d);
}

void MapTampered(const std::string& audit_path, const audit_tamper::Finding& f,
                 const chain_head::ChainHead* head, const std::string& moved_to,
                 audit_entry::AuditEntryFields* out) {
  SetCommon(out);
  out->event_type = "audit_file_tampered";
  out->agent_did.reset();
  out->action = "start_new_audit_file";
  out->resource = Printable(audit_path);
  out->matched_rule = "chain_head";
  out->session_id.reset();
  out->sandbox_id.reset();
  out->environment.reset();
  out->compute_driver.reset();
  rapidjson::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  d.AddMember("finding", Text(audit_tamper::KindName(f.kind), a), a);
  d.AddMember("detail", Text(Printable(f.detail), a), a);
  d.AddMember("first_bad_line", static_cast<uint64_t>(f.line), a);
  d.AddMember("first_bad_offset", static_cast<uint64_t>(f.offset), a);
  d.AddMember("moved_to", Text(Printable(moved_to), a), a);
  Value found(rapidjson::kObjectType);
  found.AddMember("device", static_cast<uint64_t>(f.file.dev), a);
  found.AddMember("inode", static_cast<uint64_t>(f.file.ino), a);
  found.AddMember("entries_verified", static_cast<uint64_t>(f.entries), a);
  found.AddMember("verified_bytes", static_cast<uint64_t>(f.good_bytes), a);
  found.AddMember("torn_bytes", static_cast<uint64_t>(f.torn_bytes), a);
  d.AddMember("found", found, a);
  if (head != nullptr) {
    Value h(rapidjson::kObjectType);
    h.AddMember("device", static_cast<uint64_t>(head->file.dev), a);
    h.AddMember("inode", static_cast<uint64_t>(head->file.ino), a);
    h.AddMember("entries", static_cast<uint64_t>(head->entries), a);
    h.AddMember("size", static_cast<uint64_t>(head->size), a);
    h.AddMember("content_hash", Text(head->content_hash, a), a);
    d.AddMember("chain_head", h, a);
  } else {
    d.AddMember("chain_head", Value(), a);
  }
  out->data_canonical = Canonical(d);
}

}  // namespace collector_events
