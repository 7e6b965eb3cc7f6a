#include "image_root.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace image_root {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

bool IsDotOrDotDot(std::string_view c) { return c == "." || c == ".."; }

WalkResult TooLong(std::string_view path, image_text::Text* err) {
  err->Add("path too long: ", image_text::Quoted{path});
  return WalkResult::kError;
}

// The next component of `path` from *pos on, skipping runs of '/'; *pos
// moves past it. Empty when none is left.
std::string_view NextComponent(std::string_view path, std::size_t* pos) {
  while (*pos < path.size() && path[*pos] == '/') ++*pos;
  std::size_t end = path.find('/', *pos);
  if (end == std::string_view::npos) end = path.size();
  std::string_view name = image_text::Slice(path, *pos, end - *pos);
  *pos = end;
  return name;
}

// Re-opens the canonical directory `path` from the root, one component at a
// time with O_NOFOLLOW (used after "..", so a parent is never taken from the
// file system's own ".." of a directory that may have moved).
bool OpenCanonical(int root_fd, std::string_view path, Fd* out, image_text::Text* err) {
  Fd cur(fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.ok()) {
    err->Add("fcntl(F_DUPFD_CLOEXEC) on the root: ", image_text::Errno{errno});
    return false;
  }
  std::size_t pos = 0;
  char comp[NAME_MAX + 1];
  for (std::string_view name = NextComponent(path, &pos); !name.empty();
       name = NextComponent(path, &pos)) {
    if (name.size() > NAME_MAX) {
      err->Add("component too long in ", image_text::Quoted{path});
      return false;
    }
    std::memcpy(comp, name.data(), name.size());
    comp[name.size()] = '\0';
    Fd next(openat(cur.get(), comp, kDirFlags));
    if (!next.ok()) {
      err->Add("openat ", image_text::Quoted{path}, ": ", image_text::Errno{errno});
      return false;
    }
    cur = static_cast<Fd&&>(next);
  }
  *out = static_cast<Fd&&>(cur);
  return true;
}

}  // namespace

Fd& Fd::operator=(Fd&& other) {
  if (this != &other) Reset(other.Release());
  return *this;
}

Fd::~Fd() { Reset(); }

int Fd::Release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::Reset(int fd) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
}

void PathBuf::Clear() {
  data_[0] = '/';
  data_[1] = '\0';
  len_ = 0;
}

bool PathBuf::Push(std::string_view component) {
  if (len_ + 1 + component.size() > PATH_MAX) return false;
  data_[len_] = '/';
  std::memcpy(data_ + len_ + 1, component.data(), component.size());
  len_ += 1 + component.size();
  data_[len_] = '\0';
  return true;
}

void PathBuf::Pop() {
  while (len_ > 0 && data_[len_ - 1] != '/') --len_;
  if (len_ > 0) --len_;  // the '/' itself
  if (len_ == 0) data_[0] = '/';
  data_[len_ == 0 ? 1 : len_] = '\0';
}

bool PathBuf::Set(std::string_view path) {
  Clear();
  std::size_t pos = 0;
  for (std::string_view name = NextComponent(path, &pos); !name.empty();
       name = NextComponent(path, &pos)) {
    if (!Push(name)) return false;
  }
  return true;
}

std::string_view PathBuf::Base() const {
  std::string_view v(data_, len_);
  std::size_t slash = v.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : image_text::Slice(v, slash + 1);
}

