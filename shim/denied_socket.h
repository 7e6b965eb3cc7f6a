// Delivers the record to the collector over a unix SOCK_SEQPACKET socket
// ($AGT_DENIED_SOCKET, else the built-in default) and waits for its one-byte
// acknowledgement, all within kTimeoutMs. The socket is bound by the host and
// mounted read-only into the sandbox: the collector learns from the kernel
// who sent the record, so nothing here adds to what the record says.
// Anything but an acknowledgement is "not delivered": the caller then writes
// the log as before, and `warning` holds one line naming why.
#ifndef AGT_DENY_SHIM_DENIED_SOCKET_H_
#define AGT_DENY_SHIM_DENIED_SOCKET_H_

#include <errno.h>
#include <sys/socket.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fixed_buffer.h"

namespace denied_socket {

inline constexpr std::string_view kEnvName = "AGT_DENIED_SOCKET";
// The socket Connect makes (before the filter, which allows no socket()).
inline constexpr int kDomain = AF_UNIX;
inline constexpr int kType = SOCK_SEQPACKET | SOCK_CLOEXEC;
// The seccomp filter allows setsockopt() only at this level, for the
// receive timeout below (the send timeout is armed before it, for
// connect()), and clock_gettime() only on this clock (the deadline).
inline constexpr int kOptionLevel = SOL_SOCKET;
inline constexpr int kSendTimeoutOption = SO_SNDTIMEO;
inline constexpr int kReceiveTimeoutOption = SO_RCVTIMEO;
inline constexpr clockid_t kClock = CLOCK_MONOTONIC;
// The collector's answer: one byte.
inline constexpr unsigned char kAck = 0x06;
inline constexpr unsigned char kNak = 0x15;
// The bound on the whole exchange - connect, send, the acknowledgement -
// from the first system call on the socket (the denial's own work between
// connect and send included). The man page states it.
inline constexpr long kTimeoutMs = 200;
inline constexpr std::string_view kWarningPrefix =
    "agt-sandbox: warning: denial not delivered to AGT_DENIED_SOCKET ";
// The longest warning line (checked by the unit test): it fits the stderr
// write with the record and the human line, like the log's warning.
inline constexpr std::size_t kMaxWarningSize = 320;

// A connection to the collector: made before confinement (Connect), used
// once the record is built (Exchange). The collector checks the connecting
// process while the shim confines itself and builds its record, so that
// work is off the denial's path.
struct Connection {
  long fd = -1;                  // -1: Connect failed (below, why)
  std::int64_t deadline_ns = 0;  // kTimeoutMs after the socket was made (0: the clock failed)
  // Why Connect failed, worded by Exchange after confinement (the path in
  // the warning is the sandbox's, escaped and redacted there): a path too
  // long for a socket address, or the call that failed and its errno.
  bool path_too_long = false;
  const char* failed_call = "connect";
  int failed_errno = ENOTCONN;  // a Connection never connected
};

// Opens a socket and connects it to `path` (nothing else: the path is not
// parsed, escaped or copied anywhere but into the address). False when that
// fails, with the reason in *connection; nothing is left open then.
// `known_absent`, when not 0, is the errno a lookup of `path` already met
// (from Absent): the failure is then the one connect() would give, and no
// socket is made.
bool Connect(const char* path, int known_absent, Connection* connection);

// Sends `record` (the record line without its newline) as one message on
// `connection` and waits for kAck, within what is left of the bound. True
// only on kAck. Otherwise fills `warning` (room for kMaxWarningSize bytes)
// with one line "agt-sandbox: warning: denial not delivered to
// AGT_DENIED_SOCKET \"<path>\": <reason>; the record goes to
// AGT_DENIED_LOG\n", Connect's failure included. The socket is closed before
// it returns (it may have been given fd 2).
bool Exchange(Connection* connection, const char* path, std::string_view record,
              fixed_buffer::Buffer* warning);

// Looks `path` up without connecting: ENOENT or ENOTDIR when nothing is
// there (what connect() would meet), else 0 (there may be a socket).
// Called before confinement, for the built-in default only: a constant, not
// the sandbox's input. Without a collector mounted a denial then makes no
// socket only for connect() to fail: the kernel builds the connection's
// socket before it looks the path up.
int Absent(const char* path);

}  // namespace denied_socket

#endif  // AGT_DENY_SHIM_DENIED_SOCKET_H_
