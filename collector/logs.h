// The collector's one way to speak (ninja's Error()/Warning(), nsjail's
// PLOG_E): callers pass a bare reason; only this module writes the
// "agt-collector: error: COMMAND: " prefix. Library code never prints: it
// returns a typed result and a bare reason (ErrnoReason names the call and
// the path), and the subcommand that called it decides how to say it.
#ifndef AGT_COLLECTOR_LOGS_H_
#define AGT_COLLECTOR_LOGS_H_

#include <stdint.h>

#include <string>

namespace logs {

// The subcommand named in every message ("import", "run"); set once by main.
void SetCommand(const std::string& command);

// "agt-collector: error: COMMAND: reason"
void Error(const std::string& reason);
// "agt-collector: warning: COMMAND: reason"
void Warning(const std::string& reason);
// "agt-collector: COMMAND: message": progress and state changes.
void Note(const std::string& message);
// "WHERE: reason" alone on a line: a rejected input line of import or
// validate, WHERE being LOG:LINE (1-based), shaped like a compiler's message
// so editors can jump to it. (run names a byte offset instead, in a warning:
// "LOG: offset N: rejected: reason".)
void Rejected(const std::string& where, const std::string& reason);

// A status line (progress) on a terminal: drawn over itself with "\r",
// cleared before any other message and by ClearStatus(). Only
// progress::Meter calls these, and only when stderr is a terminal.
void Status(const std::string& text);
void ClearStatus();

// Wall-clock seconds of the last Error or Warning (0: none yet), for the
// metrics' last error time.
int64_t LastProblemTime();
// Its text, "error: reason" or "warning: reason" ("": none yet), for
// `agt-collector status` (run_status.h).
const std::string& LastProblem();

// "CALL PATH: strerror(errnum)", e.g. "open /x/denied.log: Permission denied";
// "CALL: strerror(errnum)" when PATH is empty.
std::string ErrnoReason(const char* call, const std::string& path, int errnum);
// The same, with the current errno.
std::string ErrnoReason(const char* call, const std::string& path);

}  // namespace logs

#endif  // AGT_COLLECTOR_LOGS_H_
