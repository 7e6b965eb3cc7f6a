// Appends the record line to $AGT_DENIED_LOG, a path the sandbox may have
// turned into anything: only a regular file is written, with one write();
// everything else yields one warning line and touches nothing.
#ifndef AGT_DENY_SHIM_DENIED_LOG_H_
#define AGT_DENY_SHIM_DENIED_LOG_H_

#include <fcntl.h>

#include <cstddef>
#include <string_view>

#include "fixed_buffer.h"

namespace denied_log {

inline constexpr std::string_view kEnvName = "AGT_DENIED_LOG";
// O_RDWR: the log's last byte is read (pread of one byte) to see whether an
// earlier short append left a fragment. O_NOFOLLOW: a planted symlink fails
// (ELOOP) instead of redirecting the append. O_NONBLOCK: a FIFO without a
// reader fails (ENXIO) instead of hanging the denial. O_NOCTTY: a terminal
// never becomes ours.
inline constexpr int kOpenFlags =
    O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
// A log the sandbox may append to but not read (EACCES with kOpenFlags): the
// same open write-only, without the fragment check.
inline constexpr int kOpenFlagsWriteOnly = (kOpenFlags & ~O_RDWR) | O_WRONLY;
inline constexpr unsigned kOpenMode = 0600;
inline constexpr std::string_view kWarningPrefix =
    "agt-sandbox: warning: could not write AGT_DENIED_LOG: ";
// The longest warning line; record::kMaxRecordSize leaves room for it.
inline constexpr std::size_t kMaxWarningSize = 379;

// The destination rule (the man page's ENVIRONMENT says the same): the
// environment's value when set and not empty, else the built-in default set
// at build time (destinations.h), else none (nullptr). The collector's
// socket (denied_socket.h) follows the same rule with its own variable.
const char* ChoosePath(const char* env_value, const char* built_in_default);

// Appends `line` (ending in '\n') with one write(). The byte before
// line.data() must be writable: when the log does not end in a newline (an
// earlier short append, or bytes written by someone else), it becomes '\n'
// and is written too, so the record starts on a line of its own. On any
// failure returns false and fills `warning` (room for kMaxWarningSize bytes)
// with one line "agt-sandbox: warning: could not write AGT_DENIED_LOG:
// <reason>\n". Whatever happens, the log's descriptor is closed again before
// it returns: with fd 2 closed at start the log may be opened as fd 2, and
// the stderr write that follows must not land in it.
bool Append(const char* path, std::string_view line, fixed_buffer::Buffer* warning);

}  // namespace denied_log

#endif  // AGT_DENY_SHIM_DENIED_LOG_H_
