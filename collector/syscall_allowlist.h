// The system calls a one-shot subcommand (import, validate, verify) still
// makes once it has started, as a libseccomp allow-list: reading and
// writing descriptors it holds, opening files (Landlock says which), memory
// that is never executable, and what glibc needs to exit or abort. Anything
// else - exec, ptrace, sockets, mount, new processes - fails with EPERM, so
// an unforeseen call shows up as a clear error rather than a killed process.
#ifndef AGT_COLLECTOR_SYSCALL_ALLOWLIST_H_
#define AGT_COLLECTOR_SYSCALL_ALLOWLIST_H_

#include <string>

namespace syscall_allowlist {

// Loads the one-shot allow-list into the kernel for the calling process.
// Needs no_new_privs set first. False with a reason when it cannot.
bool LoadOneShot(std::string* reason);

}  // namespace syscall_allowlist

#endif  // AGT_COLLECTOR_SYSCALL_ALLOWLIST_H_
