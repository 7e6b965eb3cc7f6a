#include "tail/secure_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "file_id.h"
#include "unique_fd.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace secure_open {
namespace {

constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

// A log is read after every append, and under relatime (the default) a
// read after a write updates the atime: one inode write per look. With
// O_NOATIME reads leave it alone, so the log's atime keeps telling what the
// sandbox did with its file, not when the collector read it. Only the
// file's owner or CAP_FOWNER may ask for it: on EPERM the file is opened
// again without (once per open, not per read).
template <typename OpenFn>
int OpenForReading(OpenFn open_with_flags) {
  const int fd = open_with_flags(kReadFlags | O_NOATIME);
  if (fd >= 0 || errno != EPERM) return fd;
  return open_with_flags(kReadFlags);
}

std::string Errno(int e) { return strerror(e); }

Result Fail(Result r, std::string* err, const std::string& msg) {
  if (err) *err = msg;
  return r;
}

// Splits "a/b/c" and refuses empty, "." and ".." components: the relative
// part comes from a pattern plus a validated sandbox id, so any of these is
// a programming or configuration error, never something to resolve.
bool SplitRelative(const std::string& relative, std::vector<std::string>* parts, std::string* err) {
  parts->clear();
  size_t start = 0;
  if (relative.empty() || relative[0] == '/') {
    *err = "path '" + relative + "' is not relative";
    return false;
  }
  while (start <= relative.size()) {
    size_t slash = relative.find('/', start);
    if (slash == std::string::npos) slash = relative.size();
    std::string part = relative.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") {
      *err = "path '" + relative + "' has an empty, '.' or '..' component";
      return false;
    }
    parts->push_back(part);
    start = slash + 1;
  }
  return true;
}

Result MapOpenErrno(int e, const std::string& relative, const char* syscall_name,
                    std::string* err) {
  switch (e) {
    case ENOENT: return Fail(Result::kMissing, err, relative + ": does not exist");
    case ELOOP:
      return Fail(Result::kRefused, err,
                  relative + ": refused: a symbolic link in the path (" + syscall_name + ": " +
                      Errno(e) + ")");
    case EXDEV:
      return Fail(Result::kRefused, err,
                  relative + ": refused: resolves outside the watched directory (" + syscall_name +
                      ": " + Errno(e) + ")");
    case ENOTDIR:
      return Fail(
          Result::kRefused, err,
          relative + ": refused: a path component is not a directory (" + syscall_name + ")");
    case EMFILE:
    case ENFILE:
      return Fail(Result::kNoDescriptors, err,
                  std::string(syscall_name) + " " + relative + ": " + Errno(e) +
                      " (open file limit reached; raise RLIMIT_NOFILE / fs.file-max)");
    default:
      return Fail(Result::kError, err,
                  std::string(syscall_name) + " " + relative + ": " + Errno(e));
  }
}