WalkResult Walk(int root_fd, std::string_view path, WalkMode mode, Located* out,
                image_text::Text* err) {
  // The path still to walk. A symlink's target replaces the component that
  // named it, so the walk continues with target + "/" + the rest.
  char pending[2 * PATH_MAX];
  char scratch[2 * PATH_MAX];
  if (path.size() >= sizeof pending) {
    err->Add("path too long: ", image_text::Quoted{path});
    return WalkResult::kError;
  }
  std::memcpy(pending, path.data(), path.size());
  std::size_t len = path.size();
  std::size_t pos = 0;
  int links = 0;

  Fd cur(fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.ok()) {
    err->Add("fcntl(F_DUPFD_CLOEXEC) on the root: ", image_text::Errno{errno});
    return WalkResult::kError;
  }
  out->path.Clear();
  out->exists = false;
  out->name[0] = '\0';

  for (;;) {
    while (pos < len && pending[pos] == '/') ++pos;
    if (pos == len) break;  // walked every component
    std::size_t end = pos;
    while (end < len && pending[end] != '/') ++end;
    std::string_view comp(pending + pos, end - pos);
    std::size_t after = end;
    while (after < len && pending[after] == '/') ++after;
    bool last = after == len;
    pos = end;

    if (comp.size() > NAME_MAX) {
      err->Add("component too long in ", image_text::Quoted{path});
      return WalkResult::kError;
    }
    if (last && mode != WalkMode::kDirectory && IsDotOrDotDot(comp)) {
      err->Add(image_text::Quoted{path}, " does not name an entry (it ends in . or ..)");
      return WalkResult::kError;
    }
    if (comp == ".") continue;
    if (comp == "..") {
      out->path.Pop();  // ".." at the root stays at the root
      if (!OpenCanonical(root_fd, out->path.view(), &cur, err)) return WalkResult::kError;
      continue;
    }
    char name[NAME_MAX + 1];
    std::memcpy(name, comp.data(), comp.size());
    name[comp.size()] = '\0';

    struct stat st;
    if (fstatat(cur.get(), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      int e = errno;
      if (e == ENOENT && last && mode != WalkMode::kDirectory) {
        std::memcpy(out->name, name, comp.size() + 1);
        if (!out->path.Push(comp)) return TooLong(path, err);
        out->dir = static_cast<Fd&&>(cur);
        out->exists = false;
        return WalkResult::kOk;
      }
      if (e == ENOENT) return WalkResult::kMissing;
      err->Add("fstatat ", image_text::Quoted{out->path.view()}, " entry ",
               image_text::Quoted{comp}, ": ", image_text::Errno{e});
      return WalkResult::kError;
    }

    bool follow = S_ISLNK(st.st_mode) && (!last || mode != WalkMode::kEntry);
    if (last && mode != WalkMode::kDirectory && !follow) {
      std::memcpy(out->name, name, comp.size() + 1);
      if (!out->path.Push(comp)) return TooLong(path, err);
      out->dir = static_cast<Fd&&>(cur);
      out->exists = true;
      out->st = st;
      return WalkResult::kOk;
    }
    if (follow) {
      if (++links > kMaxLinks) {
        err->Add("too many levels of symbolic links in ", image_text::Quoted{path});
        return WalkResult::kError;
      }
      char target[PATH_MAX + 1];
      ssize_t n = readlinkat(cur.get(), name, target, PATH_MAX);
      if (n <= 0) {
        err->Add("readlinkat ", image_text::Quoted{out->path.view()}, " entry ",
                 image_text::Quoted{comp}, ": ", n == 0 ? "empty target" : strerror(errno));
        return WalkResult::kError;
      }
      std::size_t rest = len - pos;
      if (static_cast<std::size_t>(n) + 1 + rest >= sizeof scratch) {
        err->Add("path too long after following links in ", image_text::Quoted{path});
        return WalkResult::kError;
      }
      std::memcpy(scratch, target, static_cast<std::size_t>(n));
      scratch[n] = '/';
      std::memcpy(scratch + n + 1, pending + pos, rest);
      len = static_cast<std::size_t>(n) + 1 + rest;
      std::memcpy(pending, scratch, len);
      pos = 0;
      if (target[0] == '/') {
        out->path.Clear();
        if (!OpenCanonical(root_fd, "/", &cur, err)) return WalkResult::kError;
      }
      // A followed last component may now end in "/": that still names an
      // entry, so strip trailing slashes for entry modes.
      if (mode != WalkMode::kDirectory) {
        while (len > 1 && pending[len - 1] == '/') --len;
      }
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      err->Add(image_text::Quoted{out->path.view()}, " entry ", image_text::Quoted{comp},
               " is not a directory");
      return WalkResult::kError;
    }
    Fd next(openat(cur.get(), name, kDirFlags));
    if (!next.ok()) {
      err->Add("openat ", image_text::Quoted{out->path.view()}, " entry ", image_text::Quoted{comp},
               ": ", image_text::Errno{errno});
      return WalkResult::kError;
    }
    cur = static_cast<Fd&&>(next);
    if (!out->path.Push(comp)) return TooLong(path, err);
  }
  if (mode != WalkMode::kDirectory) {
    // Only reachable when the path (or a link target) named the root itself.
    if (pos == len && out->name[0] == '\0') {
      err->Add(image_text::Quoted{path}, " does not name an entry");
      return WalkResult::kError;
    }
  }
  if (fstat(cur.get(), &out->st) != 0) {
    err->Add("fstat ", image_text::Quoted{out->path.view()}, ": ", image_text::Errno{errno});
    return WalkResult::kError;
  }
  out->dir = static_cast<Fd&&>(cur);
  out->exists = true;
  return WalkResult::kOk;
}

bool OpenForChmod(const Located& at, dev_t dev, ino_t ino, const char* doing, Fd* fd,
                  struct stat* st, image_text::Text* err) {
  *fd =
      Fd(openat(at.dir.get(), at.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd->ok() || fstat(fd->get(), st) != 0) {
    err->Add("openat ", at.path.view(), ": ", image_text::Errno{errno});
    return false;
  }
  if (st->st_dev != dev || st->st_ino != ino || !S_ISREG(st->st_mode)) {
    err->Add(at.path.view(), " changed while it was ", doing, "; not touched");
    return false;
  }
  return true;
}

bool OpenRoot(const char* root, Fd* out, image_text::Text* err) {
  Fd fd(open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.ok()) {
    err->Add("open --root ", image_text::Quoted{root}, ": ", image_text::Errno{errno});
    return false;
  }
  *out = static_cast<Fd&&>(fd);
  return true;
}

bool EnsureDir(int root_fd, std::string_view path, bool* created, image_text::Text* err) {
  *created = false;
  Located loc;
  WalkResult r = Walk(root_fd, path, WalkMode::kDirectory, &loc, err);
  if (r == WalkResult::kOk) return true;
  if (r == WalkResult::kError) return false;
  // Missing: make the parent first, then this one.
  PathBuf parent;
  if (!parent.Set(path)) {
    err->Add("path too long: ", image_text::Quoted{path});
    return false;
  }
  std::string_view base = parent.Base();
  if (base.empty()) {
    err->Add("cannot create the root");
    return false;
  }
  char name[NAME_MAX + 1];
  std::memcpy(name, base.data(), base.size());
  name[base.size()] = '\0';
  parent.Pop();
  bool parent_created = false;
  if (!EnsureDir(root_fd, parent.view(), &parent_created, err)) return false;
  Located dir;
  if (Walk(root_fd, parent.view(), WalkMode::kDirectory, &dir, err) != WalkResult::kOk) {
    if (err->empty()) err->Add("directory ", image_text::Quoted{parent.view()}, " vanished");
    return false;
  }
  if (mkdirat(dir.dir.get(), name, 0755) != 0) {
    if (errno != EEXIST) {
      err->Add("mkdirat ", image_text::Quoted{path}, ": ", image_text::Errno{errno});
      return false;
    }
    Located again;
    if (Walk(root_fd, path, WalkMode::kDirectory, &again, err) != WalkResult::kOk) {
      if (err->empty())
        err->Add(image_text::Quoted{path}, " exists but is not a directory (a dangling link?)");
      return false;
    }
    return true;
  }
  *created = true;
  return true;
}

bool OpenRealDirs(int root_fd, RealDirs* out, image_text::Text* err) {
  for (std::size_t i = 0; i < kRealDirs.size(); ++i) {
    RealDir& d = out->dirs[i];
    d.listed = kRealDirs[i];
    d.present = false;
    d.same_as = -1;
    WalkResult r = Walk(root_fd, kRealDirs[i], WalkMode::kDirectory, &d.dir, err);
    if (r == WalkResult::kError) return false;
    if (r == WalkResult::kMissing) continue;
    d.present = true;
    for (std::size_t j = 0; j < i; ++j) {
      const RealDir& e = out->dirs[j];
      if (e.present && e.same_as < 0 && e.dir.st.st_dev == d.dir.st.st_dev &&
          e.dir.st.st_ino == d.dir.st.st_ino) {
        d.same_as = static_cast<int>(j);
        break;
      }
    }
  }
  return true;
}

}  // namespace image_root
