// agt-deny-shim: one static multi-call binary. Run under its own name it is
// the tool (self_commands); under any other name it denies (deny).
#include <sys/auxv.h>
#include <unistd.h>

#include <string_view>

#include "deny.h"
#include "invocation.h"
#include "self_commands.h"

int main(int argc, char** argv) {
  // AT_EXECFN is the path the caller gave execve(): it names the command
  // even when argv[0] is spoofed. It is read from the aux vector, not argv.
  const char* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
  std::string_view exec_path = execfn != nullptr ? execfn : "";
  // argv[0] is looked at before confinement only when the exec path already
  // says "agt-deny-shim": self mode needs both to agree.
  if (invocation::Basename(exec_path) == invocation::kSelfName && argc > 0 &&
      invocation::IsSelfMode(exec_path, argv[0])) {
    return self_commands::Run(argc - 1, argv + 1, STDOUT_FILENO, STDERR_FILENO);
  }
  return deny::Run(argc, argv, exec_path);
}
