#include "denied_socket.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>

#include "record.h"

namespace denied_socket {
namespace {

constexpr std::size_t kMaxPathShown = 128;
constexpr std::string_view kWarningSuffix = "; the record goes to AGT_DENIED_LOG\n";
constexpr std::int64_t kNsPerMs = 1000 * 1000;

// Builds "<prefix>\"<path>\": <reason><detail><suffix>".
void Warn(std::string_view path, std::string_view reason, std::string_view detail,
          fixed_buffer::Buffer* warning) {
  warning->Shrink(0);
  bool cut = false;
  // The environment is the sandbox's: the path is redacted and escaped as
  // the log's path is in its warning.
  redact::Spans spans;
  redact::Standalone(path, &spans);
  bool ok = warning->Append(kWarningPrefix) &&
            record::AppendField(path, spans, kMaxPathShown, warning, &cut) &&
            warning->Append(": ") && warning->Append(reason) && warning->Append(detail) &&
            warning->Append(kWarningSuffix);
  if (!ok) {
    warning->Shrink(0);
    warning->Append(kWarningPrefix);
    warning->Append("failed\n");
  }
}

// "<call>: <strerror>", or "<call>: no answer within 200 ms" for a timeout
// (the socket timeouts end a blocking call with EAGAIN).
void WarnErrno(std::string_view path, std::string_view call, int error,
               fixed_buffer::Buffer* warning) {
  char reason_storage[96];
  fixed_buffer::Buffer reason(reason_storage, sizeof reason_storage);
  reason.Append(call);
  reason.Append(": ");
  if (error == EAGAIN) {
    reason.Append("no answer within ");
    reason.AppendUnsigned(kTimeoutMs);
    reason.Append(" ms");
  } else {
    reason.Append(strerror(error));
  }
  Warn(path, reason.view(), "", warning);
}

std::int64_t NowNs() {
  struct timespec now;
  // The raw call: the filter allows exactly this clock (see kClock).
  if (syscall(SYS_clock_gettime, kClock, &now) != 0) return -1;
  return static_cast<std::int64_t>(now.tv_sec) * 1000 * kNsPerMs + now.tv_nsec;
}

// Bounds the next blocking call on `fd` by `left_ns`. False (errno EAGAIN,
// as a timeout) when nothing is left.
bool ArmTimeoutFor(long fd, int option, std::int64_t left_ns) {
  // A zero timeval means "no timeout" to the kernel: at least 1 us.
  std::int64_t left_us = left_ns / 1000;
  if (left_ns <= 0 || left_us <= 0) {
    errno = EAGAIN;
    return false;
  }
  struct timeval tv;
  tv.tv_sec = static_cast<time_t>(left_us / 1000000);
  tv.tv_usec = static_cast<suseconds_t>(left_us % 1000000);
  return syscall(SYS_setsockopt, fd, kOptionLevel, option, &tv, sizeof tv) == 0;
}

// Bounds the next blocking call on `fd` by what is left until `deadline_ns`.
// False (errno EAGAIN) when nothing is left or the clock fails.
bool ArmTimeout(long fd, int option, std::int64_t deadline_ns) {
  std::int64_t now = NowNs();
  return ArmTimeoutFor(fd, option, now < 0 ? 0 : deadline_ns - now);
}

// connect() on a fresh socket; errno says why when it fails.
bool ConnectFd(long fd, const struct sockaddr_un& address, std::int64_t deadline_ns) {
  // connect() on a unix socket blocks while the listener's backlog is full,
  // for at most the send timeout: the whole bound at first (the clock was
  // read just before; a clock that failed leaves nothing), what is left
  // when retried on EINTR.
  long rc = -1;
  if (ArmTimeoutFor(fd, kSendTimeoutOption, deadline_ns > 0 ? kTimeoutMs * kNsPerMs : 0))
    rc = syscall(SYS_connect, fd, &address, static_cast<socklen_t>(sizeof address));
  while (rc != 0 && errno == EINTR) {
    rc = -1;
    if (ArmTimeout(fd, kSendTimeoutOption, deadline_ns))
      rc = syscall(SYS_connect, fd, &address, static_cast<socklen_t>(sizeof address));
  }
  return rc == 0;
}

// The record and its answer on a connected socket; fills `warning` when it
// fails.
bool SendAndAwait(long fd, const char* path, std::string_view record, std::int64_t deadline_ns,
                  fixed_buffer::Buffer* warning) {
  // One message, the whole record: a SEQPACKET write is all or nothing. It
  // is not armed again: the first message on a fresh connection never
  // waits for the collector (the kernel checks a receiver's queue only for
  // senders that are not its connected peer, and the empty send buffer
  // holds any record), and connect's send timeout still stands behind it.
  ssize_t n;
  do {
    n = write(static_cast<int>(fd), record.data(), record.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    WarnErrno(path, "send", errno, warning);
    return false;
  }
  if (static_cast<std::size_t>(n) != record.size()) {
    Warn(path, "send: short write", "", warning);
    return false;
  }
  unsigned char answer = 0;
  do {
    n = -1;
    if (ArmTimeout(fd, kReceiveTimeoutOption, deadline_ns))
      n = syscall(SYS_recvfrom, fd, &answer, 1, 0, nullptr, nullptr);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    WarnErrno(path, "acknowledgement", errno, warning);
    return false;
  }
  if (n == 0) {
    Warn(path, "the collector closed the connection without an answer", "", warning);
    return false;
  }
  if (answer == kNak) {
    Warn(path, "the collector refused the record (NAK)", "", warning);
    return false;
  }
  if (answer != kAck) {
    char detail_storage[16];
    fixed_buffer::Buffer detail(detail_storage, sizeof detail_storage);
    detail.AppendUnsigned(answer);
    Warn(path, "unexpected answer byte ", detail.view(), warning);
    return false;
  }
  return true;
}

}  // namespace

int Absent(const char* path) {
  if (path[0] == '\0' || access(path, F_OK) == 0) return 0;
  return errno == ENOENT || errno == ENOTDIR ? errno : 0;
}

bool Connect(const char* path, int known_absent, Connection* connection) {
  *connection = Connection();
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  std::size_t length = strlen(path);
  // sun_path holds the path and its terminating NUL; a longer path is
  // refused rather than cut (a cut path would name another socket).
  if (length >= sizeof address.sun_path) {
    connection->path_too_long = true;
    return false;
  }
  memcpy(address.sun_path, path, length);
  if (known_absent != 0) {
    connection->failed_errno = known_absent;
    return false;
  }
  long fd = syscall(SYS_socket, kDomain, kType, 0);
  if (fd < 0) {
    connection->failed_call = "socket";
    connection->failed_errno = errno;
    return false;
  }
  // The bound starts here, once, before the first call that can block.
  std::int64_t start = NowNs();
  std::int64_t deadline_ns = start < 0 ? 0 : start + kTimeoutMs * kNsPerMs;
  if (!ConnectFd(fd, address, deadline_ns)) {
    connection->failed_errno = errno;
    close(static_cast<int>(fd));
    return false;
  }
  connection->fd = fd;
  connection->deadline_ns = deadline_ns;
  return true;
}

bool Exchange(Connection* connection, const char* path, std::string_view record,
              fixed_buffer::Buffer* warning) {
  if (connection->fd < 0) {
    if (connection->path_too_long) {
      Warn(path, "the path is too long for a socket address", "", warning);
    } else {
      WarnErrno(path, connection->failed_call, connection->failed_errno, warning);
    }
    return false;
  }
  bool delivered = SendAndAwait(connection->fd, path, record, connection->deadline_ns, warning);
  close(static_cast<int>(connection->fd));
  connection->fd = -1;
  return delivered;
}

}  // namespace denied_socket
