// Self-confinement of a subcommand once it has started: keys, config and
// output are open, and what is left is reading its inputs and writing what
// it already holds. Three layers, each applied where the kernel has it:
// no_new_privs, a Landlock ruleset over the files it may still open
// (landlock_ruleset), and a seccomp allow-list of system calls
// (syscall_allowlist). A layer the kernel lacks is skipped and said so;
// the subcommand goes on.
#ifndef AGT_COLLECTOR_SELF_CONFINE_H_
#define AGT_COLLECTOR_SELF_CONFINE_H_

#include <string>

#include "landlock_ruleset.h"

namespace self_confine {

struct Applied {
  bool no_new_privs = false;
  bool seccomp = false;
  int landlock_abi = 0;  // of the ruleset applied; 0 when none was
  bool sanitizer_build = false;  // seccomp left off on purpose (self_confine.cc says why)
  std::string missing;   // what could not be applied and why ("; "-separated): worth a warning
};

// Confines a one-shot subcommand (import, validate, verify) to `grants`.
Applied ConfineOneShot(const landlock_ruleset::Grants& grants);

// "no_new_privs, seccomp allow-list, Landlock ABI 7" and, after " - not
// applied: ", what is missing; for a startup line or a warning.
std::string Describe(const Applied& applied);

}  // namespace self_confine

#endif  // AGT_COLLECTOR_SELF_CONFINE_H_
