// Opens a sandbox-controlled path beneath a trusted base directory without
// following a symbolic link in any component, and accepts only a regular
// file. The sandbox owns everything below the base: a symlink to a host file,
// a FIFO (which would block a reader), a device or a directory in a log's
// place must never make the collector read something else or hang.
#ifndef AGT_COLLECTOR_TAIL_SECURE_OPEN_H_
#define AGT_COLLECTOR_TAIL_SECURE_OPEN_H_

#include <string>

namespace secure_open {

enum class Method {
  kAuto,     // openat2(RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH), walk if ENOSYS
  kOpenat2,  // openat2 only
  kWalk,     // component by component with O_NOFOLLOW (kernels before 5.6)
};

enum class Result {
  kOk,
  kMissing,        // some component does not exist (yet): normal, not reported
  kRefused,        // hostile or unusable shape: symlink, FIFO, device, directory...
  kNoDescriptors,  // EMFILE/ENFILE: the open file limit is reached (*err says so)
  kError,          // other resource or system error (EACCES, ...): *err says which
};

// Opens base_fd/relative (relative: no leading '/', no "." or ".."
// components) O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_NOCTTY, and O_NOATIME where
// the caller may (the file's owner, or CAP_FOWNER). The final object is
// first opened O_PATH and checked with fstat, so a device node is never
// opened for reading (opening one can have side effects); the readable fd is
// then re-checked with fstat. On kOk *fd is set; otherwise *err holds a
// message naming the path and the reason.
Result OpenRegular(int base_fd, const std::string& relative, Method method, int* fd,
                   std::string* err);

// Opens base_fd/relative as an O_PATH directory fd (for inotify and
// directory listing) under the same no-symlink rules.
Result OpenDirectory(int base_fd, const std::string& relative, Method method, int* fd,
                     std::string* err);

// "a FIFO", "a symbolic link", ...: the file-type words used in messages.
const char* DescribeMode(unsigned mode);

// True when the running kernel has openat2 (probed once).
bool KernelHasOpenat2();

}  // namespace secure_open

#endif  // AGT_COLLECTOR_TAIL_SECURE_OPEN_H_
