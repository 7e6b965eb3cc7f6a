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
#include <string_view>
#include <vector>

#include "landlock_ruleset.h"

namespace self_confine {

struct Applied {
  bool no_new_privs = false;
  bool seccomp = false;
  int landlock_abi = 0;          // of the ruleset applied; 0 when none was
  bool sanitizer_build = false;  // seccomp left off on purpose (self_confine.cc says why)
  std::string missing;    // what could not be applied and why ("; "-separated): worth a warning
  std::string left_open;  // what is not limited on purpose, and why: for the startup line
};

// What `run` still touches once started: the grants follow from these.
struct RunScope {
  std::string out;               // the audit file: its directory is writable (SIGHUP reopens it)
  std::string state_dir;         // writable
  std::string listen;            // the socket: its directory is writable (a stale one is replaced)
  std::string key_file, config;  // readable
  std::vector<std::string> watch;  // patterns: each base directory is readable and writable
  bool forwarders = false;         // it starts `agt-collector forward` children
  std::string metrics_file;  // its directory is writable (written as a temp file, then renamed)
};

// The directories a sanitizer runtime writes its reports in, from its
// options ("log_path=DIR/asan:detect_leaks=1"): a sanitizer build's ruleset
// lets it write there (self_confine.cc says why). None for stderr/stdout.
std::vector<std::string> SanitizerReportDirs(std::string_view options);

// Confines a one-shot subcommand (import, validate, verify) to `grants`.
Applied ConfineOneShot(const landlock_ruleset::Grants& grants);

// Confines `run` after start-up to `scope` (self_confine.cc says what is
// left open with --listen and forwarders, and why), and says so: one line,
// or a warning when a layer could not be applied.
Applied ConfineRun(const RunScope& scope);

// Confines `forward` once its state directory is open: it writes only
// there (its positions), reads (the audit file and the rotated ones beside
// it, certificates, what name resolution loads) and connects over TCP; it
// runs nothing. The seccomp filter is run's with forwarders, the one a
// forwarder started by `run` already inherits. Says so, as ConfineRun.
Applied ConfineForward(const std::string& state_dir);

// "no_new_privs, seccomp allow-list, Landlock ABI 7" and, after " - not
// applied: ", what is missing; for a startup line or a warning.
std::string Describe(const Applied& applied);

}  // namespace self_confine

#endif  // AGT_COLLECTOR_SELF_CONFINE_H_
