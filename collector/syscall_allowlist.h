// The system calls a subcommand still makes once it has started, as a
// libseccomp allow-list. Anything else fails with EPERM, so an unforeseen
// call shows up as a clear error rather than a killed process.
//
// One-shot subcommands (import, validate, verify): reading and writing
// descriptors they hold, opening files (Landlock says which), memory that is
// never executable, and what glibc needs to exit or abort. Exec, ptrace,
// sockets, mount and new processes are refused.
//
// `run` adds what its loop needs: inotify, the attested socket (accept,
// SO_PEERCRED / SO_PEERPIDFD, pidfds, sock_diag over netlink, setns into a
// peer's network namespace and back), unix datagram sockets (syslog,
// sd_notify), rotation and append-only logs (rename, unlink,
// FS_IOC_GETFLAGS/SETFLAGS, fchown), and its signals. Only when it starts
// forwarder children: process creation, exec (Landlock limits it to the
// collector's own binary) and what a forwarder needs, since a child
// inherits the filter (TCP and TLS to its destination).
#ifndef AGT_COLLECTOR_SYSCALL_ALLOWLIST_H_
#define AGT_COLLECTOR_SYSCALL_ALLOWLIST_H_

#include <string>

namespace syscall_allowlist {

// Loads the one-shot allow-list into the kernel for the calling process.
// Needs no_new_privs set first. False with a reason when it cannot.
bool LoadOneShot(std::string* reason);

// Loads `run`'s allow-list; `forwarders`: it spawns `agt-collector forward`
// children, which inherit it.
bool LoadRun(bool forwarders, std::string* reason);

}  // namespace syscall_allowlist

#endif  // AGT_COLLECTOR_SYSCALL_ALLOWLIST_H_
