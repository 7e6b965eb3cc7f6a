// The collector core as a library (static library agt_collector_core):
// everything between a log line and a durable, signed audit entry. `import`
// and the run mode both drive it; this block is the contract between them.
//
//   log_line_reader::LineReader  bounded '\n' reader: kLine / kTooLong / kEof.
//                                 Over-long lines are skipped, never buffered.
//   record_validator::ValidateRecord(line, limits, &record, &reason)
//                                 strict; false + one-line reason per rejected
//                                 line. Reuse one ValidRecord (no allocation
//                                 in steady state).
//   entry_mapper::MapRecord(record, labels, source, &fields)
//                                 labels from the operator (config/pattern),
//                                 source = {file, st_dev, st_ino, line offset};
//                                 entry_id is left empty: AppendNew() derives
//                                 it from the entry up to its data (record
//                                 fields + source), so a replay of the same
//                                 line yields the same id (chain_signer.h).
//   audit_file::AuditFileWriter  Open(path, key, &err) resumes the chain from
//                                 the file's last line (a corrupt or foreign-key
//                                 last line fails Open; a torn unterminated tail
//                                 from a crash is cut off and reported through
//                                 recovery_notice(), print it); AppendNew() (or
//                                 Append(), for an entry_id given as is) queues
//                                 a signed line; Flush() writes; Sync() writes and
//                                 fdatasyncs: entries appended before a Sync()
//                                 that returned true are durable, so a
//                                 checkpoint may be written after it and not
//                                 before. Reopen() for SIGHUP. RecentEntryIds(n)
//                                 reads the last n entry_ids for exactly-once
//                                 on restart. One writer per file (flock).
//   config::Config               closed-vocabulary JSON config: output, key_file,
//                                 state_dir, watch[], sources[], limits.
//                                 LabelsForPath() picks a source's labels.
//   watch_pattern::*             "{sandbox_id}" patterns: validate, match.
//   key_file::ReadKeyFile        raw key bytes; never print them.
//   audit_verifier::*            upstream-equivalent chain verification.
//
// Errors: functions return bool and fill std::string* err with a message
// that already starts "agt-collector: error: " where it is meant for the
// user as is; rejection *reasons* carry no prefix (callers print
// "LOG:LINE: reason"). Nothing here exits or prints.
//
// The run subcommand: when collector/tail/meson.build exists, meson adds
// `tail_sources` (which may list ../run_*.cc) to the agt-collector binary,
// `tail_test_sources` to the unit-test binary collector-unit (less any test
// file the tail directory runs in a test binary of its own, listed in
// `tail_standalone_test_sources`), and defines AGT_COLLECTOR_HAS_RUN=1; collector_main.cc then includes
// "run_command.h" and expects:
//   namespace run_command {
//   extern const char kUsage[];  // "run --key-file K --out FILE ..."
//   extern const char kHelp[];   // one line
//   int Main(int argc, char** argv);  // argv[0] == "run"; returns exit status
//   }
// Exit statuses: exit_status.h.
#ifndef AGT_COLLECTOR_PIPELINE_H_
#define AGT_COLLECTOR_PIPELINE_H_

#include "audit_entry.h"
#include "audit_file.h"
#include "audit_verifier.h"
#include "chain_signer.h"
#include "config.h"
#include "entry_mapper.h"
#include "exit_status.h"
#include "key_file.h"
#include "log_line_reader.h"
#include "record_validator.h"
#include "watch_pattern.h"

#endif  // AGT_COLLECTOR_PIPELINE_H_
