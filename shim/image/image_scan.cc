#include "image_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "image_root.h"

namespace image_scan {
namespace {

// Deep enough for any real tree; deeper is a hostile root and fails.
constexpr int kMaxDepth = 128;
constexpr std::size_t kDirBuffer = 4096;

// The kernel's linux_dirent64 (glibc and musl name it differently).
struct Dirent64 {
  std::uint64_t ino;
  std::int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

struct Walker {
  Callback visit;
  void* context;
  Stats* stats;
  image_text::Text* unreadable_first;
  image_text::Text* err;
  image_root::PathBuf path;
};

bool ScanDir(Walker* w, int dir_fd, int depth);

// Reads dir_fd to its end with getdents64, calling each(context, name) for
// every name but "." and ".."; stops when it returns false.
template <typename Each>
bool ReadNames(int dir_fd, std::string_view shown, image_text::Text* err, Each each) {
  alignas(Dirent64) char buf[kDirBuffer];
  for (;;) {
    long n = syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
    if (n < 0) {
      err->Add("getdents64 ", image_text::Quoted{shown}, ": ", image_text::Errno{errno});
      return false;
    }
    if (n == 0) return true;
    for (long pos = 0; pos < n;) {
      const Dirent64* d = reinterpret_cast<const Dirent64*>(buf + pos);
      pos += d->reclen;
      if (std::strcmp(d->name, ".") == 0 || std::strcmp(d->name, "..") == 0) continue;
      if (!each(d->name)) return false;
    }
  }
}

// One entry of dir_fd: lstat, report, and descend into a directory.
bool Visit(Walker* w, int dir_fd, const char* name, int depth) {
  struct stat st;
  if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return true;  // gone meanwhile
    w->err->Add("fstatat ", image_text::Quoted{w->path.view()}, "/", image_text::Quoted{name}, ": ",
                image_text::Errno{errno});
    return false;
  }
  if (!w->path.Push(name)) {
    w->err->Add("path too long under ", image_text::Quoted{w->path.view()});
    return false;
  }
  ++w->stats->entries;
  w->visit(w->context, Entry{dir_fd, name, &st, w->path.view()});
  bool ok = true;
  if (S_ISDIR(st.st_mode)) {
    image_root::Fd sub(openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat sub_st;
    if (!sub.ok()) {
      if (errno == EACCES) {
        if (w->stats->unreadable++ == 0) w->unreadable_first->Add(w->path.view());
      } else if (errno != ENOENT) {
        w->err->Add("openat ", image_text::Quoted{w->path.view()}, ": ", image_text::Errno{errno});
        ok = false;
      }
    } else if (fstat(sub.get(), &sub_st) != 0 || sub_st.st_dev != st.st_dev ||
               sub_st.st_ino != st.st_ino) {
      w->err->Add(image_text::Quoted{w->path.view()}, " changed while it was scanned");
      ok = false;
    } else {
      ok = ScanDir(w, sub.get(), depth + 1);
    }
  }
  w->path.Pop();
  return ok;
}

bool ScanDir(Walker* w, int dir_fd, int depth) {
  if (depth > kMaxDepth) {
    w->err->Add("more than ", kMaxDepth, " directories deep at ",
                image_text::Quoted{w->path.view()});
    return false;
  }
  struct statfs fs;
  if (fstatfs(dir_fd, &fs) == 0 && IsPseudoFileSystem(static_cast<long>(fs.f_type))) {
    ++w->stats->pseudo_skipped;
    return true;
  }
  ++w->stats->directories;
  return ReadNames(dir_fd, w->path.view(), w->err,
                   [&](const char* name) { return Visit(w, dir_fd, name, depth); });
}

}  // namespace

bool IsPseudoFileSystem(long f_type) {
  switch (static_cast<unsigned long>(f_type) & 0xffffffffUL) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEVPTS_SUPER_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case SECURITYFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case BPF_FS_MAGIC:
    case PSTOREFS_MAGIC:
    case SELINUX_MAGIC:
    case HUGETLBFS_MAGIC:
    case NSFS_MAGIC:
    case 0x19800202UL:  // mqueue
    case 0x62656570UL:  // configfs
    case 0x65735543UL:  // fusectl
    case 0x42494e4dUL:  // binfmt_misc
      return true;
    default: return false;
  }
}

bool ForEachName(int dir_fd, std::string_view shown, Callback visit, void* context,
                 image_text::Text* err) {
  image_root::Fd dir(openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) {
    err->Add("openat ", image_text::Quoted{shown}, ": ", image_text::Errno{errno});
    return false;
  }
  return ReadNames(dir.get(), shown, err, [&](const char* name) {
    visit(context, Entry{dir_fd, name, nullptr, shown});
    return true;
  });
}

bool Scan(int root_fd, Callback visit, void* context, Stats* stats,
          image_text::Text* unreadable_first, image_text::Text* err) {
  Walker w{visit, context, stats, unreadable_first, err, {}};
  image_root::Fd root(fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!root.ok()) {
    err->Add("fcntl(F_DUPFD_CLOEXEC) on the root: ", image_text::Errno{errno});
    return false;
  }
  // getdents64 reads from the fd's offset: a fresh open, not the shared one.
  image_root::Fd dir(openat(root.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.ok()) {
    err->Add("openat the root: ", image_text::Errno{errno});
    return false;
  }
  return ScanDir(&w, dir.get(), 0);
}

}  // namespace image_scan
