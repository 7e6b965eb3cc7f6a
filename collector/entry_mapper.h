// Maps a validated shim record to an AGT audit entry (SPEC "Mapping"). The
// labels come from the operator's configuration of the source, never from
// the record, which the sandbox controls.
#ifndef AGT_COLLECTOR_ENTRY_MAPPER_H_
#define AGT_COLLECTOR_ENTRY_MAPPER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "audit_entry.h"
#include "record_validator.h"

namespace entry_mapper {

// Operator-supplied labels of one source (one sandbox's log).
struct SourceLabels {
  std::string sandbox_id;
  audit_entry::NullableString agent_did;  // conventionally "did:agt:sandbox:" + sandbox_id
  audit_entry::NullableString environment;
  audit_entry::NullableString compute_driver;
  audit_entry::NullableString session_id;
};

// Where the line was read: stamped into data.source by the collector.
struct SourceRef {
  std::string file;     // path as configured/watched
  uint64_t device = 0;  // st_dev of the open file
  uint64_t inode = 0;   // st_ino of the open file
  uint64_t offset = 0;  // byte offset of the line's first byte
};

// The default agent DID for a sandbox: "did:agt:sandbox:" + sandbox_id.
std::string DefaultAgentDid(std::string_view sandbox_id);

// "audit_" + the first 8 bytes (16 lowercase hex digits) of
//   SHA-256("agt-entry-id/v1\n" sandbox_id "\n" device ":" inode "\n" offset "\n" line)
// with the numbers in decimal and `line` without its '\n'. Deterministic, so
// re-reading the same line of the same file after a crash gives the same id.
std::string EntryId(std::string_view sandbox_id, const SourceRef& source, std::string_view line);

// Python's datetime.isoformat() of the attempt time as an aware UTC datetime:
// "2026-06-14T10:00:00+00:00", or "...00.123456+00:00" when the microseconds
// (timestamp_ns truncated to microseconds, if present) are non-zero.
std::string EntryTimestamp(const record_validator::ValidRecord& record);

// Fills *out (reusing its buffers). `line` is the record line exactly as read
// (without '\n'); it feeds only the entry_id.
void MapRecord(const record_validator::ValidRecord& record, std::string_view line,
               const SourceLabels& labels, const SourceRef& source,
               audit_entry::AuditEntryFields* out);

}  // namespace entry_mapper

#endif  // AGT_COLLECTOR_ENTRY_MAPPER_H_
