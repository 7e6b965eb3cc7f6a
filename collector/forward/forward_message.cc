#include "forward/forward_message.h"

#include <unistd.h>

#include <rapidjson/document.h>

#include "json_text.h"

namespace forward_message {
namespace {

bool IsDigits(std::string_view s) {
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return !s.empty();
}

// RFC 5424 TIMESTAMP (a strict subset of RFC 3339): the entry's own when it
// has that shape, else the NILVALUE. Upstream writes "+00:00", which is valid.
bool IsSyslogTimestamp(std::string_view t) {
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':') {
    return false;
  }
  if (!IsDigits(t.substr(0, 4)) || !IsDigits(t.substr(5, 2)) || !IsDigits(t.substr(8, 2)) ||
      !IsDigits(t.substr(11, 2)) || !IsDigits(t.substr(14, 2)) || !IsDigits(t.substr(17, 2))) {
    return false;
  }
  std::string_view rest = t.substr(19);
  if (rest.front() == '.') {
    size_t n = 1;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
    if (n == 1 || n > 7) return false;  // TIME-SECFRAC: 1 to 6 digits
    rest = rest.substr(n);
  }
  if (rest == "Z") return true;
  return rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && IsDigits(rest.substr(1, 2)) &&
         rest[3] == ':' && IsDigits(rest.substr(4, 2));
}

// An RFC 5424 header field: 1..max printable ASCII without spaces, else "-".
std::string_view HeaderField(std::string_view s, size_t max) {
  if (s.empty() || s.size() > max) return "-";
  for (const char c : s) {
    if (c < 33 || c > 126) return "-";
  }
  return s;
}

bool GetString(const rapidjson::Document& doc, const char* key, std::string* out,
               std::string* err) {
  const auto it = doc.FindMember(key);
  if (it == doc.MemberEnd() || !it->value.IsString()) {
    *err = std::string("the entry has no string \"") + key + "\"";
    return false;
  }
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

void AppendHeader(const EntryFacts& e, std::string_view host, std::string_view msgid,
                  std::string* out) {
  out->append("<" + std::to_string(kPriority) + ">1 ");
  out->append(IsSyslogTimestamp(e.timestamp) ? std::string_view(e.timestamp) : "-");
  out->push_back(' ');
  out->append(HeaderField(host, 255));
  out->push_back(' ');
  out->append(kAppName);
  out->append(" - ");
  out->append(HeaderField(msgid, 32));
  out->push_back(' ');
}

}  // namespace

bool ParseEntry(std::string_view line, EntryFacts* out, std::string* err) {
  rapidjson::Document doc;
  if (!json_text::Parse<rapidjson::kParseValidateEncodingFlag>(line, &doc) || !doc.IsObject()) {
    *err = "not a JSON object";
    return false;
  }
  // outcome and resource may be null upstream; the chain fields may not.
  for (const auto& [key, field] :
       {std::pair{"outcome", &out->outcome}, std::pair{"resource", &out->resource},
        std::pair{"sandbox_id", &out->sandbox_id}}) {
    const auto it = doc.FindMember(key);
    field->clear();
    if (it != doc.MemberEnd() && it->value.IsString()) {
      field->assign(it->value.GetString(), it->value.GetStringLength());
    }
  }
  return GetString(doc, "entry_id", &out->entry_id, err) &&
         GetString(doc, "event_type", &out->event_type, err) &&
         GetString(doc, "timestamp", &out->timestamp, err) &&
         GetString(doc, "content_hash", &out->content_hash, err) &&
         GetString(doc, "previous_hash", &out->previous_hash, err);
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "-";
  return std::string(HeaderField(name, 255));
}

void AppendParamValue(std::string_view value, std::string* out) {
  out->push_back('"');
  for (const char c : value) {
    if (c == '"' || c == '\\' || c == ']') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

void AppendStructuredData(const EntryFacts& e, uint64_t seq, std::string* out) {
  out->append("[");
  out->append(kSdId);
  const std::pair<const char*, std::string_view> params[] = {
      {"entry_id", e.entry_id},
      {"sandbox_id", e.sandbox_id},
      {"resource", e.resource},
      {"outcome", e.outcome},
  };
  for (const auto& [name, value] : params) {
    out->append(" ");
    out->append(name);
    out->push_back('=');
    AppendParamValue(value, out);
  }
  if (seq != 0) out->append(" seq=\"" + std::to_string(seq) + "\"");
  out->append(" previous_hash=");
  AppendParamValue(e.previous_hash, out);
  out->append(" content_hash=");
  AppendParamValue(e.content_hash, out);
  out->append("]");
}

void Format(const EntryFacts& e, std::string_view host, uint64_t seq, std::string_view body,
            size_t max_bytes, std::string* out) {
  out->clear();
  AppendHeader(e, host, e.event_type, out);
  AppendStructuredData(e, seq, out);
  if (out->size() + 1 + body.size() <= max_bytes) {
    out->push_back(' ');
    out->append(body);
    return;
  }
  // Never cut: the notice names the entry and its size instead.
  out->clear();
  AppendHeader(e, host, kOversizedMsgId, out);
  AppendStructuredData(e, seq, out);
  out->pop_back();
  out->append(" size=\"" + std::to_string(body.size()) + "\"]");
}

}  // namespace forward_message
