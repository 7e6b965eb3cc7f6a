#include "image_link.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace image_link {

bool FindShim(int root_fd, std::string_view path_in_image, Shim* out, image_text::Text* err) {
  if (path_in_image.empty() || path_in_image[0] != '/') {
    err->Add("--shim ", image_text::Quoted{path_in_image},
             " must be an absolute path inside the image");
    return false;
  }
  if (!out->path.Set(path_in_image)) {
    err->Add("--shim path too long");
    return false;
  }
  out->present = false;
  image_root::Located loc;
  image_root::WalkResult r =
      image_root::Walk(root_fd, path_in_image, image_root::WalkMode::kFollow, &loc, err);
  if (r == image_root::WalkResult::kError) return false;
  if (r == image_root::WalkResult::kMissing || !loc.exists) return true;
  if (!S_ISREG(loc.st.st_mode)) {
    err->Add("the shim ", image_text::Quoted{path_in_image}, " is not a regular file");
    return false;
  }
  out->present = true;
  out->dev = loc.st.st_dev;
  out->ino = loc.st.st_ino;
  out->mode = loc.st.st_mode;
  out->uid = loc.st.st_uid;
  return true;
}

bool Classify(int root_fd, const image_root::Located& entry, const Shim& shim, Kind* kind,
              image_text::Text* err) {
  if (!entry.exists) {
    *kind = Kind::kAbsent;
    return true;
  }
  *kind = Kind::kOther;
  if (!shim.present) return true;
  if (S_ISREG(entry.st.st_mode)) {
    if (entry.st.st_dev == shim.dev && entry.st.st_ino == shim.ino) *kind = Kind::kShim;
    return true;
  }
  if (!S_ISLNK(entry.st.st_mode)) return true;
  image_root::Located target;
  // A loop or an odd target just means "not the shim", not a failure, so
  // Classify cannot fail today; err keeps it in line with the lookups.
  static_cast<void>(err);
  image_text::Text why;
  image_root::WalkResult r =
      image_root::Walk(root_fd, entry.path.view(), image_root::WalkMode::kFollow, &target, &why);
  if (r == image_root::WalkResult::kOk && target.exists && S_ISREG(target.st.st_mode) &&
      target.st.st_dev == shim.dev && target.st.st_ino == shim.ino) {
    *kind = Kind::kShim;
  }
  return true;
}

bool ReadLink(int dir_fd, const char* name, char* buf, std::size_t size, std::string_view* target,
              image_text::Text* err) {
  ssize_t n = readlinkat(dir_fd, name, buf, size - 1);
  if (n < 0) {
    err->Add("readlinkat ", image_text::Quoted{name}, ": ", image_text::Errno{errno});
    return false;
  }
  buf[n] = '\0';
  *target = std::string_view(buf, static_cast<std::size_t>(n));
  return true;
}

bool ReplaceWithSymlink(int dir_fd, const char* name, std::string_view target,
                        std::string_view shown, image_text::Text* err) {
  char temp[NAME_MAX + 1];
  std::size_t name_len = std::strlen(name);
  if (kTempPrefix.size() + name_len > NAME_MAX) {
    err->Add("name too long for a temporary link: ", image_text::Quoted{shown});
    return false;
  }
  std::memcpy(temp, kTempPrefix.data(), kTempPrefix.size());
  std::memcpy(temp + kTempPrefix.size(), name, name_len + 1);
  char target_z[PATH_MAX + 1];
  if (target.size() > PATH_MAX) {
    err->Add("link target too long for ", image_text::Quoted{shown});
    return false;
  }
  std::memcpy(target_z, target.data(), target.size());
  target_z[target.size()] = '\0';

  struct stat st;
  if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
    err->Add(image_text::Quoted{shown}, " is a directory; not replacing it");
    return false;
  }
  // A leftover from an interrupted run would make symlinkat fail.
  struct stat leftover;
  if (fstatat(dir_fd, temp, &leftover, AT_SYMLINK_NOFOLLOW) == 0 &&
      unlinkat(dir_fd, temp, 0) != 0) {
    err->Add("unlinkat leftover ", image_text::Quoted{temp}, " beside ", image_text::Quoted{shown},
             ": ", image_text::Errno{errno});
    return false;
  }
  if (symlinkat(target_z, dir_fd, temp) != 0) {
    err->Add("symlinkat ", image_text::Quoted{temp}, " beside ", image_text::Quoted{shown}, ": ",
             image_text::Errno{errno});
    return false;
  }
  if (renameat(dir_fd, temp, dir_fd, name) != 0) {
    int e = errno;
    unlinkat(dir_fd, temp, 0);
    err->Add("renameat over ", image_text::Quoted{shown}, ": ", image_text::Errno{e});
    return false;
  }
  return true;
}

}  // namespace image_link
