// A Landlock ruleset over the files a subcommand may still open once it has
// started: every filesystem right the running kernel knows is handled (so
// denied unless a rule grants it), TCP bind/connect are denied, and so are
// abstract unix sockets and signals to processes outside the domain.
// Descriptors already open keep working: Landlock checks opens, not reads.
//
// Raw system calls: glibc has no wrappers, and Debian 12's headers stop at
// Landlock ABI 2, so the later rights are named here (kernel ABI 3-6).
#ifndef AGT_COLLECTOR_LANDLOCK_RULESET_H_
#define AGT_COLLECTOR_LANDLOCK_RULESET_H_

#include <string>
#include <vector>

namespace landlock_ruleset {

struct Grants {
  std::vector<std::string> read_files;  // each may be opened for reading (a file or a tree)
  std::vector<std::string> write_dirs;  // files beneath each may be created, read and written
  std::vector<std::string> exec_files;  // each may be executed (and read)
  // Reading left unrestricted: the read rights are not handled at all.
  bool read_anywhere = false;
  // TCP connect left to the kernel's other checks (bind stays refused).
  bool tcp_connect = false;
};

enum class Result {
  kApplied,      // the process is now restricted
  kUnsupported,  // the kernel has no Landlock (or it is disabled): reason says so
  kFailed,       // Landlock is there but the ruleset could not be made or applied
};

// The kernel's Landlock ABI version, or 0 when it has none.
int KernelAbi();

// Restricts the calling process (and its future children) to `grants`.
// Needs no_new_privs set first (or CAP_SYS_ADMIN). A path in `grants` that
// does not exist is skipped: opening it fails with ENOENT anyway.
Result Restrict(const Grants& grants, int* abi, std::string* reason);

}  // namespace landlock_ruleset

#endif  // AGT_COLLECTOR_LANDLOCK_RULESET_H_
