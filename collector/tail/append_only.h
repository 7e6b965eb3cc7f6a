// The append-only file attribute (FS_APPEND_FL, chattr +a) on the sandbox
// logs the collector tails. With it the kernel refuses truncation, unlink,
// rename, link, chmod/chown and any open for writing without O_APPEND, to
// everyone; setting or clearing it needs CAP_LINUX_IMMUTABLE, which a
// sandbox lacks. So a sandbox can append records but erase none, while the
// collector (which has it) can still rotate the log.
#ifndef AGT_COLLECTOR_TAIL_APPEND_ONLY_H_
#define AGT_COLLECTOR_TAIL_APPEND_ONLY_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "unique_fd.h"

namespace append_only {

enum class Result {
  kOk,
  kUnsupported,   // the file system has no such attribute (ENOTTY, EOPNOTSUPP, EINVAL)
  kNotPermitted,  // EPERM: the collector lacks CAP_LINUX_IMMUTABLE
  kExists,        // Create: something is already at the name
  kReplaced,      // Create: the name no longer names the file created (see Create)
  kError,         // anything else: *why says which call failed and why
};

// Sets (or clears) FS_APPEND_FL on the file open at `fd` (any access mode).
// On a result other than kOk, *why is a bare reason naming the call and errno.
Result Set(int fd, std::string* why);
Result Clear(int fd, std::string* why);
// Whether the attribute is set (false when it cannot be read).
bool IsSet(int fd);

// What a look at a tailed log needs: its size and mtime, and whether the
// attribute is set, from one statx where the file system reports the
// attribute there (STATX_ATTR_APPEND in stx_attributes_mask: ext4, xfs,
// btrfs and tmpfs on this kernel), which saves the ioctl of IsSet at every
// look that finds the log grown. Elsewhere `held` is empty: ask IsSet, and
// only when the answer is needed.
struct LogStat {
  int64_t size = 0;
  int64_t mtime_ns = 0;  // st_mtim in ns, as tail_engine_support.h's MtimeNs
  std::optional<bool> held;
};
// False (errno set) when the file cannot be stated.
bool StatLog(int fd, LogStat* out);

// Creates dir_fd/name as a new, empty regular file (O_EXCL, no link
// followed), owned by uid:gid with `mode`, and then sets the attribute: the
// owner is changed first, because a chown of an append-only file is refused.
// *fd is the new file (O_RDONLY) whenever it was created, whatever the
// attribute's result: kExists leaves *fd closed. When the owner or mode
// cannot be set, the file is removed again (kError): a log its sandbox
// cannot write would lose every denial.
//
// Between the chown and the attribute the sandbox (which can write the
// directory) can unlink or rename the new file and put a file of its own at
// the name; a hidden name moved into place afterwards is no way out, as the
// kernel refuses link() and rename() of an append-only inode. So once the
// attribute is set the name is stated again: kReplaced when it no longer
// names the file created (*fd stays that file, which the sandbox may have
// written to; *why says what is at the name). Once set and found at the
// name, the file stays there: its unlink and rename are refused.
Result Create(int dir_fd, const std::string& name, uid_t uid, gid_t gid, mode_t mode,
              unique_fd::UniqueFd* fd, std::string* why);

// "not supported by the file system", "not permitted (no CAP_LINUX_IMMUTABLE)", ...
const char* Describe(Result r);

}  // namespace append_only

#endif  // AGT_COLLECTOR_TAIL_APPEND_ONLY_H_
