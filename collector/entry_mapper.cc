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

// `{"device": D, "file": F, "inode": I, "offset": ` (data.source) of the last
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
    text_ = "{\"device\": ";
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

// data.labels of the last labels seen: the same for every line of a source.
class LabelsCopyCache {
 public:
  std::string_view Get(const SourceLabels& labels) {
    if (text_.empty() || labels.sandbox_id != sandbox_id_ || labels.environment != environment_ ||
        labels.compute_driver != compute_driver_) {
      sandbox_id_ = labels.sandbox_id;
      environment_ = labels.environment;
      compute_driver_ = labels.compute_driver;
      text_ = LabelsCopy(labels);
    }
    return text_;
  }

 private:
  std::string sandbox_id_;
  audit_entry::NullableString environment_, compute_driver_;
  std::string text_;
};

LabelsCopyCache& ThreadLabelsCopy() {
  thread_local LabelsCopyCache cache;
  return cache;
}

// Room reused from entry to entry: no allocation per line in steady state.
struct Scratch {
  std::string source;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// Where data's own members go among the record's (sorted) keys: each
// before the first key that sorts after it. The vocabulary is fixed, so
// this is found once, not by comparing names for every record.
constexpr std::string_view kOwnMembers[] = {"attestation", "labels", "source"};
constexpr size_t kOwnCount = sizeof kOwnMembers / sizeof kOwnMembers[0];
struct OwnPlaces {
  int before[kOwnCount];
};
const OwnPlaces& OwnMemberPlaces() {
  static const OwnPlaces places = [] {
    OwnPlaces p{};
    for (size_t m = 0; m < kOwnCount; ++m) {
      int k = 0;
      while (k < record_validator::kRecordKeyCount &&
             std::string_view(record_validator::RecordKeyName(k)) < kOwnMembers[m]) {
        ++k;
      }
      p.before[m] = k;
    }
    return p;
  }();
  return places;
}

// A label as JSON: a string, or null. Labels are the operator's (checked
// UTF-8) or a plausible sandbox id; a value that still is not UTF-8 is marked.
void AppendLabel(const audit_entry::NullableString& value, std::string* out) {
  if (!value) {
    out->append("null");
  } else if (!canonical_json::AppendString(*value, out)) {
    out->append("\"<label not UTF-8>\"");
  }
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

std::string LabelsCopy(const SourceLabels& labels) {
  std::string text = "{\"compute_driver\": ";
  AppendLabel(labels.compute_driver, &text);
  text.append(", \"environment\": ");
  AppendLabel(labels.environment, &text);
  text.append(", \"sandbox_id\": ");
  AppendLabel(labels.sandbox_id, &text);
  text.push_back('}');
  return text;
}

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

  // data: the record's members (already canonical) with the collector's
  // own members merged in at their sorted places: "attestation", "labels"
  // and "source" (no record key has any of these names: the validator's
  // vocabulary is closed). Written into room sized for the longest text.
  std::string& source_text = ThreadScratch().source;
  source_text.assign(ThreadSourcePrefix().Get(source));
  canonical_json::AppendUint(source.offset, &source_text);
  source_text.push_back('}');
  const std::string_view labels_text = ThreadLabelsCopy().Get(labels);
  const std::string_view attestation =
      source.attestation.empty() ? kNotAttested : source.attestation;
  const std::string_view extras[kOwnCount] = {attestation, labels_text, source_text};
  std::string& data = out->data_canonical;
  data.resize(record.canonical_bytes + attestation.size() + labels_text.size() +
              source_text.size() + record_validator::kRecordKeyCount * 4 + 128);
  char* p = &data[0];
  *p++ = '{';
  bool first = true;
  const auto separate = [&] {
    if (!first) p = canonical_json::WriteRaw(", ", p);
    first = false;
  };
  const auto write_extra = [&](size_t m) {
    separate();
    *p++ = '"';
    p = canonical_json::WriteRaw(kOwnMembers[m], p);
    p = canonical_json::WriteRaw("\": ", p);
    p = canonical_json::WriteRaw(extras[m], p);
  };
  const std::string_view members(record.canonical.data(), record.canonical_bytes);
  const auto member_end = [&](int k) { return record.value_begin[k] + record.value_length[k]; };
  // The record's members whose keys are in [key_from, key_to): when they came in
  // key order (as the shim writes them), they lie in its text in that
  // order, joined by ", ", so they are copied as one piece; else one by one.
  const auto write_members = [&](int key_from, int key_to) {
    if (record.members_sorted) {
      int low = key_from, high = key_to - 1;
      while (low <= high && !record.present(low)) ++low;
      while (high >= low && !record.present(high)) --high;
      if (low > high) return;
      separate();
      const size_t at = record.member_begin[low];
      p = canonical_json::WriteRaw(members.substr(at, member_end(high) - at), p);
      return;
    }
    for (int k = key_from; k < key_to; ++k) {
      if (!record.present(k)) continue;
      separate();
      const size_t at = record.member_begin[k];
      p = canonical_json::WriteRaw(members.substr(at, member_end(k) - at), p);
    }
  };
  const OwnPlaces& places = OwnMemberPlaces();
  int from = 0;
  for (size_t m = 0; m < kOwnCount; ++m) {
    write_members(from, places.before[m]);
    from = places.before[m];
    write_extra(m);
  }
  write_members(from, record_validator::kRecordKeyCount);
  *p++ = '}';
  data.resize(static_cast<size_t>(p - data.data()));
}

}  // namespace entry_mapper
