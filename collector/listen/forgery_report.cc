#include "listen/forgery_report.h"

#include <time.h>

#include <utility>

#include "canonical_json.h"
#include "entry_mapper.h"

namespace forgery_report {
namespace {

// Python's isoformat() of an aware UTC datetime, microseconds when non-zero,
// as entry_mapper's entry timestamps.
std::string IsoTimestamp(int64_t ms) {
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char buf[48];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  const int micros = static_cast<int>(ms % 1000) * 1000;
  if (micros != 0) n += static_cast<size_t>(snprintf(buf + n, sizeof buf - n, ".%06d", micros));
  return std::string(buf, n) + "+00:00";
}

}  // namespace

std::string EscapedPrefix(std::string_view message, size_t limit) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : message.substr(0, limit)) {
    const unsigned char b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && b != '\\') {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    }
  }
  return out;
}

Reporter::Reporter(std::string socket_path, int64_t interval_ms, size_t max_peers)
    : socket_path_(std::move(socket_path)),
      interval_ms_(interval_ms),
      max_peers_(max_peers < 1 ? 1 : max_peers) {}

void Reporter::Seen(const peer_attestation::Peer& peer, std::string_view reason,
                    std::string_view message, int64_t now_ms, std::vector<Due>* due) {
  ++seen_;
  Key key(peer.exe.dev, peer.exe.ino, peer.cgroup);
  auto it = tallies_.find(key);
  if (it == tallies_.end() && tallies_.size() >= max_peers_) {
    it = std::prev(tallies_.end());  // full: counted with the last peer tracked
  }
  Tally* t = nullptr;
  bool first = false;
  if (it == tallies_.end()) {
    t = &tallies_[key];
    t->window_start_ms = now_ms;
    first = true;
  } else {
    t = &it->second;
  }
  t->last = peer;
  t->reason.assign(reason);
  t->prefix = EscapedPrefix(message, kPrefixBytes);
  t->message_bytes = message.size();
  if (first) {
    Write(*t, 1, now_ms, due);
  } else {
    ++t->count;
  }
}

void Reporter::Flush(int64_t now_ms, std::vector<Due>* due) {
  for (auto it = tallies_.begin(); it != tallies_.end();) {
    Tally& t = it->second;
    if (now_ms - t.window_start_ms < interval_ms_) {
      ++it;
      continue;
    }
    if (t.count == 0) {
      it = tallies_.erase(it);  // quiet for a whole interval
      continue;
    }
    Write(t, t.count, now_ms, due);
    t.count = 0;
    t.window_start_ms = now_ms;
    ++it;
  }
}

void Reporter::FlushAll(int64_t now_ms, std::vector<Due>* due) {
  for (auto& [key, t] : tallies_) {
    if (t.count > 0) Write(t, t.count, now_ms, due);
    t.count = 0;
  }
}

int64_t Reporter::MsUntilDue(int64_t now_ms) const {
  int64_t best = -1;
  for (const auto& [key, t] : tallies_) {
    const int64_t left = t.window_start_ms + interval_ms_ - now_ms;
    const int64_t wait = left < 0 ? 0 : left;
    if (best < 0 || wait < best) best = wait;
  }
  return best;
}

void Reporter::Write(const Tally& t, uint64_t count, int64_t now_ms, std::vector<Due>* due) const {
  due->emplace_back();
  audit_entry::AuditEntryFields& f = due->back().fields;
  const peer_attestation::Peer& p = t.last;
  f.timestamp = IsoTimestamp(now_ms);
  f.event_type = "denial_record_forged";
  if (p.sandbox_id.empty()) {
    f.agent_did.reset();
    f.sandbox_id.reset();
  } else {
    f.agent_did = entry_mapper::DefaultAgentDid(p.sandbox_id);
    f.sandbox_id = p.sandbox_id;
  }
  f.action = "deliver_denial_record";
  f.resource = socket_path_;
  f.outcome = "rejected";
  f.policy_decision = "deny";
  f.matched_rule = "shim_attestation";
  // data, keys in sorted order (canonical JSON).
  std::string& d = f.data_canonical;
  d = "{\"attestation\": ";
  peer_attestation::AppendAttestationJson(p, false, &d);
  d += ", \"count\": ";
  canonical_json::AppendUint(count, &d);
  d += ", \"labels\": ";
  entry_mapper::SourceLabels labels;
  labels.sandbox_id = p.sandbox_id;
  // No sandbox id: the copy says null, as the outer field does.
  std::string copy = entry_mapper::LabelsCopy(labels);
  if (p.sandbox_id.empty()) copy.replace(copy.rfind("\"\""), 2, "null");
  d += copy;
  d += ", \"message_bytes\": ";
  canonical_json::AppendUint(t.message_bytes, &d);
  d += ", \"prefix\": ";
  canonical_json::AppendString(t.prefix, &d);  // ASCII by construction
  d += ", \"reason\": ";
  canonical_json::AppendString(t.reason, &d);
  d += "}";
}

}  // namespace forgery_report
