#include "tail/append_only.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace append_only {
namespace {

Result Classify(int errnum) {
  switch (errnum) {
    case ENOTTY:
    case EOPNOTSUPP:
    case EINVAL: return Result::kUnsupported;
    case EPERM:
    case EACCES: return Result::kNotPermitted;
    default: return Result::kError;
  }
}

Result Change(int fd, bool on, std::string* why) {
  // The ioctls take an int-sized flag word on every architecture Linux
  // supports, whatever the "long" in their names says.
  int flags = 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
    *why = std::string("ioctl FS_IOC_GETFLAGS: ") + strerror(errno);
    return Classify(errno);
  }
  const int wanted = on ? (flags | FS_APPEND_FL) : (flags & ~FS_APPEND_FL);
  if (wanted == flags) return Result::kOk;
  if (ioctl(fd, FS_IOC_SETFLAGS, &wanted) != 0) {
    *why = std::string("ioctl FS_IOC_SETFLAGS: ") + strerror(errno);
    return Classify(errno);
  }
  return Result::kOk;
}

// Whether dir_fd/name (no link followed) is the file `st` describes.
bool SameFileAt(int dir_fd, const std::string& name, const struct stat& st) {
  struct stat now;
  return fstatat(dir_fd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
         now.st_ino == st.st_ino;
}

}  // namespace

Result Set(int fd, std::string* why) { return Change(fd, true, why); }
Result Clear(int fd, std::string* why) { return Change(fd, false, why); }

bool IsSet(int fd) {
  int flags = 0;
  return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_APPEND_FL) != 0;
}

bool StatLog(int fd, LogStat* out) {
  struct statx stx;
  if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_SIZE | STATX_MTIME, &stx) != 0) {
    return false;
  }
  out->size = static_cast<int64_t>(stx.stx_size);
  out->mtime_ns = static_cast<int64_t>(stx.stx_mtime.tv_sec) * 1000000000 + stx.stx_mtime.tv_nsec;
  if ((stx.stx_attributes_mask & STATX_ATTR_APPEND) != 0) {
    out->held = (stx.stx_attributes & STATX_ATTR_APPEND) != 0;
  } else {
    out->held.reset();
  }
  return true;
}

Result Create(int dir_fd, const std::string& name, uid_t uid, gid_t gid, mode_t mode,
              unique_fd::UniqueFd* fd, std::string* why) {
  fd->Reset(openat(dir_fd, name.c_str(),
                   O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode));
  if (!fd->ok()) {
    if (errno == EEXIST) return Result::kExists;
    *why = "openat " + name + " (O_CREAT|O_EXCL): " + strerror(errno);
    return Result::kError;
  }
  struct stat created;
  if (fstat(fd->get(), &created) != 0) {
    *why = "fstat " + name + ": " + strerror(errno);
    fd->Reset();
    return Result::kError;
  }
  // The umask may have narrowed `mode`; the shim's own logs are exactly it.
  if (fchown(fd->get(), uid, gid) != 0 || fchmod(fd->get(), mode) != 0) {
    *why = std::string("fchown/fchmod ") + name + ": " + strerror(errno);
    // A log its sandbox could not write would lose every denial: not left
    // (only while the name is still ours: another file there is not ours).
    fd->Reset();
    if (SameFileAt(dir_fd, name, created)) unlinkat(dir_fd, name.c_str(), 0);
    return Result::kError;
  }
  const Result r = Set(fd->get(), why);
  if (r != Result::kOk || SameFileAt(dir_fd, name, created)) return r;
  struct stat now;
  if (fstatat(dir_fd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0) {
    *why = "the file created (inode " + std::to_string(created.st_ino) + ") was removed before " +
           "the attribute was set; nothing at the name now";
  } else {
    *why = "the file created (inode " + std::to_string(created.st_ino) + ") was replaced before " +
           "the attribute was set by another (inode " + std::to_string(now.st_ino) + ")";
  }
  return Result::kReplaced;
}

const char* Describe(Result r) {
  switch (r) {
    case Result::kOk: return "set";
    case Result::kUnsupported: return "not supported by the file system";
    case Result::kNotPermitted: return "not permitted (the collector lacks CAP_LINUX_IMMUTABLE)";
    case Result::kExists: return "a file is already there";
    case Result::kReplaced: return "the file created was replaced at its name";
    case Result::kError: break;
  }
  return "failed";
}

}  // namespace append_only