long Openat2(int dirfd, const char* path, unsigned long long flags) {
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = flags;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  return syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

// Opens the object as O_PATH (no side effects, works on anything).
Result OpenPath(int base_fd, const std::string& relative, Method method, unique_fd::UniqueFd* out,
                std::string* err) {
  std::vector<std::string> parts;
  if (!SplitRelative(relative, &parts, err)) return Result::kError;
  if (method == Method::kAuto) method = KernelHasOpenat2() ? Method::kOpenat2 : Method::kWalk;
  if (method == Method::kOpenat2) {
    const long fd = Openat2(base_fd, relative.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return MapOpenErrno(errno, relative, "openat2", err);
    out->Reset(static_cast<int>(fd));
    return Result::kOk;
  }
  unique_fd::UniqueFd cur;  // the component walked so far (none yet: base_fd)
  for (size_t i = 0; i < parts.size(); ++i) {
    unique_fd::UniqueFd next(
        openat(cur.ok() ? cur.get() : base_fd, parts[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.ok()) return MapOpenErrno(errno, relative, "openat(O_NOFOLLOW)", err);
    struct stat st;
    if (fstat(next.get(), &st) != 0) {
      return Fail(Result::kError, err, "fstat " + relative + ": " + Errno(errno));
    }
    if (S_ISLNK(st.st_mode)) {
      return Fail(Result::kRefused, err,
                  relative + ": refused: component '" + parts[i] + "' is a symbolic link");
    }
    if (i + 1 < parts.size() && !S_ISDIR(st.st_mode)) {
      return Fail(Result::kRefused, err,
                  relative + ": refused: component '" + parts[i] + "' is " +
                      DescribeMode(st.st_mode) + ", not a directory");
    }
    cur = std::move(next);
  }
  *out = std::move(cur);
  return Result::kOk;
}

// The final object as O_PATH, refused unless its type (S_IFMT bits) is
// `type`: checked before anything opens it for reading, so a FIFO or device
// in a log's place is never opened. On kOk *path_fd and *st are set.
Result OpenPathOfType(int base_fd, const std::string& relative, Method method, unsigned type,
                      unique_fd::UniqueFd* path_fd, struct stat* st, std::string* err) {
  unique_fd::UniqueFd fd;
  const Result r = OpenPath(base_fd, relative, method, &fd, err);
  if (r != Result::kOk) return r;
  if (fstat(fd.get(), st) != 0) {
    return Fail(Result::kError, err, "fstat " + relative + ": " + Errno(errno));
  }
  if ((st->st_mode & S_IFMT) != type) {
    return Fail(
        Result::kRefused, err,
        relative + ": refused: " + DescribeMode(st->st_mode) + ", not " + DescribeMode(type));
  }
  *path_fd = std::move(fd);
  return Result::kOk;
}

}  // namespace

bool KernelHasOpenat2() {
  static const bool has = [] {
    const long fd = Openat2(AT_FDCWD, "/", O_PATH | O_CLOEXEC);
    if (fd >= 0) {
      const unique_fd::UniqueFd probe(static_cast<int>(fd));  // closed on return
      return true;
    }
    return errno != ENOSYS;
  }();
  return has;
}

const char* DescribeMode(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    default: return "an unknown file type";
  }
}

Result OpenRegular(int base_fd, const std::string& relative, Method method, int* fd,
                   std::string* err) {
  unique_fd::UniqueFd path_fd;
  struct stat st;
  const Result r = OpenPathOfType(base_fd, relative, method, S_IFREG, &path_fd, &st, err);
  if (r != Result::kOk) return r;
  // Reopen the very inode the O_PATH fd pins, for reading.
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", path_fd.get());
  unique_fd::UniqueFd rfd(OpenForReading([&](int flags) { return open(proc_path, flags); }));
  if (!rfd.ok() && errno == ENOENT) {
    // No /proc: open by name again; the fstat below catches a swap.
    if (method == Method::kOpenat2 || (method == Method::kAuto && KernelHasOpenat2())) {
      rfd.Reset(OpenForReading([&](int flags) {
        const long l = Openat2(base_fd, relative.c_str(), static_cast<unsigned long long>(flags));
        return l < 0 ? -1 : static_cast<int>(l);
      }));
    } else {
      rfd.Reset(OpenForReading(
          [&](int flags) { return openat(base_fd, relative.c_str(), flags | O_NOFOLLOW); }));
    }
  }
  if (!rfd.ok()) return MapOpenErrno(errno, relative, "open", err);
  struct stat st2;
  if (fstat(rfd.get(), &st2) != 0) {
    return Fail(Result::kError, err, "fstat " + relative + ": " + Errno(errno));
  }
  if (!S_ISREG(st2.st_mode) || file_id::FileId::Of(st2) != file_id::FileId::Of(st)) {
    return Fail(Result::kRefused, err,
                relative + ": refused: replaced while being opened (now " +
                    DescribeMode(st2.st_mode) + ")");
  }
  *fd = rfd.Release();
  return Result::kOk;
}

Result OpenDirectory(int base_fd, const std::string& relative, Method method, int* fd,
                     std::string* err) {
  unique_fd::UniqueFd path_fd;
  struct stat st;
  const Result r = OpenPathOfType(base_fd, relative, method, S_IFDIR, &path_fd, &st, err);
  if (r != Result::kOk) return r;
  *fd = path_fd.Release();
  return Result::kOk;
}

}  // namespace secure_open
