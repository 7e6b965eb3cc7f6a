// The one table of names `agt-deny-shim harden` strips the exec bits from by
// default (when neither --names nor STRIP_EXEC_BIN_NAMES is given): shells,
// interpreters other than the sandbox's python3, and encoders, each with its
// kind and why. Disabled, not logged: these are what a denied command would
// be smuggled through (sh -c, perl -e, base64 -d | ...).
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_STRIP_NAMES_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_STRIP_NAMES_H_

#include <array>
#include <string_view>

namespace image_strip_names {

struct Row {
  std::string_view name;
  std::string_view kind;  // "shell", "interpreter", "encoder"
  std::string_view help;
};

inline constexpr std::array<Row, 32> kRows = {{
    {"ash", "shell", "Almquist shell"},
    {"awk", "interpreter", "awk: system() and pipes run commands"},
    {"base32", "encoder", "decodes smuggled payloads"},
    {"base64", "encoder", "decodes smuggled payloads"},
    {"basenc", "encoder", "decodes smuggled payloads"},
    {"bash", "shell", "GNU Bourne-again shell"},
    {"busybox", "shell", "multi-call binary with a shell and network applets"},
    {"csh", "shell", "C shell"},
    {"dash", "shell", "Debian Almquist shell (/bin/sh)"},
    {"expect", "interpreter", "Tcl automation: spawns programs"},
    {"fish", "shell", "friendly interactive shell"},
    {"gawk", "interpreter", "GNU awk: system() and pipes run commands"},
    {"ksh", "shell", "Korn shell"},
    {"lua", "interpreter", "Lua: os.execute runs commands"},
    {"mawk", "interpreter", "mawk: system() and pipes run commands"},
    {"mksh", "shell", "MirBSD Korn shell"},
    {"nawk", "interpreter", "awk: system() and pipes run commands"},
    {"node", "interpreter", "Node.js: child_process runs commands"},
    {"nodejs", "interpreter", "Node.js: child_process runs commands"},
    {"openssl", "encoder", "encodes, decodes and opens TLS connections"},
    {"perl", "interpreter", "Perl: system and exec run commands"},
    {"php", "interpreter", "PHP: shell_exec runs commands"},
    {"rbash", "shell", "restricted bash (still a shell)"},
    {"ruby", "interpreter", "Ruby: system and backticks run commands"},
    {"sh", "shell", "POSIX shell"},
    {"tclsh", "interpreter", "Tcl: exec runs commands"},
    {"tcsh", "shell", "TENEX C shell"},
    {"uudecode", "encoder", "decodes smuggled payloads"},
    {"uuencode", "encoder", "encodes data for smuggling"},
    {"wish", "interpreter", "Tcl/Tk: exec runs commands"},
    {"xxd", "encoder", "hex dumps and reverses them into binaries"},
    {"zsh", "shell", "Z shell"},
}};

}  // namespace image_strip_names

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_STRIP_NAMES_H_
