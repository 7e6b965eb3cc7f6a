// Verifies a signed audit JSONL file the way upstream AGT's HashChainVerifier
// does: per line, recompute content_hash over the canonical payload, check
// previous_hash links to the previous line and the HMAC signature.
#ifndef AGT_COLLECTOR_AUDIT_VERIFIER_H_
#define AGT_COLLECTOR_AUDIT_VERIFIER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "canonical_json_form.h"
#include "canonical_json_stream.h"
#include "chain_signer.h"
#include "progress.h"

namespace audit_verifier {

// The longest entry line read back (verify, resuming a chain): a record
// line may be up to 16 MiB (the largest configurable limit) and its
// canonical text up to three times that (a 2-byte UTF-8 character becomes
// a 6-byte \uXXXX escape), plus the entry's other fields.
constexpr size_t kMaxEntryLineBytes = 64u << 20;

enum class VerifyResult { kValid, kBroken, kCannotOpen, kError };

struct VerifyReport {
  uint64_t entries = 0;        // lines verified good
  uint64_t broken_line = 0;    // 1-based, when kBroken
  uint64_t broken_offset = 0;  // its first byte, when kBroken
  std::string broken_reason;   // when kBroken
  std::string last_content_hash;
  uint64_t good_bytes = 0;   // the end of the last line verified good
  bool torn = false;         // kBroken only by an incomplete last line (no newline)
  uint64_t duplicates = 0;   // drop_duplicates: identical entries seen again, dropped
  uint64_t chains = 0;       // drop_duplicates: chains (a rotated file starts a new one)
  uint64_t torn_writes = 0;  // drop_duplicates: writes cut short, each entry found whole after
};

struct LineFacts {
  std::string entry_id;
  std::string content_hash;
  std::string previous_hash;
};

// Checks one line: all 19 fields with their types, content_hash recomputed
// over the canonical payload, the HMAC signature (`hasher` holds the key),
// and, unless `expected_previous_hash` is null, the link to the previous
// line. Used by the verifier and by the writer when resuming a file.
bool VerifyLine(std::string_view line, const std::string* expected_previous_hash,
                chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason);

// VerifyLine for many lines: one SAX pass per line (no value tree), its
// buffers kept from line to line. A line already in canonical form (every
// line this project or upstream writes) is checked to be so as it is parsed
// (canonical_json_form.h), and its payload hashed from the line's own bytes;
// any other line is parsed again the general way (its "data" canonicalised
// by canonical_json_stream.h), which gives the same verdict for both kinds.
class LineChecker {
 public:
  static constexpr size_t kFieldCount = 19;  // of a SignedAuditEntry

  // `take_canonical` false: every line the general way (the tests and the
  // fuzz harness hold both ways to the same verdicts).
  explicit LineChecker(bool take_canonical = true) : take_canonical_(take_canonical) {}

  bool Check(std::string_view line, const std::string* expected_previous_hash,
             chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason);
  // Whether the last line was taken as canonical, its payload hashed in place.
  bool last_canonical() const { return canonical_; }

 private:
  template <bool kCanonical>
  class Handler;
  // A field's first value in the line (the type is all a non-string needs).
  struct Seen {
    enum Type : uint8_t { kAbsent, kString, kNull, kObjectData, kOther } type = kAbsent;
    std::string_view text;  // kString: into copy_
  };
  // One parse of the line into seen_, labels_ and label_: `canonical`,
  // with form_ checking every byte (false as soon as one is not canonical),
  // else the general way, with data_ canonicalising "data". False when the
  // parse failed or the line is not an object.
  bool Parse(std::string_view line, bool canonical);
  // Check() but for the line's encoding; `printable`: the line is printable
  // ASCII (then it may be canonical).
  bool CheckParsed(std::string_view line, bool printable, const std::string* expected_previous_hash,
                   chain_signer::Hasher* hasher, LineFacts* facts, std::string* reason);
  // content_hash's text into computed_: from the line's own bytes when it
  // is canonical, else from the fields and data_'s text.
  bool HashPayload(std::string_view line, std::string_view previous_hash,
                   chain_signer::Hasher* hasher, std::string* reason);
  // After CheckParsed: false when data.labels is absent and an outer label
  // is not UTF-8.
  bool OuterLabelsUtf8() const;
  // The outer labels against their signed copy in data.labels, if any.
  bool LabelsAgree(std::string* reason) const;

  Seen seen_[kFieldCount];
  Seen labels_;    // data.labels (kObjectData when an object)
  Seen label_[3];  // its compute_driver, environment, sandbox_id
  size_t members_ = 0;
  bool root_object_ = false;
  // The canonical parse: where each top-level member starts (its ", "), in
  // line order, which field it is, and where the closing brace is.
  bool take_canonical_;
  bool canonical_ = false;
  uint32_t member_begin_[kFieldCount] = {};
  int8_t member_slot_[kFieldCount] = {};
  uint32_t members_end_ = 0;
  std::string copy_, payload_, computed_, mac_;
  audit_entry::AuditEntryFields fields_;
  canonical_json::StreamWriter data_;
  canonical_json::FormCheck form_;
};

// kCannotOpen / kError (with *err) for I/O problems; a bad line is kBroken.
// drop_duplicates (a file a receiver rebuilt from forwarded messages): an
// entry whose entry_id was seen before is dropped when it is the same
// entry (same content_hash, valid signature), and is a break otherwise; an
// entry with an empty previous_hash starts a new chain (the forwarder went
// on to a rotated-in audit file) and is counted in report->chains; a line
// that is a write cut short and then a whole entry (torn_writes.h) counts in
// report->torn_writes once an entry after it begins with the cut-short bytes,
// and is a break if none does.
// `meter` (may be null) is told the entries and bytes read as it goes.
VerifyResult VerifyAuditFile(const std::string& path, std::string_view key, VerifyReport* report,
                             std::string* err, bool drop_duplicates = false,
                             progress::Meter* meter = nullptr);

// Told of each line verified good: its number (1-based), what it holds and
// the offset just past its newline.
using LineObserver =
    std::function<void(uint64_t number, const LineFacts& facts, uint64_t end_offset)>;

// The same over a file already open at `fd` (read from offset 0), named
// `path` in messages; `observer` may be null.
VerifyResult VerifyAuditFd(int fd, const std::string& path, std::string_view key,
                           const LineObserver* observer, VerifyReport* report, std::string* err,
                           bool drop_duplicates = false, progress::Meter* meter = nullptr);

}  // namespace audit_verifier

#endif  // AGT_COLLECTOR_AUDIT_VERIFIER_H_
