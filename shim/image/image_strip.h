// Taking exec bits off files, decided in full before anything changes: harden
// (shells, interpreters, encoders) and install (other copies of denied tools)
// fill one Plan, Check refuses what must not be touched, Apply changes the
// rest. Refused: a file on another device than the root, or with more hard
// links than the root holds (both say it may be reached from outside the
// root: a bind mount, a hard link to a host file), and a file an allowed
// command runs (busybox behind allowed applets).
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_STRIP_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_STRIP_H_

#include <sys/stat.h>

#include <cstddef>
#include <string_view>

#include "image_scan.h"
#include "image_session.h"
#include "image_text.h"

namespace image_strip {

inline constexpr mode_t kStripBits = S_IXUSR | S_IXGRP | S_IXOTH | S_ISUID | S_ISGID;

class Plan {
 public:
  static constexpr std::size_t kMaxFiles = 1024;
  static constexpr std::size_t kPoolSize = 128 * 1024;

  // Adds the regular file at `path` (canonical, inside the root; st its
  // lstat), reached `via` another path ("" when none), unless that path is
  // already in the plan. Every name of a hard-linked file is its own entry:
  // on overlayfs changing one name copies it up and the others keep the old
  // inode and its mode. False when the plan is full.
  bool Add(std::string_view path, const struct stat& st, std::string_view via,
           image_text::Text* err);
  std::size_t size() const { return count_; }
  // Files Apply changed (another name of a file already changed is not counted).
  std::size_t changed() const { return changed_; }
  bool Contains(std::string_view path) const;

  // Reports every refusal as an error of `sub`; returns how many (a scan
  // failure counts as one).
  int Check(const image_session::Session& s, const image_session::AllowedFiles& allowed);

  // The last step before anything changes: scans the root with `visit`
  // (which adds other copies to the plan and leaves a failure in
  // *visit_err), then Check. `failed` counts the caller's own failures so
  // far. True to go on; else reports "N failed; nothing was changed".
  bool Decide(const image_session::Session& s, image_scan::Callback visit, void* context,
              const image_text::Text* visit_err, const image_session::AllowedFiles& allowed,
              int failed);

  // Strips every file, re-opened by path with O_NOFOLLOW and checked to be
  // the same inode; reports each. Returns the number of failures.
  int Apply(const image_session::Session& s);

 private:
  struct File {
    dev_t dev;
    ino_t ino;
    nlink_t nlink;
    nlink_t seen;  // links found in the root (Check)
    std::size_t path_at, path_len, via_at, via_len;
  };
  std::string_view View(std::size_t at, std::size_t len) const {
    return std::string_view(pool_ + at, len);
  }
  bool Store(std::string_view s, std::size_t* at);
  static void CountLink(void* context, const image_scan::Entry& e);

  File files_[kMaxFiles];
  std::size_t count_ = 0;
  std::size_t changed_ = 0;
  char pool_[kPoolSize];
  std::size_t pool_used_ = 0;
};

}  // namespace image_strip

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_STRIP_H_
