// run's first step with its output: the audit file checked whole against
// the chain head in the state directory before anything is appended to it.
// A tampered file is never extended: run refuses (kTampered) unless told to
// start a new file (--new-chain), which moves the tampered one aside and
// records what was found as the new file's first, signed entry.
#ifndef AGT_COLLECTOR_AUDIT_START_H_
#define AGT_COLLECTOR_AUDIT_START_H_

#include <string>
#include <string_view>

#include "audit_file.h"

namespace audit_start {

// Returns an exit status (exit_status.h): kOk with *out open and the chain
// head saved, else the reason said through logs.
int Open(const std::string& path, std::string_view key, const std::string& state_dir,
         bool new_chain, audit_file::AuditFileWriter* out);

}  // namespace audit_start

#endif  // AGT_COLLECTOR_AUDIT_START_H_
