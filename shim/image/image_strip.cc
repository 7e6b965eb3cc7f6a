#include "image_strip.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>

#include "image_scan.h"

namespace image_strip {

using image_text::Text;

bool Plan::Contains(std::string_view path) const {
  for (std::size_t i = 0; i < count_; ++i) {
    if (View(files_[i].path_at, files_[i].path_len) == path) return true;
  }
  return false;
}

bool Plan::Store(std::string_view s, std::size_t* at) {
  if (kPoolSize - pool_used_ < s.size()) return false;
  // An empty view may have no data pointer, which memcpy must not be given.
  if (!s.empty()) std::memcpy(pool_ + pool_used_, s.data(), s.size());
  *at = pool_used_;
  pool_used_ += s.size();
  return true;
}

bool Plan::Add(std::string_view path, const struct stat& st, std::string_view via,
               image_text::Text* err) {
  if (Contains(path)) return true;
  File f{st.st_dev, st.st_ino, st.st_nlink, 0, 0, path.size(), 0, via.size()};
  if (count_ == kMaxFiles || !Store(path, &f.path_at) || !Store(via, &f.via_at)) {
    err->Add("more than ", kMaxFiles, " files (or their paths) to strip; nothing was changed");
    return false;
  }
  files_[count_++] = f;
  return true;
}

void Plan::CountLink(void* context, const image_scan::Entry& e) {
  Plan* plan = static_cast<Plan*>(context);
  if (!S_ISREG(e.st->st_mode) || e.st->st_nlink < 2) return;
  for (std::size_t i = 0; i < plan->count_; ++i) {
    File& f = plan->files_[i];
    if (f.dev == e.st->st_dev && f.ino == e.st->st_ino) ++f.seen;
  }
}

int Plan::Check(const image_session::Session& s, const image_session::AllowedFiles& allowed) {
  struct stat root_st;
  if (fstat(s.root.get(), &root_st) != 0) {
    Text err;
    err.Add("fstat the root: ", image_text::Errno{errno});
    image_session::Error(s.sub, err);
    return 1;
  }
  bool linked = false;
  for (std::size_t i = 0; i < count_; ++i) linked = linked || files_[i].nlink > 1;
  if (linked) {
    image_scan::Stats stats;
    Text unreadable, err;
    if (!image_scan::Scan(s.root.get(), CountLink, this, &stats, &unreadable, &err)) {
      Text t;
      t.Add("counting hard links: ", err);
      image_session::Error(s.sub, t);
      return 1;
    }
  }
  int refused = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    const File& f = files_[i];
    Text t;
    t.Add("refusing to change ", View(f.path_at, f.path_len), ": ");
    if (f.dev != root_st.st_dev) {
      t.Add("it is on another device than the root (a mount from outside the root?)");
    } else if (f.nlink > 1 && f.seen < f.nlink) {
      t.Add("it has ", static_cast<unsigned long>(f.nlink), " hard links and only ",
            static_cast<unsigned long>(f.seen), " are in the root (one may be outside it)");
    } else if (const char* name = allowed.Find(f.dev, f.ino)) {
      t.Add("it is what the allowed command ", name, " runs (", image_root::kPinnedDir, "/", name,
            "); take it out of the allow list or its name out of this list");
    } else {
      continue;
    }
    image_session::Error(s.sub, t);
    ++refused;
  }
  return refused;
}

bool Plan::Decide(const image_session::Session& s, image_scan::Callback visit, void* context,
                  const image_text::Text* visit_err, const image_session::AllowedFiles& allowed,
                  int failed) {
  image_scan::Stats stats;
  Text unreadable, err;
  if (!image_scan::Scan(s.root.get(), visit, context, &stats, &unreadable, &err) ||
      !visit_err->empty()) {
    if (err.empty()) err.Add(*visit_err);
    image_session::Error(s.sub, err);
    ++failed;
  }
  if (failed == 0) failed = Check(s, allowed);
  if (failed == 0) return true;
  Text t;
  t.Add(failed, " failed; nothing was changed");
  image_session::Error(s.sub, t);
  return false;
}

int Plan::Apply(const image_session::Session& s) {
  int failed = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    const File& f = files_[i];
    std::string_view path = View(f.path_at, f.path_len);
    Text err;
    image_root::Located at;
    if (image_root::Walk(s.root.get(), path, image_root::WalkMode::kEntry, &at, &err) !=
            image_root::WalkResult::kOk ||
        !at.exists) {
      if (err.empty()) err.Add(path, " vanished before it was stripped");
      image_session::Error(s.sub, err);
      ++failed;
      continue;
    }
    image_root::Fd fd;
    struct stat st;
    if (!image_root::OpenForChmod(at, f.dev, f.ino, "stripped", &fd, &st, &err)) {
      image_session::Error(s.sub, err);
      ++failed;
      continue;
    }
    mode_t mode = st.st_mode & 07777;
    if ((mode & kStripBits) == 0) continue;  // another name of a file already stripped
    if (fchmod(fd.get(), mode & ~kStripBits) != 0) {
      err.Add("fchmod ", path, ": ", image_text::Errno{errno});
      image_session::Error(s.sub, err);
      ++failed;
      continue;
    }
    ++changed_;
    Text t;
    t.Add("stripped ", path, " (mode ", image_text::Octal{mode}, " -> ",
          image_text::Octal{mode & ~kStripBits}, ")");
    if (f.via_len != 0) t.Add(" via ", View(f.via_at, f.via_len));
    image_session::Report(s.sub, t);
  }
  return failed;
}

}  // namespace image_strip
