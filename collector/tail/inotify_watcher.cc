#include "tail/inotify_watcher.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace inotify_watcher {
namespace {

long ReadLong(const char* path) {
  FILE* f = fopen(path, "re");
  if (!f) return -1;
  long v = -1;
  if (fscanf(f, "%ld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

}  // namespace

bool Watcher::Init(std::string* err) {
  fd_.Reset(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!fd_.ok()) {
    *err = std::string("inotify_init1: ") + strerror(errno) +
           (errno == EMFILE ? " (fs.inotify.max_user_instances)" : "");
    return false;
  }
  return true;
}

AddResult Watcher::Add(const char* path, const std::string& what, uint32_t mask, int* wd,
                       std::string* err) {
  if (!fd_.ok()) {
    *err = "no inotify instance";
    return AddResult::kError;
  }
  const int w = inotify_add_watch(fd_.get(), path, mask);
  if (w >= 0) {
    *wd = w;
    ++watches_;
    return AddResult::kOk;
  }
  const int e = errno;
  if (e == ENOSPC || e == ENOMEM) {
    *err = "inotify_add_watch " + what + ": watch limit reached (fs.inotify.max_user_watches = " +
           std::to_string(ReadLong("/proc/sys/fs/inotify/max_user_watches")) +
           ", user.max_inotify_watches of this user namespace = " +
           std::to_string(ReadLong("/proc/sys/user/max_inotify_watches")) + ", " +
           std::to_string(watches_) + " in use by this collector)";
    return AddResult::kLimit;
  }
  *err = "inotify_add_watch " + what + ": " + strerror(e);
  return AddResult::kError;
}

AddResult Watcher::AddDirectoryFd(int dir_fd, uint32_t mask, int* wd, std::string* err) {
  // The magic link names exactly the inode dir_fd holds.
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", dir_fd);
  return Add(proc_path, proc_path, mask | IN_ONLYDIR, wd, err);
}

AddResult Watcher::AddPath(const std::string& path, uint32_t mask, int* wd, std::string* err) {
  return Add(path.c_str(), path, mask | IN_ONLYDIR, wd, err);
}

bool Watcher::Drain(const std::function<void(const Event&)>& on_event) {
  if (!fd_.ok()) return false;
  alignas(struct inotify_event) char buf[16384];
  bool overflow = false;
  for (;;) {
    ssize_t n = read(fd_.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;  // EAGAIN: drained
    }
    if (n == 0) break;
    for (char* p = buf; p < buf + n;) {
      const struct inotify_event* ev = reinterpret_cast<const struct inotify_event*>(p);
      p += sizeof(struct inotify_event) + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) {
        overflow = true;
        continue;
      }
      Event e;
      e.wd = ev->wd;
      e.mask = ev->mask;
      e.cookie = ev->cookie;
      if (ev->len > 0) e.name = std::string_view(ev->name, strnlen(ev->name, ev->len));
      on_event(e);
    }
  }
  return overflow;
}

}  // namespace inotify_watcher
