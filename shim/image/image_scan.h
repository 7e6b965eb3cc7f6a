// Every entry of an image root, depth first: the audit that looks everywhere
// (a second git in /usr/lib/git-core, a curl in /opt/bin) and the link count
// of a file harden or install would change. Directories are read with
// getdents64 into a buffer on the stack (no heap), opened one component at a
// time with O_NOFOLLOW; symlinks are reported, never followed. Pseudo file
// systems (proc, sysfs, cgroup, ...) are not entered: what they hold is the
// kernel's, not the image's.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_SCAN_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_SCAN_H_

#include <sys/stat.h>

#include <string_view>

#include "image_text.h"

namespace image_scan {

// One entry as found: its directory (open), name, lstat, and its path inside
// the root.
struct Entry {
  int dir_fd;
  const char* name;
  const struct stat* st;
  std::string_view path;
};

using Callback = void (*)(void* context, const Entry& entry);

struct Stats {
  unsigned long directories = 0;
  unsigned long entries = 0;
  unsigned long pseudo_skipped = 0;  // pseudo file system mounts not entered
  unsigned long unreadable = 0;      // directories we may not read (EACCES)
};

// Calls `visit` for every entry under the root (directories included, "."
// and ".." not). A directory that cannot be read for lack of permission (the
// sandbox user auditing /root) is counted, the first one named in
// *unreadable_first; any other failure stops the scan: false with *err.
bool Scan(int root_fd, Callback visit, void* context, Stats* stats,
          image_text::Text* unreadable_first, image_text::Text* err);

// Calls `visit` for each entry of the one directory open at dir_fd (not
// descending; st is null: the caller stats what it needs).
bool ForEachName(int dir_fd, std::string_view shown, Callback visit, void* context,
                 image_text::Text* err);

// True for file system types that hold no image content (proc, sysfs, ...).
bool IsPseudoFileSystem(long f_type);

}  // namespace image_scan

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_SCAN_H_
