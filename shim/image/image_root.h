// Paths inside an image root, resolved as if the root were "/" (chroot
// semantics) without leaving it: every component is opened relative to a
// directory fd with O_NOFOLLOW, a symlink is read and its target resolved
// again inside the root (an absolute target restarts at the root, ".." stops
// at the root). So /bin -> usr/bin (Debian's merged /usr) works, and
// /usr/bin/x -> /../../etc/passwd stays inside. The root is hostile-ish: a
// link swapped in between two steps makes the walk fail, never escape.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_ROOT_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_ROOT_H_

#include <limits.h>
#include <sys/stat.h>

#include <array>
#include <cstddef>
#include <string_view>

#include "image_text.h"

namespace image_root {

// The directories whose entries are the "real paths" of commands, in PATH
// order, and the pinned PATH directory of the sandbox image.
inline constexpr std::array<std::string_view, 6> kRealDirs = {
    "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"};
inline constexpr std::string_view kPinnedDir = "/usr/local/sandbox-bin";
inline constexpr std::string_view kDefaultShimPath = "/usr/local/lib/agt/agt-deny-shim";
// More symlinks than this in one walk is a loop (the kernel's own limit).
inline constexpr int kMaxLinks = 40;

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) : fd_(other.Release()) {}
  Fd& operator=(Fd&& other);
  ~Fd();
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }
  int Release();
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// An absolute path inside the root ("/usr/bin/curl"), "/" for the root.
class PathBuf {
 public:
  PathBuf() { Clear(); }
  void Clear();
  // Appends "/" + component; false when it would not fit.
  bool Push(std::string_view component);
  void Pop();
  bool Set(std::string_view path);
  std::string_view view() const { return std::string_view(data_, len_ == 0 ? 1 : len_); }
  // The last component ("" for the root).
  std::string_view Base() const;

 private:
  char data_[PATH_MAX + 1];
  std::size_t len_ = 0;  // 0 means "/"
};

enum class WalkMode {
  kDirectory,  // the whole path names a directory: open it
  kEntry,      // stop at the last component: its parent dir and lstat
  kFollow,     // like kEntry, but a symlink as last component is followed
};

enum class WalkResult {
  kOk,       // found; in entry modes the entry itself may be absent
  kMissing,  // a directory on the way (or the directory in kDirectory) is absent
  kError,    // anything else; *err says what
};

struct Located {
  Fd dir;                   // kDirectory: the directory; else its parent
  char name[NAME_MAX + 1];  // entry modes: the last component
  PathBuf path;             // canonical path inside the root
  bool exists = false;      // entry modes: the entry is present
  struct stat st {};        // lstat of the entry (fstat of the directory)
};

// Resolves `path` (absolute or relative to the root, same thing) inside the
// root open at root_fd.
WalkResult Walk(int root_fd, std::string_view path, WalkMode mode, Located* out,
                image_text::Text* err);

// Opens the regular file the entry `at` names (O_RDONLY, a final symlink not
// followed) to change its mode, and checks it is still the file dev/ino
// found before; else *err says why, "<path> changed while it was <doing>;
// not touched" when it is another file now.
bool OpenForChmod(const Located& at, dev_t dev, ino_t ino, const char* doing, Fd* fd,
                  struct stat* st, image_text::Text* err);

// Opens the root directory given on the command line (the one place a
// host path is followed as the host resolves it).
bool OpenRoot(const char* root, Fd* out, image_text::Text* err);

// Creates the directory `path` inside the root (mode 0755) and any missing
// parents, each resolved inside the root; *created says whether the last one
// was made.
bool EnsureDir(int root_fd, std::string_view path, bool* created, image_text::Text* err);

// One of kRealDirs as found in the root.
struct RealDir {
  std::string_view listed;  // as in kRealDirs
  bool present = false;
  int same_as = -1;  // index of an earlier entry naming the same directory
  Located dir;       // kDirectory walk result when present
};

struct RealDirs {
  std::array<RealDir, kRealDirs.size()> dirs;
  // Present and not a duplicate: the directories to work on.
  bool Unique(std::size_t i) const { return dirs[i].present && dirs[i].same_as < 0; }
};

bool OpenRealDirs(int root_fd, RealDirs* out, image_text::Text* err);

}  // namespace image_root

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_ROOT_H_
