#include "denied_log.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"

namespace denied_log {
namespace {

constexpr std::size_t kMaxPathShown = 128;

std::string_view FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

// Builds "<prefix><what> \"<path>\": <reason>\n", shortening the path to fit.
void Warn(std::string_view what, std::string_view path, std::string_view reason,
          std::string_view detail, fixed_buffer::Buffer* warning) {
  warning->Shrink(0);
  bool cut = false;
  // The environment is the sandbox's too: the path gets the rules argv0 and
  // path get, on the whole path before it is cut.
  redact::Spans spans;
  redact::Standalone(path, &spans);
  bool ok = warning->Append(kWarningPrefix) && warning->Append(what) && warning->Append(" ") &&
            record::AppendField(path, spans, kMaxPathShown, warning, &cut) &&
            warning->Append(": ") && warning->Append(reason) && warning->Append(detail) &&
            warning->Append("\n");
  if (!ok) {
    warning->Shrink(0);
    warning->Append(kWarningPrefix);
    warning->Append("failed\n");
  }
}

void WarnErrno(std::string_view what, std::string_view path, int error,
               fixed_buffer::Buffer* warning) {
  const char* text = strerror(error);
  std::string_view detail = error == ELOOP ? " (a symbolic link is refused)" : "";
  Warn(what, path, text, detail, warning);
}

}  // namespace

const char* ChoosePath(const char* env_value, const char* built_in_default) {
  if (env_value != nullptr && env_value[0] != '\0') return env_value;
  if (built_in_default != nullptr && built_in_default[0] != '\0') return built_in_default;
  return nullptr;
}

bool Append(const char* path, std::string_view line, fixed_buffer::Buffer* warning) {
  // The raw syscall keeps the flags exactly as the seccomp filter allows them.
  long fd = syscall(SYS_openat, AT_FDCWD, path, kOpenFlags, kOpenMode);
  bool readable = fd >= 0;
  if (fd < 0 && errno == EACCES)
    fd = syscall(SYS_openat, AT_FDCWD, path, kOpenFlagsWriteOnly, kOpenMode);
  if (fd < 0) {
    WarnErrno("openat", path, errno, warning);
    return false;
  }
  struct stat st;
  if (syscall(SYS_fstat, fd, &st) != 0) {
    WarnErrno("fstat", path, errno, warning);
    close(static_cast<int>(fd));
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    Warn("open", path, FileTypeName(st.st_mode), ", not a regular file", warning);
    close(static_cast<int>(fd));
    return false;
  }
  // A log that does not end in '\n' holds a fragment (a short append when
  // the disk or RLIMIT_FSIZE ran out, or someone else's bytes): a newline
  // first ends it, so the collector rejects the fragment alone and this
  // record is whole. Another denial's append in progress also shows a size
  // that ends mid-line; a second fstat that sees the size move tells it
  // apart (the kernel lets our write in only after that one's whole line).
  // Should both looks fall inside one such append, the cost is one needless
  // newline: an empty line, which the collector reports as such.
  char last = '\n';
  if (readable && st.st_size > 0 && syscall(SYS_pread64, fd, &last, 1, st.st_size - 1) != 1)
    last = '\n';
  struct stat again;
  if (last != '\n' && syscall(SYS_fstat, fd, &again) == 0 && again.st_size != st.st_size)
    last = '\n';
  if (last != '\n') {
    const_cast<char*>(line.data())[-1] = '\n';
    line = std::string_view(line.data() - 1, line.size() + 1);
  }
  // One write() of the whole line: O_APPEND makes it land at the end as one
  // piece, so concurrent denials sharing the log never interleave.
  ssize_t n;
  do {
    n = write(static_cast<int>(fd), line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  int write_errno = errno;
  close(static_cast<int>(fd));
  if (n < 0) {
    WarnErrno("write", path, write_errno, warning);
    return false;
  }
  if (static_cast<std::size_t>(n) != line.size()) {
    char detail_storage[64];
    fixed_buffer::Buffer detail(detail_storage, sizeof detail_storage);
    detail.Append(" (");
    detail.AppendUnsigned(static_cast<std::uint64_t>(n));
    detail.Append(" of ");
    detail.AppendUnsigned(line.size());
    detail.Append(" bytes)");
    Warn("write", path, "short write", detail.view(), warning);
    return false;
  }
  return true;
}

}  // namespace denied_log
