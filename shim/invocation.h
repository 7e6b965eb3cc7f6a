// Who is being denied: the name comes from the exec'd path (the kernel's
// AT_EXECFN) first, so an exec through /usr/bin/az with argv[0] spoofed is
// still a denial of "az"; argv[0] only names the command when the shim was
// exec'd through its own path.
#ifndef AGT_DENY_SHIM_INVOCATION_H_
#define AGT_DENY_SHIM_INVOCATION_H_

#include <string_view>

namespace invocation {

inline constexpr std::string_view kSelfName = "agt-deny-shim";
inline constexpr std::string_view kUnknown = "unknown";

// The part after the last '/'.
std::string_view Basename(std::string_view path);

// 1-64 bytes of [A-Za-z0-9._+-], not "." or "..": safe to print as is.
bool IsPlausibleName(std::string_view name);

// Run as itself (the tool, not a denial): exec'd through a path named
// agt-deny-shim AND argv[0] named agt-deny-shim. `argv0` may be null (argc 0).
bool IsSelfMode(std::string_view exec_path, const char* argv0);

// The record's `binary`: "unknown" when the name is implausible or holds a
// secret by the context-free redaction rules. An empty argv[0] counts as an empty argv: since
// Linux 5.18 the kernel turns execve(path, {NULL}) into argv = {""}.
std::string_view DeniedName(std::string_view exec_path, const char* argv0);

}  // namespace invocation

#endif  // AGT_DENY_SHIM_INVOCATION_H_
