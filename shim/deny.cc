#include "deny.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "denied_log.h"
#include "denied_socket.h"
#include "destinations.h"
#include "fixed_buffer.h"
#include "invocation.h"
#include "late_bss.h"
#include "record.h"
#include "version.h"

namespace deny {
namespace {

constexpr std::string_view kHumanPrefix = "agt-sandbox: command denied: ";
constexpr std::string_view kHumanSuffix = " (blocked by sandbox command denylist)\n";
// PIPE_BUF: one write() of at most this many bytes to a pipe is atomic.
constexpr std::size_t kMaxStderrWrite = 4096;
constexpr std::size_t kMaxHumanLine = kHumanPrefix.size() + 64 + kHumanSuffix.size();
static_assert(record::kMaxRecordSize + 1 + kMaxHumanLine + denied_socket::kMaxWarningSize <=
                  kMaxStderrWrite,
              "record, human line and the socket's warning must fit one atomic stderr write");
static_assert(record::kMaxRecordSize + 1 + kMaxHumanLine + denied_log::kMaxWarningSize <=
                  kMaxStderrWrite,
              "record, human line and the log's warning must fit one atomic stderr write");

// One write(), never retried: a second write could interleave with other
// denials sharing the pipe.
void WriteStderr(std::string_view text) {
  ssize_t n = write(2, text.data(), text.size());
  (void)n;
}

}  // namespace

int Run(int argc, char** argv, std::string_view exec_path) {
  // A reader that went away must not turn the denial into death by signal:
  // exit 126 on every path. Done before the filter, which forbids sigaction.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);

  // The collector's socket is connected first, before the filter (which then
  // has no socket() or connect() to allow: a confined shim makes no socket at
  // all): the collector checks the connecting process - its executable,
  // tracer, memory and socket, from the kernel - while this one confines
  // itself and builds its record, instead of after the record arrives. Its
  // path is the one thing read from the environment before the filter, and
  // only handed to connect(): a warning about it is worded after the filter.
  denied_socket::Connection connection;
  const char* socket_path =
      denied_log::ChoosePath(getenv("AGT_DENIED_SOCKET"), destinations::kDefaultDeniedSocket);
  if (socket_path != nullptr) {
    // The built-in path is looked up first, so that a denial with no
    // collector mounted makes no socket (see denied_socket::Absent).
    int absent = strcmp(socket_path, destinations::kDefaultDeniedSocket) == 0
                     ? denied_socket::Absent(socket_path)
                     : 0;
    denied_socket::Connect(socket_path, absent, &connection);
  }

  // Who and when: none of this reads argv or the environment, so it is
  // gathered before the filter, which can then leave these calls out.
  record::Facts facts;
  facts.pid = static_cast<std::uint64_t>(getpid());
  facts.ppid = static_cast<std::uint64_t>(getppid());
  // The real ids as the kernel put them in the aux vector at exec, which is
  // what getuid()/getgid() would return here, without two system calls.
  facts.uid = getauxval(AT_UID);
  facts.gid = getauxval(AT_GID);
  struct utsname uts;
  if (uname(&uts) == 0) {
    uts.nodename[sizeof uts.nodename - 1] = '\0';
    facts.host = uts.nodename;
  }
  // The raw call, not libc's vDSO path: its one-time set-up costs more than
  // the whole system call for a process that reads the clock once.
  struct timespec now;
  if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &now) == 0) {
    facts.time_sec = now.tv_sec;
    facts.time_nsec = static_cast<std::uint32_t>(now.tv_nsec);
  }

  facts.confined = confine::Confine();

  // Only now are argv and the rest of the environment read.

  facts.argc = argc;
  facts.argv = argv;
  facts.exec_path = exec_path;
  invocation::Attribution who = invocation::Attribute(exec_path, argc, argv);
  facts.binary = who.binary;
  facts.via = invocation::ViaName(who.via);
  facts.script = who.script;
  facts.tool = who.tool;
  facts.version = version::kVersion;

  // The two buffers are static, not on the stack: with RLIMIT_STACK as low
  // as 8 KiB (what a static no-op needs) the denial must still reach its
  // record, and these are more than half of its deepest stack.
  // The first byte is room for the newline denied_log::Append may put
  // before the record. Late in .bss: a denial writes only its start.
  AGT_LATE_BSS static char out_storage[1 + kMaxStderrWrite];
  fixed_buffer::Buffer out(out_storage + 1, kMaxStderrWrite);
  if (record::Build(facts, &out)) out.Append("\n");
  std::string_view record_line = out.view();

  // The socket first: a record the collector acknowledged is durable in the
  // audit file, attested by the kernel, and the log is not written. Anything
  // else falls back to the log exactly as without a socket.
  static char socket_warning_storage[denied_socket::kMaxWarningSize];
  fixed_buffer::Buffer socket_warning(socket_warning_storage, sizeof socket_warning_storage);
  bool delivered = false;
  if (socket_path != nullptr && !record_line.empty()) {
    delivered = denied_socket::Exchange(
        &connection, socket_path, record_line.substr(0, record_line.size() - 1), &socket_warning);
  }

  static char warning_storage[denied_log::kMaxWarningSize];
  fixed_buffer::Buffer warning(warning_storage, sizeof warning_storage);
  const char* log_path =
      denied_log::ChoosePath(getenv("AGT_DENIED_LOG"), destinations::kDefaultDeniedLog);
  if (!delivered && log_path != nullptr && !record_line.empty())
    denied_log::Append(log_path, record_line, &warning);

  out.Append(kHumanPrefix);
  out.Append(facts.binary);
  out.Append(kHumanSuffix);
  out.Append(socket_warning.view());
  // With fd 2 closed at start the socket or the log may have been given fd
  // 2, but both are closed again by now: the write then fails with EBADF,
  // and the line has landed once, in the collector's file or the log.
  // Both warnings at once fit one write unless the record is near its limit
  // and both paths are long: the log's warning then takes a second write of
  // its own, a whole line still.
  bool joined = out.Append(warning.view());
  WriteStderr(out.view());
  if (!joined) WriteStderr(warning.view());
  return kExitDenied;
}

}  // namespace deny
