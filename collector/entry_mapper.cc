#include "entry_mapper.h"

#include <string.h>

#include "canonical_json.h"

namespace entry_mapper {

using record_validator::RecordKey;
using record_validator::ValidRecord;

std::string DefaultAgentDid(std::string_view sandbox_id) {
  return "did:agt:sandbox:" + std::string(sandbox_id);
}

namespace {

void AppendEntryTimestamp(const ValidRecord& record, std::string* out) {
  // "YYYY-MM-DDTHH:MM:SS" from the validated shim timestamp (same second as
  // timestamp_ns, checked by the validator).
  char buf[32];
  memcpy(buf, record.timestamp.data(), 19);
  char* p = buf + 19;
  if (record.has_timestamp_ns) {
    const uint32_t micros = static_cast<uint32_t>((record.timestamp_ns % 1000000000u) / 1000u);
    if (micros != 0) {
      *p = '.';
      for (int i = 6, v = static_cast<int>(micros); i >= 1; --i, v /= 10) {
        p[i] = static_cast<char>('0' + v % 10);
      }
      p += 7;
    }
  }
  p = canonical_json::WriteRaw("+00:00", p);
  out->append(buf, static_cast<size_t>(p - buf));
}

// `"source": {"device": D, "file": F, "inode": I, "offset": ` of the last
// source seen: the same for every line of a file, so built once per file.
class SourcePrefix {
 public:
  std::string_view Get(const SourceRef& source) {
    if (text_.empty() || source.device != device_ || source.inode != inode_ ||
        source.file != file_) {
      Build(source);
    }
    return text_;
  }

 private:
  void Build(const SourceRef& source) {
    file_ = source.file;
    device_ = source.device;
    inode_ = source.inode;
    text_ = "\"source\": {\"device\": ";
    canonical_json::AppendUint(source.device, &text_);
    text_.append(", \"file\": ");
    if (!canonical_json::AppendString(source.file, &text_)) {
      // A path that is not UTF-8 cannot be JSON text; keep the entry and
      // mark the path (device and inode still identify the file).
      text_.append("\"<path not UTF-8>\"");
    }
    text_.append(", \"inode\": ");
    canonical_json::AppendUint(source.inode, &text_);
    text_.append(", \"offset\": ");
  }

  std::string file_;
  uint64_t device_ = 0;
  uint64_t inode_ = 0;
  std::string text_;
};

SourcePrefix& ThreadSourcePrefix() {
  thread_local SourcePrefix prefix;
  return prefix;
}

// Assigns only when different: the labels are the same for every line of a
// source, and comparing is cheaper than copying.
void SetString(std::string_view value, std::string* out) {
  if (*out != value) out->assign(value.data(), value.size());
}

void SetNullable(const audit_entry::NullableString& value, audit_entry::NullableString* out) {
  if (value && *out) {
    SetString(*value, &**out);
  } else {
    *out = value;
  }
}

}  // namespace

std::string EntryTimestamp(const ValidRecord& record) {
  std::string out;
  AppendEntryTimestamp(record, &out);
  return out;
}

void MapRecord(const ValidRecord& record, const SourceLabels& labels, const SourceRef& source,
               audit_entry::AuditEntryFields* out) {
  out->entry_id.clear();  // derived when the entry is signed (AppendNew)
  out->timestamp.clear();
  AppendEntryTimestamp(record, &out->timestamp);
  SetString("command_denied", &out->event_type);
  SetNullable(labels.agent_did, &out->agent_did);
  SetString("exec", &out->action);
  SetString(record.binary, &out->resource);
  out->target_did.reset();
  SetString("denied", &out->outcome);
  SetString("deny", &out->policy_decision);
  SetString("command_denylist", &out->matched_rule);
  out->trace_id.reset();
  SetNullable(labels.session_id, &out->session_id);
  if (out->sandbox_id) {
    SetString(labels.sandbox_id, &*out->sandbox_id);
  } else {
    out->sandbox_id = labels.sandbox_id;
  }
  SetNullable(labels.environment, &out->environment);
  SetNullable(labels.compute_driver, &out->compute_driver);

  // data: the record's members (already canonical) with "source" merged in
  // at its sorted place, before "timestamp" (every key after "source" sorts
  // at or after it). Written into room sized for the longest possible text.
  const std::string_view source_prefix = ThreadSourcePrefix().Get(source);
  std::string& data = out->data_canonical;
  data.resize(record.canonical_bytes + source_prefix.size() + canonical_json::kMaxUintBytes +
              record_validator::kRecordKeyCount * 24 + 32);
  char* p = &data[0];
  *p++ = '{';
  const auto write_source = [&](char* at) {
    at = canonical_json::WriteRaw(source_prefix, at);
    at = canonical_json::WriteUint(source.offset, at);
    *at++ = '}';
    return at;
  };
  const std::string_view members(record.canonical.data(), record.canonical_bytes);
  if (record.members_sorted) {
    // The common case: the members are the sorted body already; "source"
    // goes where the first key after it starts.
    size_t split = members.size();
    for (int k = record_validator::kTimestamp; k < record_validator::kRecordKeyCount; ++k) {
      if (record.present(k)) {
        const size_t key_at = record.member_begin[k];
        split = key_at == 0 ? 0 : key_at - 2;  // at its ", "
        break;
      }
    }
    p = canonical_json::WriteRaw(members.substr(0, split), p);
    if (split > 0) p = canonical_json::WriteRaw(", ", p);
    p = write_source(p);
    if (split == 0 && !members.empty()) p = canonical_json::WriteRaw(", ", p);
    p = canonical_json::WriteRaw(members.substr(split), p);
  } else {
    bool first = true;
    for (int k = 0; k < record_validator::kRecordKeyCount; ++k) {
      if (k == record_validator::kTimestamp) {
        if (!first) p = canonical_json::WriteRaw(", ", p);
        first = false;
        p = write_source(p);
      }
      if (!record.present(k)) continue;
      if (!first) p = canonical_json::WriteRaw(", ", p);
      first = false;
      const size_t key_at = record.member_begin[k];
      p = canonical_json::WriteRaw(
          members.substr(key_at, record.value_begin[k] + record.value_length[k] - key_at), p);
    }
  }
  *p++ = '}';
  data.resize(static_cast<size_t>(p - data.data()));
}

}  // namespace entry_mapper
