#include "audit_verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <string.h>
#include <unistd.h>

#include <rapidjson/document.h>

#include <unordered_map>

#include "canonical_json.h"
#include "logs.h"
#include "tail/line_reader.h"
#include "unique_fd.h"

namespace audit_verifier {
namespace {

// Bytes read at a time (the buffer grows beyond it only for a longer line).
constexpr size_t kReadChunk = 256 * 1024;


// The 19 fields of a SignedAuditEntry; nullable ones may be null.
struct FieldRow {
  const char* name;
  bool nullable;
  std::string audit_entry::AuditEntryFields::*text;
  audit_entry::NullableString audit_entry::AuditEntryFields::*maybe;
};
using F = audit_entry::AuditEntryFields;
const FieldRow kFields[] = {
    {"entry_id", false, &F::entry_id, nullptr},
    {"timestamp", false, &F::timestamp, nullptr},
    {"event_type", false, &F::event_type, nullptr},
    {"agent_did", true, nullptr, &F::agent_did},
    {"action", false, &F::action, nullptr},
    {"resource", false, &F::resource, nullptr},
    {"target_did", true, nullptr, &F::target_did},
    {"outcome", false, &F::outcome, nullptr},
    {"policy_decision", false, &F::policy_decision, nullptr},
    {"matched_rule", false, &F::matched_rule, nullptr},
    {"trace_id", true, nullptr, &F::trace_id},
    {"session_id", true, nullptr, &F::session_id},
    {"sandbox_id", true, nullptr, &F::sandbox_id},
    {"environment", true, nullptr, &F::environment},
    {"compute_driver", true, nullptr, &F::compute_driver},
};
// Besides those: data (object), content_hash, previous_hash, signature.
constexpr size_t kFieldCount = sizeof kFields / sizeof kFields[0] + 4;

bool GetString(const rapidjson::Value& obj, const char* name, std::string* out,
               std::string* reason) {
  const auto it = obj.FindMember(name);
  if (it == obj.MemberEnd()) {
    *reason = std::string("missing field \"") + name + "\"";
    return false;
  }
  if (!it->value.IsString()) {
    *reason = std::string("field \"") + name + "\" is not a string";
    return false;
  }
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

bool IsLowerHex64(const std::string& s) {
  if (s.size() != chain_signer::kHashHexLength) return false;
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// data.labels is the signed copy of the three labels upstream's payload
// leaves unsigned (agt-audit-jsonl(5)); an entry whose outer labels differ
// from it was edited after signing. Upstream's own entries have no copy.
bool LabelsAgree(const rapidjson::Value& copy, const audit_entry::AuditEntryFields& fields,
                 std::string* reason) {
  if (!copy.IsObject()) {
    *reason = "data.labels is not an object";
    return false;
  }
  const struct {
    const char* name;
    const audit_entry::NullableString& outer;
  } labels[] = {{"compute_driver", fields.compute_driver},
                {"environment", fields.environment},
                {"sandbox_id", fields.sandbox_id}};
  for (const auto& label : labels) {
    const auto it = copy.FindMember(label.name);
    const bool agree =
        it != copy.MemberEnd() &&
        (it->value.IsNull() ? !label.outer
                            : it->value.IsString() && label.outer &&
                                  std::string_view(it->value.GetString(),
                                                   it->value.GetStringLength()) == *label.outer);
    if (!agree) {
      *reason = std::string("field \"") + label.name +
                "\" disagrees with its signed copy in data.labels (edited after signing)";
      return false;
    }
  }
  return true;
}

}  // namespace

bool VerifyLine(std::string_view line, const std::string* expected_previous_hash,
                chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason) {
  // RapidJSON's length-bounded parse takes a NUL byte for the end of the
  // text, so "{...}\0junk" would pass; Python's json.loads (upstream's
  // verifier) rejects it. A raw NUL is never valid JSON anywhere in a line.
  if (line.find('\0') != std::string_view::npos) {
    *reason = "not a JSON object (a NUL byte in the line)";
    return false;
  }
  rapidjson::Document doc;
  constexpr unsigned kFlags = rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag;
  doc.Parse<kFlags>(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    *reason = "not a JSON object";
    return false;
  }
  if (doc.MemberCount() != kFieldCount) {
    *reason = "has " + std::to_string(doc.MemberCount()) + " fields, a SignedAuditEntry has " +
              std::to_string(kFieldCount);
    return false;
  }
  audit_entry::AuditEntryFields fields;
  for (const FieldRow& row : kFields) {
    const auto it = doc.FindMember(row.name);
    if (it == doc.MemberEnd()) {
      *reason = std::string("missing field \"") + row.name + "\"";
      return false;
    }
    const rapidjson::Value& v = it->value;
    if (row.nullable && v.IsNull()) continue;  // optional stays empty: null
    if (!v.IsString()) {
      *reason = std::string("field \"") + row.name + "\" is not a string" +
                (row.nullable ? " or null" : "");
      return false;
    }
    std::string s(v.GetString(), v.GetStringLength());
    if (row.nullable) {
      fields.*row.maybe = std::move(s);
    } else {
      fields.*row.text = std::move(s);
    }
  }
  const auto data = doc.FindMember("data");
  if (data == doc.MemberEnd() || !data->value.IsObject()) {
    *reason = "field \"data\" is missing or not an object";
    return false;
  }
  fields.data_canonical.clear();
  std::string err;
  if (!canonical_json::AppendValue(data->value, &fields.data_canonical, &err)) {
    *reason = "field \"data\": " + err;
    return false;
  }
  std::string signature;
  if (!GetString(doc, "content_hash", &facts->content_hash, reason) ||
      !GetString(doc, "previous_hash", &facts->previous_hash, reason) ||
      !GetString(doc, "signature", &signature, reason)) {
    return false;
  }
  facts->entry_id = fields.entry_id;

  std::string payload;
  if (!chain_signer::AppendPayload(fields, facts->previous_hash, &payload)) {
    *reason = "a field is not valid UTF-8";
    return false;
  }
  std::string computed;
  if (!hasher->Sha256Hex(payload, &computed, reason)) return false;
  if (computed != facts->content_hash) {
    *reason = "content_hash does not match the entry's content";
    return false;
  }
  if (expected_previous_hash != nullptr && facts->previous_hash != *expected_previous_hash) {
    *reason = "previous_hash does not link to the previous entry";
    return false;
  }
  std::string mac;
  if (!hasher->HmacHex(facts->content_hash, &mac, reason)) return false;
  if (!IsLowerHex64(signature) ||
      CRYPTO_memcmp(mac.data(), signature.data(), mac.size()) != 0) {
    *reason = "signature does not match (wrong key or altered entry)";
    return false;
  }
  const auto copy = data->value.FindMember("labels");
  return copy == data->value.MemberEnd() || LabelsAgree(copy->value, fields, reason);
}

namespace {

// A receiver's rebuilt file: what each line is, given the entries so far.
class DuplicateFilter {
 public:
  enum Kind { kNext, kNewChain, kDuplicate, kBroken };

  Kind Check(std::string_view line, const std::string& previous, chain_signer::Hasher* hasher,
             LineFacts* facts, std::string* reason) {
    if (!VerifyLine(line, nullptr, hasher, facts, reason)) return kBroken;
    const auto it = seen_.find(facts->entry_id);
    if (it != seen_.end()) {
      if (it->second == facts->content_hash) return kDuplicate;
      *reason = facts->entry_id + " appears again with other content";
      return kBroken;
    }
    const bool new_chain = facts->previous_hash.empty();
    if (!new_chain && facts->previous_hash != previous) {
      *reason = facts->entry_id +
                ": previous_hash does not link to the previous entry (an entry before it is "
                "missing or was edited)";
      return kBroken;
    }
    seen_.emplace(facts->entry_id, facts->content_hash);
    return new_chain ? kNewChain : kNext;
  }

 private:
  std::unordered_map<std::string, std::string> seen_;  // entry_id -> content_hash
};

}  // namespace

VerifyResult VerifyAuditFile(const std::string& path, std::string_view key, VerifyReport* report,
                             std::string* err, bool drop_duplicates, progress::Meter* meter) {
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) {
    *err = logs::ErrnoReason("open", path);
    return VerifyResult::kCannotOpen;
  }
  return VerifyAuditFd(fd.get(), path, key, nullptr, report, err, drop_duplicates, meter);
}

VerifyResult VerifyAuditFd(int fd, const std::string& path, std::string_view key,
                           const LineObserver* observer, VerifyReport* report, std::string* err,
                           bool drop_duplicates, progress::Meter* meter) {
  chain_signer::Hasher hasher;
  if (!hasher.Init(key, err)) return VerifyResult::kError;
  line_reader::Reader reader(kReadChunk, kMaxEntryLineBytes);
  line_reader::Position pos;
  std::string previous;
  LineFacts facts;
  DuplicateFilter duplicates;
  uint64_t line_number = 0;
  VerifyResult result = VerifyResult::kValid;
  std::string read_err;
  const line_reader::ReadResult r = reader.Read(
      fd, &pos,
      [&](const line_reader::Item& item) {
        ++line_number;
        if (meter != nullptr) meter->Update(line_number, item.end);
        std::string reason;
        if (item.kind == line_reader::Item::Kind::kRejected) {
          reason = item.rejection == line_reader::Rejection::kTooLong
                       ? "line longer than " + std::to_string(kMaxEntryLineBytes >> 20) + " MiB"
                       : line_reader::Describe(item.rejection);
        } else if (drop_duplicates) {
          switch (duplicates.Check(item.line, previous, &hasher, &facts, &reason)) {
            case DuplicateFilter::kDuplicate:
              ++report->duplicates;
              return true;
            case DuplicateFilter::kNewChain:
              ++report->chains;
              [[fallthrough]];
            case DuplicateFilter::kNext:
              previous.swap(facts.content_hash);
              ++report->entries;
              report->good_bytes = item.end;
              return true;
            case DuplicateFilter::kBroken:
              break;
          }
        } else if (VerifyLine(item.line, &previous, &hasher, &facts, &reason)) {
          ++report->entries;
          report->good_bytes = item.end;
          if (observer != nullptr) (*observer)(line_number, facts, report->good_bytes);
          previous.swap(facts.content_hash);
          return true;
        }
        report->broken_line = line_number;
        report->broken_offset = item.offset;
        report->broken_reason = reason;
        result = VerifyResult::kBroken;
        return false;  // the first broken line ends the check
      },
      &read_err);
  if (r == line_reader::ReadResult::kError) {
    *err = path + ": " + read_err;
    result = VerifyResult::kError;
  } else if (r == line_reader::ReadResult::kEndOfData &&
             line_reader::Reader::PendingBytes(fd, pos) > 0) {
    report->broken_line = line_number + 1;
    report->broken_offset = pos.offset;
    report->torn = true;
    report->broken_reason = "incomplete last line (no newline)";
    result = VerifyResult::kBroken;
  }
  report->last_content_hash = previous;
  return result;
}

}  // namespace audit_verifier
