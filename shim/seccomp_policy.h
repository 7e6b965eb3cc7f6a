// The system calls a denial may make once confined, one row each with the
// reason it is needed. Everything else, execve/execveat/fork/vfork/clone/
// clone3 included, fails with EPERM: an error rather than a kill, so the
// shim still reaches its exit 126 whatever it tries.
//
// The filter is compiled from this table at BUILD time by
// seccomp_filter_gen (linked against libseccomp, which has no static musl
// build here) into a header of BPF instructions that the static shim loads
// with prctl(PR_SET_SECCOMP). One table, one filter: the kernel test loads
// the very same generated program.
#ifndef AGT_DENY_SHIM_SECCOMP_POLICY_H_
#define AGT_DENY_SHIM_SECCOMP_POLICY_H_

#include <array>
#include <string_view>

namespace seccomp_policy {

struct AllowedSyscall {
  std::string_view name;  // as libseccomp resolves it
  std::string_view why;
};

// Identity and time (getpid, uname, clock_gettime, ...) are gathered before
// the filter is loaded - they read neither argv nor the environment - and
// the collector's socket is connected before it (deny.cc says why), so the
// list stays short: a short filter is both tighter and faster to load. A
// confined shim can make no socket at all.
inline constexpr std::array<AllowedSyscall, 9> kAllowed = {{
    {"write", "the record to stderr, the log and the collector's socket"},
    {"openat",
     "the log file (only with denied_log::kOpenFlags or kOpenFlagsWriteOnly, checked by the "
     "filter)"},
    {"pread64",
     "the log's last byte: does an earlier short append need a newline (one byte only, checked)"},
    {"fstat", "is the log a regular file"},
    {"close", "the log file and the socket"},
    {"setsockopt", "the acknowledgement's time bound (only SOL_SOCKET with SO_RCVTIMEO, checked)"},
    {"recvfrom", "the collector's one-byte acknowledgement (one byte only, checked)"},
    {"clock_gettime", "the exchange's deadline (only CLOCK_MONOTONIC, checked)"},
    {"exit_group", "exit 126"},
}};

}  // namespace seccomp_policy

#endif  // AGT_DENY_SHIM_SECCOMP_POLICY_H_
