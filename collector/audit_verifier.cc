#include "audit_verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <string.h>
#include <unistd.h>

#include <rapidjson/reader.h>

#include <unordered_map>

#include "canonical_json.h"
#include "json_insitu_stream.h"
#include "logs.h"
#include "tail/line_reader.h"
#include "torn_writes.h"
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
constexpr FieldRow kFields[] = {
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

// Where each of the 19 fields is in kFields order, then the four others.
constexpr int kData = sizeof kFields / sizeof kFields[0];
constexpr int kContentHash = kData + 1;
constexpr int kPreviousHash = kData + 2;
constexpr int kSignature = kData + 3;
constexpr int kNoSlot = -1;
constexpr const char* kOtherFields[] = {"data", "content_hash", "previous_hash", "signature"};

constexpr int SlotOf(std::string_view name) {
  for (int i = 0; i < kData; ++i) {
    if (name == kFields[i].name) return i;
  }
  for (int i = 0; i < 4; ++i) {
    if (name == kOtherFields[i]) return kData + i;
  }
  return kNoSlot;
}

constexpr int kEntryId = SlotOf("entry_id");

// data.labels is the signed copy of the three labels upstream's payload
// leaves unsigned (agt-audit-jsonl(5)); an entry whose outer labels differ
// from it was edited after signing. Upstream's own entries have no copy.
constexpr const char* kLabels[] = {"compute_driver", "environment", "sandbox_id"};
constexpr int kLabelSlots[] = {SlotOf(kLabels[0]), SlotOf(kLabels[1]), SlotOf(kLabels[2])};
static_assert(sizeof kLabels / sizeof kLabels[0] == 3, "LineChecker::label_ has a slot per label");

template <typename Word>
Word WordAt(std::string_view s, size_t at) {
  Word w;
  memcpy(&w, s.data() + at, sizeof w);
  return w;
}

// Field names are short (at most 16 bytes each, every key of a line is
// compared): two words, the first and the last (overlapping), beat a byte
// loop and a call to memcmp.
bool SameBytes(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n > 16) return memcmp(a.data(), b.data(), n) == 0;
  if (n >= 8) {
    return WordAt<uint64_t>(a, 0) == WordAt<uint64_t>(b, 0) &&
           WordAt<uint64_t>(a, n - 8) == WordAt<uint64_t>(b, n - 8);
  }
  if (n >= 4) {
    return WordAt<uint32_t>(a, 0) == WordAt<uint32_t>(b, 0) &&
           WordAt<uint32_t>(a, n - 4) == WordAt<uint32_t>(b, n - 4);
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

int LabelSlotOf(std::string_view name) {
  for (int i = 0; i < 3; ++i) {
    if (name == kLabels[i]) return i;
  }
  return kNoSlot;
}

// The fields in key order, as a canonical line holds them: a canonical
// parse expects each key in its turn (one compare, no search).
constexpr std::string_view kKeyOrder[] = {
    "action",          "agent_did",     "compute_driver", "content_hash", "data",
    "entry_id",        "environment",   "event_type",     "matched_rule", "outcome",
    "policy_decision", "previous_hash", "resource",       "sandbox_id",   "session_id",
    "signature",       "target_did",    "timestamp",      "trace_id"};
struct KeyOrderSlots {
  int slot[sizeof kKeyOrder / sizeof kKeyOrder[0]] = {};
  bool valid = true;  // every field once, in key order
  constexpr KeyOrderSlots() {
    for (size_t i = 0; i < sizeof kKeyOrder / sizeof kKeyOrder[0]; ++i) {
      slot[i] = SlotOf(kKeyOrder[i]);
      if (slot[i] == kNoSlot || (i > 0 && !(kKeyOrder[i - 1] < kKeyOrder[i]))) valid = false;
    }
  }
};
constexpr KeyOrderSlots kKeyOrderSlots;
static_assert(kKeyOrderSlots.valid, "kKeyOrder: each field once, in key order");

// The members upstream's payload leaves out: the three labels and the two
// values computed from it (chain_signer.h).
constexpr bool Signed(int slot) {
  return slot != kContentHash && slot != kSignature && slot != kLabelSlots[0] &&
         slot != kLabelSlots[1] && slot != kLabelSlots[2];
}

}  // namespace

static_assert(kSignature + 1 == LineChecker::kFieldCount &&
                  sizeof kKeyOrder / sizeof kKeyOrder[0] == LineChecker::kFieldCount,
              "LineChecker::seen_ has a slot per field");

// SAX handler for one entry line: keeps the first value of each field (as
// the value tree's FindMember did), counts the members and keeps the first
// value of each label in data.labels. kCanonical: every event is first
// held to the canonical form by a FormCheck, and the first that is not
// stops the parse; else "data" is canonicalised as it goes by and the
// parse is never stopped: every check is made after, in the order the
// reasons have always been given. (A template: the canonical parse, the
// one every good line takes, carries no test for the other.)
template <bool kCanonical>
class LineChecker::Handler
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler<kCanonical>> {
 public:
  Handler(LineChecker* c, canonical_json::FormCheck* form) : c_(c), form_(form) {}

  bool Null() {
    return (!kCanonical || form_->Null()) && Value(Seen::kNull, {}, [&] { c_->data_.Null(); });
  }
  bool Bool(bool b) {
    return (!kCanonical || form_->Bool(b)) && Value(Seen::kOther, {}, [&] { c_->data_.Bool(b); });
  }
  bool Int(int i) { return Int64(i); }
  bool Uint(unsigned u) { return Uint64(u); }
  bool Int64(int64_t i) {
    return (!kCanonical || form_->Int64(i)) && Value(Seen::kOther, {}, [&] { c_->data_.Int64(i); });
  }
  bool Uint64(uint64_t u) {
    return (!kCanonical || form_->Uint64(u)) &&
           Value(Seen::kOther, {}, [&] { c_->data_.Uint64(u); });
  }
  bool Double(double) {
    return (!kCanonical || form_->Double()) && Value(Seen::kOther, {}, [&] { c_->data_.Double(); });
  }
  bool String(const char* str, rapidjson::SizeType length, bool) {
    const std::string_view s(str, length);
    return (!kCanonical || form_->String(str, length)) &&
           Value(Seen::kString, s, [&] { c_->data_.String(s); });
  }
  bool Key(const char* str, rapidjson::SizeType length, bool) {
    if (in_data_) {
      if (kCanonical && !form_->Key(str, length)) return false;
      const std::string_view key(str, length);
      if (!kCanonical) c_->data_.Key(key);
      if (depth_ == 2) {
        labels_next_ = SameBytes(key, "labels") && c_->labels_.type == Seen::kAbsent;
      } else if (depth_ == 3 && in_labels_) {
        label_slot_ = LabelSlotOf(key);
      }
      return true;
    }
    if (depth_ == 1) {
      if (kCanonical) {
        // Canonical: the 19 fields, each once, in key order.
        const size_t i = c_->members_;
        if (i == kFieldCount || !SameBytes(std::string_view(str, length), kKeyOrder[i])) {
          return false;
        }
        slot_ = kKeyOrderSlots.slot[i];
        c_->member_begin_[i] = static_cast<uint32_t>(form_->offset());
        c_->member_slot_[i] = static_cast<int8_t>(slot_);
      } else {
        slot_ = SlotOf(std::string_view(str, length));
      }
      ++c_->members_;
    }
    return !kCanonical || form_->Key(str, length);
  }
  bool StartObject() { return (!kCanonical || form_->StartObject()) && Start(true); }
  bool StartArray() { return (!kCanonical || form_->StartArray()) && Start(false); }
  bool EndObject(rapidjson::SizeType) {
    if (kCanonical) {
      if (depth_ == 1) c_->members_end_ = static_cast<uint32_t>(form_->offset());
      if (!form_->EndObject()) return false;
    }
    return End(true);
  }
  bool EndArray(rapidjson::SizeType) { return (!kCanonical || form_->EndArray()) && End(false); }

 private:
  template <typename ForData>
  bool Value(Seen::Type type, std::string_view text, ForData for_data) {
    if (in_data_) {
      if (!kCanonical) for_data();
      if (depth_ == 2 && labels_next_) {
        c_->labels_ = {Seen::kOther, {}};
        labels_next_ = false;
      } else if (depth_ == 3 && in_labels_) {
        RecordLabel(type, text);
      }
    } else if (depth_ == 1) {
      Record(type, text);
    } else if (depth_ == 0) {
      c_->root_object_ = false;
    }
    return true;
  }
  void Record(Seen::Type type, std::string_view text) {
    if (slot_ != kNoSlot && c_->seen_[slot_].type == Seen::kAbsent) {
      c_->seen_[slot_] = {type, text};
    }
  }
  void RecordLabel(Seen::Type type, std::string_view text) {
    if (label_slot_ != kNoSlot && c_->label_[label_slot_].type == Seen::kAbsent) {
      c_->label_[label_slot_] = {type, text};
    }
  }
  bool Start(bool object) {
    if (in_data_) {
      if (!kCanonical) object ? c_->data_.StartObject() : c_->data_.StartArray();
      if (depth_ == 2 && labels_next_) {
        c_->labels_ = {object ? Seen::kObjectData : Seen::kOther, {}};
        in_labels_ = object;
        labels_next_ = false;
      } else if (depth_ == 3 && in_labels_) {
        RecordLabel(Seen::kOther, {});
      }
    } else if (depth_ == 0) {
      c_->root_object_ = object;
    } else if (depth_ == 1) {
      if (object && slot_ == kData && c_->seen_[kData].type == Seen::kAbsent) {
        in_data_ = true;
        if (!kCanonical) {
          c_->data_.Reset();
          c_->data_.StartObject();
        }
        Record(Seen::kObjectData, {});
      } else {
        Record(Seen::kOther, {});
      }
    }
    ++depth_;
    return true;
  }
  bool End(bool object) {
    --depth_;
    if (in_data_) {
      if (!kCanonical) object ? c_->data_.EndObject() : c_->data_.EndArray();
      if (depth_ == 2) in_labels_ = false;
      if (depth_ == 1) in_data_ = false;
    }
    return true;
  }

  LineChecker* c_;
  canonical_json::FormCheck* form_;  // kCanonical only
  int depth_ = 0;                    // containers open
  int slot_ = kNoSlot;
  bool in_data_ = false;
  bool labels_next_ = false;  // the next value in data is data.labels
  bool in_labels_ = false;    // inside the data.labels object
  int label_slot_ = kNoSlot;
};

bool LineChecker::Check(std::string_view line, const std::string* expected_previous_hash,
                        chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason) {
  // RapidJSON's parse takes a NUL byte for the end of the text, so
  // "{...}\0junk" would pass; Python's json.loads (upstream's verifier)
  // rejects it. A raw NUL is never valid JSON anywhere in a line.
  // Printable ASCII (as every canonical line is) holds no NUL: the line is
  // searched for one only when it is not.
  const bool printable = take_canonical_ && canonical_json::IsPrintableAscii(line);
  if (!printable && line.find('\0') != std::string_view::npos) {
    *reason = "not a JSON object (a NUL byte in the line)";
    return false;
  }
  // A line that is not UTF-8 is "not a JSON object", whatever else is wrong
  // with it (as when the parser checked the encoding). The parse does not
  // check it: every string a good line holds is checked as strict UTF-8
  // where it is used (canonical data, the payload, the hashes compared),
  // and a decoded string is UTF-8 only if its bytes in the line are (an
  // escape writes whole characters). So the line itself is checked only
  // when it fails, or when an outer label that no signed copy vouches for
  // decodes to other than UTF-8 (an escaped lone surrogate can, in UTF-8 bytes).
  const bool good = CheckParsed(line, printable, expected_previous_hash, hasher, facts, reason);
  if ((!good || !OuterLabelsUtf8()) &&
      canonical_json::FirstInvalidUtf8(line) != std::string_view::npos) {
    *reason = "not a JSON object";
    return false;
  }
  return good;
}

bool LineChecker::OuterLabelsUtf8() const {
  if (labels_.type != Seen::kAbsent) return true;  // checked against data.labels
  for (const int slot : kLabelSlots) {
    const Seen& value = seen_[slot];
    if (value.type == Seen::kString &&
        canonical_json::FirstInvalidUtf8(value.text) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool LineChecker::Parse(std::string_view line, bool canonical) {
  for (Seen& s : seen_) s = Seen();
  for (Seen& s : label_) s = Seen();
  labels_ = Seen();
  members_ = 0;
  root_object_ = false;
  // In-situ parsing of a private copy: strings are decoded in place, and
  // the fields point into it until the next line.
  // Its strings are scanned a block at a time (json_insitu_stream.h): the
  // NUL is followed by the bytes that scan may read ahead.
  copy_.assign(line.data(), line.size());
  copy_.append(1 + json_insitu_stream::kReadAhead, '\0');
  json_insitu_stream::Stream stream(&copy_[0], copy_.size());
  rapidjson::Reader reader;
  // The stream starts at the line's first byte: unlike Document::Parse
  // (whose stream skips a UTF-8 BOM, even a lone 0xEF, 0xBB or 0xBF), no
  // byte is dropped before the parse, so such a line is refused as
  // upstream's Python verifier refuses it. The encoding is checked by
  // Check(), not by the parse.
  if (canonical) {
    // The recursive parse, faster than the iterative one: FormCheck stops
    // it past kMaxFormDepth levels, so its stack stays small.
    form_.ResetPrintable(line, copy_.data());  // Check() found it printable ASCII
    Handler<true> handler(this, &form_);
    constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseStopWhenDoneFlag;
    return !reader.Parse<kFlags>(stream, handler).IsError() && root_object_ &&
           members_ == kFieldCount && form_.Complete();
  }
  // Any nesting a hostile line holds: the iterative parse keeps its stack
  // on the heap.
  Handler<false> handler(this, nullptr);
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseInsituFlag;
  return !reader.Parse<kFlags>(stream, handler).IsError() && root_object_;
}

bool LineChecker::CheckParsed(std::string_view line, bool printable,
                              const std::string* expected_previous_hash,
                              chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason) {
  // A line with a byte canonical text never holds is not worth parsing for
  // the check.
  canonical_ = printable && Parse(line, true);
  if (!canonical_ && !Parse(line, false)) {
    *reason = "not a JSON object";
    return false;
  }
  if (members_ != kFieldCount) {
    *reason = "has " + std::to_string(members_) + " fields, a SignedAuditEntry has " +
              std::to_string(kFieldCount);
    return false;
  }
  for (int i = 0; i < kData; ++i) {
    const FieldRow& row = kFields[i];
    const Seen& v = seen_[i];
    if (v.type == Seen::kAbsent) {
      *reason = std::string("missing field \"") + row.name + "\"";
      return false;
    }
    if (v.type != Seen::kString && !(row.nullable && v.type == Seen::kNull)) {
      *reason = std::string("field \"") + row.name + "\" is not a string" +
                (row.nullable ? " or null" : "");
      return false;
    }
  }
  if (seen_[kData].type != Seen::kObjectData) {
    *reason = "field \"data\" is missing or not an object";
    return false;
  }
  std::string err;
  // A canonical line's data had its every byte checked; the general
  // parse's may still be refused (canonical_json_stream.h).
  if (!canonical_ && !data_.Finish(nullptr, &err)) {  // the text stays in data_: hashed from there
    *reason = "field \"data\": " + err;
    return false;
  }
  for (const int slot : {kContentHash, kPreviousHash, kSignature}) {
    const char* name = kOtherFields[slot - kData];
    if (seen_[slot].type == Seen::kAbsent) {
      *reason = std::string("missing field \"") + name + "\"";
      return false;
    }
    if (seen_[slot].type != Seen::kString) {
      *reason = std::string("field \"") + name + "\" is not a string";
      return false;
    }
  }
  facts->content_hash.assign(seen_[kContentHash].text);
  facts->previous_hash.assign(seen_[kPreviousHash].text);
  const std::string_view signature = seen_[kSignature].text;
  facts->entry_id.assign(seen_[kEntryId].text);

  if (!HashPayload(line, facts->previous_hash, hasher, reason)) return false;
  if (computed_ != facts->content_hash) {
    *reason = "content_hash does not match the entry's content";
    return false;
  }
  if (expected_previous_hash != nullptr && facts->previous_hash != *expected_previous_hash) {
    *reason = "previous_hash does not link to the previous entry";
    return false;
  }
  if (!hasher->HmacHex(facts->content_hash, &mac_, reason)) return false;
  // mac_ is 64 lowercase hex digits: a signature of that length equal to
  // it is too, so its digits need no check of their own.
  if (signature.size() != mac_.size() ||
      CRYPTO_memcmp(mac_.data(), signature.data(), mac_.size()) != 0) {
    *reason = "signature does not match (wrong key or altered entry)";
    return false;
  }
  return LabelsAgree(reason);
}

bool LineChecker::HashPayload(std::string_view line, std::string_view previous_hash,
                              chain_signer::Hasher* hasher, std::string* reason) {
  computed_.resize(chain_signer::kHashHexLength);
  if (!hasher->Sha256Begin(reason)) return false;
  if (canonical_) {
    // The payload is the line without its unsigned members: hashed as the
    // runs of signed ones, where they lie (a member runs from its ", " to
    // the next one's; "action" comes first, after the brace).
    size_t from = 0;
    for (size_t i = 0; i < kFieldCount; ++i) {
      if (Signed(member_slot_[i])) continue;
      if (!hasher->Sha256Update(line.substr(from, member_begin_[i] - from), reason)) return false;
      from = i + 1 < kFieldCount ? member_begin_[i + 1] : members_end_;
    }
    return hasher->Sha256Update(line.substr(from), reason) &&
           hasher->Sha256FinishHex(&computed_[0], reason);
  }
  // The payload is hashed as its head, the data text where it was written
  // and its tail: chain_signer::AppendPayload's text, with no copy of the data.
  for (int i = 0; i < kData; ++i) {
    const FieldRow& row = kFields[i];
    const Seen& v = seen_[i];
    if (!row.nullable) {
      (fields_.*row.text).assign(v.text);
    } else if (v.type == Seen::kNull) {
      (fields_.*row.maybe).reset();
    } else {
      (fields_.*row.maybe).emplace(v.text);
    }
  }
  payload_.clear();
  const bool utf8 = chain_signer::AppendPayloadHead(fields_, &payload_);
  const size_t head_bytes = payload_.size();
  if (!chain_signer::AppendPayloadTail(fields_, previous_hash, &payload_) || !utf8) {
    *reason = "a field is not valid UTF-8";
    return false;
  }
  const std::string_view payload(payload_);
  return hasher->Sha256Update(payload.substr(0, head_bytes), reason) &&
         hasher->Sha256Update(data_.text(), reason) &&
         hasher->Sha256Update(payload.substr(head_bytes), reason) &&
         hasher->Sha256FinishHex(&computed_[0], reason);
}

bool LineChecker::LabelsAgree(std::string* reason) const {
  if (labels_.type == Seen::kAbsent) return true;
  if (labels_.type != Seen::kObjectData) {
    *reason = "data.labels is not an object";
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    const Seen& copy = label_[i];
    const Seen& outer = seen_[kLabelSlots[i]];  // a string or null, checked
    const bool agree = copy.type == Seen::kNull ? outer.type == Seen::kNull
                       : copy.type == Seen::kString
                           ? outer.type == Seen::kString && copy.text == outer.text
                           : false;
    if (!agree) {
      *reason = std::string("field \"") + kLabels[i] +
                "\" disagrees with its signed copy in data.labels (edited after signing)";
      return false;
    }
  }
  return true;
}

bool VerifyLine(std::string_view line, const std::string* expected_previous_hash,
                chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason) {
  LineChecker checker;
  return checker.Check(line, expected_previous_hash, hasher, facts, reason);
}

namespace {

// A receiver's rebuilt file: what each line is, given the entries so far.
class DuplicateFilter {
 public:
  enum Kind { kNext, kNewChain, kDuplicate, kBroken };

  Kind Check(LineChecker* checker, std::string_view line, const std::string& previous,
             chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason) {
    if (!checker->Check(line, nullptr, hasher, facts, reason)) return kBroken;
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

// The lines of a receiver's rebuilt file, in order: whole entries, dropped
// duplicates, and torn writes (torn_writes.h) whose entry must come again.
class RebuiltFile {
 public:
  explicit RebuiltFile(VerifyReport* report) : report_(report) {}

  // False with *reason when the line is none of them.
  bool Take(LineChecker* checker, std::string_view line, uint64_t line_number, uint64_t offset,
            chain_signer::Hasher* hasher, std::string* reason) {
    if (TakeEntry(checker, line, hasher, reason)) return true;
    if (torn_.full()) {
      *reason += "; and " + std::to_string(torn_writes::kMaxPending) +
                 " writes cut short already wait for their entry";
      return false;
    }
    for (const size_t at : torn_writes::SplitPoints(line)) {
      std::string not_whole;
      if (!TakeEntry(checker, line.substr(at), hasher, &not_whole)) continue;
      torn_.Add(line.substr(0, at), line_number, offset);
      torn_.Settle(line.substr(at));  // often the same entry, sent again at once
      return true;
    }
    return false;
  }

  // At the end of the file: a torn write whose entry never came whole is a
  // break (that entry is missing).
  bool Finish(std::string* reason, uint64_t* line_number, uint64_t* offset) {
    report_->torn_writes = torn_.settled();
    if (torn_.empty()) return true;
    const torn_writes::Pending::Fragment& f = torn_.first();
    *line_number = f.line_number;
    *offset = f.offset;
    *reason = "a write cut short (the first " + std::to_string(f.bytes.size()) +
              " bytes of the line, before the entry after them): no whole entry after it "
              "begins with them, so its entry never arrived";
    return false;
  }

  const std::string& previous() const { return previous_; }

 private:
  bool TakeEntry(LineChecker* checker, std::string_view line, chain_signer::Hasher* hasher,
                 std::string* reason) {
    switch (duplicates_.Check(checker, line, previous_, hasher, &facts_, reason)) {
      case DuplicateFilter::kDuplicate: ++report_->duplicates; break;
      case DuplicateFilter::kNewChain: ++report_->chains; [[fallthrough]];
      case DuplicateFilter::kNext:
        previous_.swap(facts_.content_hash);
        ++report_->entries;
        break;
      case DuplicateFilter::kBroken: return false;
    }
    if (!torn_.empty()) torn_.Settle(line);
    return true;
  }

  VerifyReport* report_;
  DuplicateFilter duplicates_;
  torn_writes::Pending torn_;
  LineFacts facts_;
  std::string previous_;
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
  LineChecker checker;
  line_reader::Position pos;
  std::string previous;
  LineFacts facts;
  RebuiltFile rebuilt(report);
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
          if (rebuilt.Take(&checker, item.line, line_number, item.offset, &hasher, &reason)) {
            report->good_bytes = item.end;
            return true;
          }
        } else if (checker.Check(item.line, &previous, &hasher, &facts, &reason)) {
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
  if (drop_duplicates) {
    previous = rebuilt.previous();
    if (result == VerifyResult::kValid &&
        !rebuilt.Finish(&report->broken_reason, &report->broken_line, &report->broken_offset))
      result = VerifyResult::kBroken;
  }
  report->last_content_hash = previous;
  return result;
}

}  // namespace audit_verifier
