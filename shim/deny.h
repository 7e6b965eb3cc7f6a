// The denial path: confine, record, log, tell, exit 126 - whatever fails.
#ifndef AGT_DENY_SHIM_DENY_H_
#define AGT_DENY_SHIM_DENY_H_

#include <string_view>

namespace deny {

inline constexpr int kExitDenied = 126;

// `exec_path` is AT_EXECFN ("" when the kernel gave none). argv is not read
// before the process is confined. Always returns kExitDenied.
int Run(int argc, char** argv, std::string_view exec_path);

}  // namespace deny

#endif  // AGT_DENY_SHIM_DENY_H_
