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
  // The canonical text of data.attestation (what the kernel said about the
  // sender, listen/peer_attestation.h); empty for a file, which gives
  // kNotAttested.
  std::string_view attestation;
};

// data.attestation of an entry read from a file: nobody vouches for its sender.
constexpr std::string_view kNotAttested = "{\"attested\": false}";

// The signed copy of the labels the upstream payload leaves unsigned:
// `{"compute_driver": C, "environment": E, "sandbox_id": S}` (data.labels).
// `verify` reports an entry whose outer labels disagree with it.
std::string LabelsCopy(const SourceLabels& labels);

// The default agent DID for a sandbox: "did:agt:sandbox:" + sandbox_id.
std::string DefaultAgentDid(std::string_view sandbox_id);

// Python's datetime.isoformat() of the attempt time as an aware UTC datetime:
// "2026-06-14T10:00:00+00:00", or "...00.123456+00:00" when the microseconds
// (timestamp_ns truncated to microseconds, if present) are non-zero.
std::string EntryTimestamp(const record_validator::ValidRecord& record);

// Fills *out (reusing its buffers) except entry_id, which is left empty:
// it is derived from the entry's leading members when the entry is signed
// (audit_file::AuditFileWriter::AppendNew, chain_signer.h).
void MapRecord(const record_validator::ValidRecord& record, const SourceLabels& labels,
               const SourceRef& source, audit_entry::AuditEntryFields* out);

}  // namespace entry_mapper

#endif  // AGT_COLLECTOR_ENTRY_MAPPER_H_
