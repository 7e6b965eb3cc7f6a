// The one path from a line to a durable, signed audit entry. Every intake
// is a thin front end over it: `import`/`validate` (files named on the
// command line), `run` (every sandbox log a watch pattern finds), and the
// attested unix socket (`run --listen`, a message per record).
//
//   bytes --line_reader::Reader--> line --Ingest::Line--> validated record
//         --entry_mapper--> entry --audit_file::AuditFileWriter--> signed line
//
// Ingest::Line validates a line as hostile input, maps it with the labels of
// its source and appends it (or only validates, without an output). The
// front end reads, counts and reports; it makes entries durable with the
// writer's Sync() and writes any position of its own (run's checkpoints)
// only after a Sync() that returned true.
#ifndef AGT_COLLECTOR_PIPELINE_H_
#define AGT_COLLECTOR_PIPELINE_H_

#include <stdint.h>

#include <string>
#include <string_view>

#include "audit_entry.h"
#include "audit_file.h"
#include "config.h"
#include "entry_id_set.h"
#include "entry_mapper.h"
#include "file_id.h"
#include "record_validator.h"
#include "tail/line_reader.h"

namespace pipeline {

// Where a line came from. A file gives its path, identity and the offset of
// the line's first byte; a socket message gives the socket's path, a zero
// FileId, its sequence number as the offset, and the attestation. Stamped into data.source.
struct Origin {
  std::string_view name;  // the path, as configured or watched
  file_id::FileId file;
  uint64_t offset = 0;
  const entry_mapper::SourceLabels* labels = nullptr;  // from LabelsFor
  // data.attestation's text for a message whose sender the kernel vouched
  // for (listen/peer_attestation.h); empty for a file: not attested.
  std::string_view attestation;
};

// The one rule for a source's labels, whatever the intake:
//  - the configuration's first source whose path or pattern names it (then
//    a configured watch pattern) gives them;
//  - a source it does not name gets the defaults of the sandbox id the
//    intake knows (run: the {sandbox_id} of the --watch pattern that found
//    it; import: --sandbox-id);
//  - a source with neither is refused before anything is written (import
//    --config with a LOG no pattern matches: exit 78).
// A sandbox id the intake knows always wins over the configured one.
// `config` may be null; `known_sandbox_id` may be empty.
bool LabelsFor(const config::Config* config, std::string_view path,
               std::string_view known_sandbox_id, entry_mapper::SourceLabels* labels,
               std::string* err);

// The words for a line the reader would not deliver: "line longer than the
// limit (N bytes, limit M)", "NUL bytes (N bytes)".
std::string RejectionReason(const line_reader::Item& item, size_t max_line_bytes);
// The same rejection in the one bounded set of reasons (metrics labels).
record_validator::Problem ProblemOf(line_reader::Rejection rejection);

enum class Outcome {
  kAppended,        // a new entry is queued in the output
  kValid,           // valid (no output: validate only)
  kAlreadyPresent,  // its entry_id is among the ids already written (replay)
  kRejected,        // *reason says why (no prefix)
  kOutputFailed,    // the output failed; *reason says how; stop
};

class Ingest {
 public:
  // `out` null: validate only. `already_written` (may be null): entry ids
  // written before a crash, skipped once each (exactly once on restart).
  Ingest(const record_validator::Limits& limits, audit_file::AuditFileWriter* out,
         entry_id_set::EntryIdSet* already_written);

  Outcome Line(std::string_view line, const Origin& origin, std::string* reason);

  // Why the last line was rejected (after kRejected).
  record_validator::Problem problem() const { return problem_; }
  // The last line's record and entry (after kAppended): for syslog.
  const record_validator::ValidRecord& record() const { return record_; }
  const audit_entry::AuditEntryFields& entry() const { return fields_; }

 private:
  record_validator::Limits limits_;
  audit_file::AuditFileWriter* out_;
  entry_id_set::EntryIdSet* already_written_;
  // Reused from line to line: no allocation in steady state.
  record_validator::ValidRecord record_;
  audit_entry::AuditEntryFields fields_;
  entry_mapper::SourceRef source_;
  record_validator::Problem problem_ = record_validator::Problem::kNone;
};

}  // namespace pipeline

#endif  // AGT_COLLECTOR_PIPELINE_H_
