#include "tail/secure_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace secure_open {
namespace {

constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

std::string Errno(int e) { return strerror(e); }

Result Fail(Result r, std::string* err, const std::string& msg) {
  if (err) *err = msg;
  return r;
}

// Splits "a/b/c" and refuses empty, "." and ".." components: the relative
// part comes from a pattern plus a validated sandbox id, so any of these is
// a programming or configuration error, never something to resolve.
bool SplitRelative(const std::string& relative, std::vector<std::string>* parts,
                   std::string* err) {
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
    case ENOENT:
      return Fail(Result::kMissing, err, relative + ": does not exist");
    case ELOOP:
      return Fail(Result::kRefused, err,
                  relative + ": refused: a symbolic link in the path (" + syscall_name + ": " +
                      Errno(e) + ")");
    case EXDEV:
      return Fail(Result::kRefused, err,
                  relative + ": refused: resolves outside the watched directory (" +
                      syscall_name + ": " + Errno(e) + ")");
    case ENOTDIR:
      return Fail(Result::kRefused, err,
                  relative + ": refused: a path component is not a directory (" + syscall_name +
                      ")");
    case EMFILE:
    case ENFILE:
      return Fail(Result::kNoDescriptors, err,
                  std::string(syscall_name) + " " + relative + ": " + Errno(e) +
                      " (open file limit reached; raise RLIMIT_NOFILE / fs.file-max)");
    default:
      return Fail(Result::kError, err, std::string(syscall_name) + " " + relative + ": " + Errno(e));
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
Result OpenPath(int base_fd, const std::string& relative, Method method, int* out,
                std::string* err) {
  std::vector<std::string> parts;
  if (!SplitRelative(relative, &parts, err)) return Result::kError;
  if (method == Method::kAuto) method = KernelHasOpenat2() ? Method::kOpenat2 : Method::kWalk;
  if (method == Method::kOpenat2) {
    long fd = Openat2(base_fd, relative.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return MapOpenErrno(errno, relative, "openat2", err);
    *out = static_cast<int>(fd);
    return Result::kOk;
  }
  int cur = base_fd;
  for (size_t i = 0; i < parts.size(); ++i) {
    int next = openat(cur, parts[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    if (cur != base_fd) close(cur);
    if (next < 0) return MapOpenErrno(e, relative, "openat(O_NOFOLLOW)", err);
    struct stat st;
    if (fstat(next, &st) != 0) {
      e = errno;
      close(next);
      return Fail(Result::kError, err, "fstat " + relative + ": " + Errno(e));
    }
    if (S_ISLNK(st.st_mode)) {
      close(next);
      return Fail(Result::kRefused, err,
                  relative + ": refused: component '" + parts[i] + "' is a symbolic link");
    }
    if (i + 1 < parts.size() && !S_ISDIR(st.st_mode)) {
      close(next);
      return Fail(Result::kRefused, err,
                  relative + ": refused: component '" + parts[i] + "' is " +
                      DescribeMode(st.st_mode) + ", not a directory");
    }
    cur = next;
  }
  *out = cur;
  return Result::kOk;
}

// The final object as O_PATH, refused unless its type (S_IFMT bits) is
// `type`: checked before anything opens it for reading, so a FIFO or device
// in a log's place is never opened. On kOk *path_fd and *st are set.
Result OpenPathOfType(int base_fd, const std::string& relative, Method method, unsigned type,
                      int* path_fd, struct stat* st, std::string* err) {
  Result r = OpenPath(base_fd, relative, method, path_fd, err);
  if (r != Result::kOk) return r;
  if (fstat(*path_fd, st) != 0) {
    int e = errno;
    close(*path_fd);
    return Fail(Result::kError, err, "fstat " + relative + ": " + Errno(e));
  }
  if ((st->st_mode & S_IFMT) != type) {
    close(*path_fd);
    return Fail(Result::kRefused, err,
                relative + ": refused: " + DescribeMode(st->st_mode) + ", not " +
                    DescribeMode(type));
  }
  return Result::kOk;
}

}  // namespace

bool KernelHasOpenat2() {
  static const bool has = [] {
    long fd = Openat2(AT_FDCWD, "/", O_PATH | O_CLOEXEC);
    if (fd >= 0) {
      close(static_cast<int>(fd));
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
  int path_fd = -1;
  struct stat st;
  Result r = OpenPathOfType(base_fd, relative, method, S_IFREG, &path_fd, &st, err);
  if (r != Result::kOk) return r;
  // Reopen the very inode the O_PATH fd pins, for reading.
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", path_fd);
  int rfd = open(proc_path, kReadFlags);
  if (rfd < 0 && errno == ENOENT) {
    // No /proc: open by name again; the fstat below catches a swap.
    if (method == Method::kOpenat2 ||
        (method == Method::kAuto && KernelHasOpenat2())) {
      long l = Openat2(base_fd, relative.c_str(), kReadFlags);
      rfd = l < 0 ? -1 : static_cast<int>(l);
    } else {
      rfd = openat(base_fd, relative.c_str(), kReadFlags | O_NOFOLLOW);
    }
  }
  int e = errno;
  close(path_fd);
  if (rfd < 0) return MapOpenErrno(e, relative, "open", err);
  struct stat st2;
  if (fstat(rfd, &st2) != 0) {
    e = errno;
    close(rfd);
    return Fail(Result::kError, err, "fstat " + relative + ": " + Errno(e));
  }
  if (!S_ISREG(st2.st_mode) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
    close(rfd);
    return Fail(Result::kRefused, err,
                relative + ": refused: replaced while being opened (now " +
                    DescribeMode(st2.st_mode) + ")");
  }
  *fd = rfd;
  return Result::kOk;
}

Result OpenDirectory(int base_fd, const std::string& relative, Method method, int* fd,
                     std::string* err) {
  int path_fd = -1;
  struct stat st;
  Result r = OpenPathOfType(base_fd, relative, method, S_IFDIR, &path_fd, &st, err);
  if (r != Result::kOk) return r;
  *fd = path_fd;
  return Result::kOk;
}

}  // namespace secure_open
