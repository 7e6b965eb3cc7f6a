// The event half of the watcher: one non-blocking inotify instance, watches
// added on directory fds (opened without following symlinks, so a watch
// never lands on a directory a sandbox pointed elsewhere), and a drain that
// says when the kernel's queue overflowed (events were lost: the caller must
// rescan). The stat half (the reconciliation scan) lives in tail_engine.
#ifndef AGT_COLLECTOR_TAIL_INOTIFY_WATCHER_H_
#define AGT_COLLECTOR_TAIL_INOTIFY_WATCHER_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <string_view>

#include "unique_fd.h"

namespace inotify_watcher {

struct Event {
  int wd = -1;
  uint32_t mask = 0;
  uint32_t cookie = 0;    // pairs IN_MOVED_FROM with IN_MOVED_TO
  std::string_view name;  // empty for events on the watched directory itself
};

enum class AddResult {
  kOk,
  kLimit,  // ENOSPC/ENOMEM: the watch limit; *err names the limits in force
  kError,
};

class Watcher {
 public:
  Watcher() = default;
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // False with *err when no inotify instance can be had (the caller then
  // relies on scans alone).
  bool Init(std::string* err);
  int fd() const { return fd_.get(); }

  // Watches the directory open at dir_fd (O_PATH is enough), or a trusted path.
  AddResult AddDirectoryFd(int dir_fd, uint32_t mask, int* wd, std::string* err);
  AddResult AddPath(const std::string& path, uint32_t mask, int* wd, std::string* err);

  // Reads every queued event; returns true when the queue overflowed.
  bool Drain(const std::function<void(const Event&)>& on_event);

  size_t watches() const { return watches_; }
  void Forget() {  // after an IN_IGNORED: the kernel dropped one watch
    if (watches_ > 0) --watches_;
  }

 private:
  AddResult Add(const char* path, const std::string& what, uint32_t mask, int* wd,
                std::string* err);

  unique_fd::UniqueFd fd_;
  size_t watches_ = 0;
};

}  // namespace inotify_watcher

#endif  // AGT_COLLECTOR_TAIL_INOTIFY_WATCHER_H_
