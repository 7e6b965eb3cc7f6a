// The deny shim inside an image root, and links to it: where it is, whether an
// entry is it (a symlink resolving to it inside the root, or a hard link to
// its inode), and replacing an entry with a symlink atomically.
#ifndef AGT_DENY_SHIM_IMAGE_IMAGE_LINK_H_
#define AGT_DENY_SHIM_IMAGE_IMAGE_LINK_H_

#include <sys/types.h>

#include <string_view>

#include "image_root.h"
#include "image_text.h"

namespace image_link {

// Temporary links are named kTempPrefix + name; a valid command name never
// starts with '.', so they cannot collide with one.
inline constexpr std::string_view kTempPrefix = ".agt-deny-shim.tmp.";

struct Shim {
  image_root::PathBuf path;  // as given (--shim), absolute inside the image
  bool present = false;      // resolved to a regular file
  dev_t dev = 0;
  ino_t ino = 0;
  mode_t mode = 0;
  uid_t uid = 0;
};

// Resolves the shim path (which must be absolute) inside the root.
// A missing shim is not an error here (present stays false).
bool FindShim(int root_fd, std::string_view path_in_image, Shim* out, image_text::Text* err);

enum class Kind {
  kAbsent,  // no entry
  kShim,    // the shim, by symlink(s) or hard link
  kOther,   // anything else, dangling and looping links included
};

// Classifies an entry found by an image_root::Walk in kEntry mode.
bool Classify(int root_fd, const image_root::Located& entry, const Shim& shim, Kind* kind,
              image_text::Text* err);

// Reads the target of the symlink dir/name into buf (NUL-terminated).
bool ReadLink(int dir_fd, const char* name, char* buf, std::size_t size, std::string_view* target,
              image_text::Text* err);

// Makes dir/name a symlink to `target`, atomically: a temporary link in the
// same directory renamed over whatever was there (file, symlink, dangling
// symlink). A directory in the way is refused. `shown` is the entry's path
// inside the root, for messages.
bool ReplaceWithSymlink(int dir_fd, const char* name, std::string_view target,
                        std::string_view shown, image_text::Text* err);

}  // namespace image_link

#endif  // AGT_DENY_SHIM_IMAGE_IMAGE_LINK_H_
