// Strict validation of one shim record line (see agt-audit-jsonl(5) and the
// shim's record contract). Every byte is written by a hostile sandbox: each
// rejection carries a reason, and one bad line never affects the next.
#ifndef AGT_COLLECTOR_RECORD_VALIDATOR_H_
#define AGT_COLLECTOR_RECORD_VALIDATOR_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace record_validator {

// The record vocabulary, in byte-sorted key order (the order the canonical
// serialisation needs). Upstream's Python shim writes only kArgv, kBinary,
// kEvent, kIssue and kTimestamp; the others are optional enrichment.
enum RecordKey : int {
  kArgc,
  kArgv,
  kArgv0,
  kBinary,
  kConfined,
  kEvent,
  kGid,
  kHost,
  kIssue,
  kPath,
  kPid,
  kPpid,
  kRedactions,
  kScript,
  kTimestamp,
  kTimestampNs,
  kTruncated,
  kUid,
  kVersion,
  kVia,
  kRecordKeyCount
};
// The key name, e.g. "timestamp_ns".
const char* RecordKeyName(int key);
// The help text of the key (same table the man page follows).
const char* RecordKeyHelp(int key);

struct Limits {
  size_t max_line_bytes = 64 * 1024;  // the line reader enforces this one
  size_t max_argv_entries = 4096;
  size_t max_argv_bytes = 32 * 1024;  // sum of the decoded argument lengths
};

// A validated record. Reuse one instance across lines: the buffers keep their
// capacity, so steady-state validation does not allocate.
struct ValidRecord {
  // Canonical JSON text of a present member's value (see canonical_json.h),
  // e.g. value(kArgv) == R"(["-sSL", "x"])"; meaningful only where
  // present(key), valid until the next ValidateRecord() on this record.
  std::string_view value(int key) const {
    return std::string_view(canonical.data() + value_begin[key], value_length[key]);
  }
  uint32_t present_mask = 0;
  bool present(int key) const { return (present_mask >> key) & 1u; }

  std::string binary;         // decoded; plausible command name or "unknown"
  std::string timestamp;      // "YYYY-MM-DDTHH:MM:SSZ", a real UTC instant
  int64_t epoch_seconds = 0;  // of `timestamp`
  bool has_timestamp_ns = false;
  uint64_t timestamp_ns = 0;  // consistent with `timestamp` (same second)

  // All members' canonical text in arrival order, `"key": value` joined by
  // ", ": one buffer sized once per line instead of one string per member.
  std::string canonical;
  std::array<uint32_t, kRecordKeyCount> value_begin{};
  std::array<uint32_t, kRecordKeyCount> value_length{};
  // Where each member's `"key"` starts: canonical[member_begin[k], end of
  // value(k)) is the member; a ", " precedes it unless it came first.
  std::array<uint32_t, kRecordKeyCount> member_begin{};
  // The members arrived in sorted key order, as the shim and upstream write
  // them: canonical[0, canonical_bytes) is then the body of the sorted
  // object as is, and the mapper copies it in two pieces, not key by key.
  bool members_sorted = false;
  size_t canonical_bytes = 0;  // used part of `canonical`
  std::string scratch;         // the validator's working copy of the line
};

// Why a line was rejected, as a small closed set (the metrics' `reason`
// label; the text reason says more). The line reader's two reasons are in
// it too, so one bounded set names every rejected line (ProblemOf).
enum class Problem {
  kNone,
  kTooLong,       // longer than the line limit
  kNulBytes,      // a run of NUL bytes (the line reader's)
  kEmpty,         // an empty line
  kNotUtf8,       // bytes that are not UTF-8
  kNotJson,       // not one JSON object alone on the line
  kCutRecord,     // the line ends inside the object (a short append)
  kUnknownKey,    // a key outside the vocabulary
  kDuplicateKey,  // a key twice
  kWrongType,     // a value of the wrong type, or nested deeper than the schema
  kArgvTooLarge,  // argv over its entry or byte limit
  kMissingKey,    // a required key absent
  kBadValue,      // event, binary, timestamp or timestamp_ns not as the shim writes it
  kInternal,      // a bound the validator checks on itself
  kProblemCount
};
// "too_long", "nul_bytes", ...: stable, for metric labels.
const char* ProblemLabel(Problem problem);

// Validates one line (without its '\n'). On success fills *out; on failure
// returns false with a one-line reason that never echoes record content
// beyond a short, escaped key name, and (when `problem` is not null) its kind.
bool ValidateRecord(std::string_view line, const Limits& limits, ValidRecord* out,
                    std::string* reason, Problem* problem = nullptr);

// Helpers the validator uses, exposed for the config and for tests.
bool IsPlausibleCommandName(std::string_view name);
// Parses "YYYY-MM-DDTHH:MM:SSZ" into seconds since the epoch; false unless it
// names a real instant (month/day ranges, leap years, 00-23:00-59:00-59).
bool ParseShimTimestamp(std::string_view text, int64_t* epoch_seconds);

}  // namespace record_validator

#endif  // AGT_COLLECTOR_RECORD_VALIDATOR_H_
