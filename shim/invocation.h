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

// How the shim was reached, the record's `via`.
enum class Via {
  kPath,    // the exec path's last component names the command (the usual case)
  kArgv0,   // exec'd through the shim's own name: argv[0] names the command
  kFd,      // through a file descriptor (execveat AT_EMPTY_PATH, /dev/fd/N,
            // /proc/self/fd/N, fexecve of a memfd): the path names nothing
  kScript,  // through a script's "#!" line: the interpreter names the command
  kNone,    // an empty argv (argc 0, or the kernel's {""} for it since 5.18)
};
std::string_view ViaName(Via via);

struct Attribution {
  std::string_view binary;  // the record's `binary`: a plausible name or "unknown"
  Via via;
  std::string_view script;  // kScript: the script's path (AT_EXECFN); else ""
  // Whose options the redaction rules apply: `binary`, or argv[0]'s name when
  // `binary` says nothing (an fd exec): a caller's claim is good enough to
  // hide more, never to show more.
  std::string_view tool;
};

// True for the exec paths the kernel makes up for an exec through a file
// descriptor: /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N.
bool IsFdPath(std::string_view exec_path);

// Who is denied, and how the shim was reached. The name is "unknown" when it
// is implausible or holds a secret by the context-free redaction rules.
// A script exec is recognised by the argv the kernel builds for it: the
// interpreter (an absolute path) as argv[0], then its optional argument, then
// the script's path, which is also the exec path.
Attribution Attribute(std::string_view exec_path, int argc, const char* const* argv);

}  // namespace invocation

#endif  // AGT_DENY_SHIM_INVOCATION_H_
