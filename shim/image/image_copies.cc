#include "image_copies.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "late_bss.h"

namespace image_copies {
namespace {

using image_text::Text;

constexpr mode_t kExec = S_IXUSR | S_IXGRP | S_IXOTH | S_ISUID | S_ISGID;
constexpr std::size_t kMaxReferences = 512;
constexpr std::size_t kPoolSize = 64 * 1024;

struct Reference {
  dev_t dev;
  ino_t ino;
  off_t size;
  std::size_t path_at, path_len;
  std::string_view name;  // the listed name it is a variant of
};

struct Finder {
  const image_session::Session* s;
  const image_names::NameList* names;
  const image_session::AllowedFiles* allowed;
  DriftFn drift;
  void* context;
  Reference refs[kMaxReferences];
  std::size_t ref_count = 0;
  char pool[kPoolSize];
  std::size_t pool_used = 0;
  Text err;  // the first failure: stops the rest

  std::string_view PathOf(const Reference& r) const {
    return std::string_view(pool + r.path_at, r.path_len);
  }

  bool Exempt(const struct stat& st) const {
    if (s->shim.present && st.st_dev == s->shim.dev && st.st_ino == s->shim.ino) return true;
    return allowed->Find(st.st_dev, st.st_ino) != nullptr;
  }

  // The listed name `file_name` is a variant of, or "".
  std::string_view Match(const char* file_name) const {
    for (std::string_view name : *names) {
      if (image_names::IsVariantOf(file_name, name)) return name;
    }
    return {};
  }
};

void Describe(const struct stat& st, Text* t) {
  t->Add("regular file, mode ", image_text::Octal{static_cast<unsigned>(st.st_mode)}, ", owner ",
         static_cast<unsigned long>(st.st_uid));
}

// First scan: named files become references; executable ones are drift.
void FindNamed(void* context, const image_scan::Entry& e) {
  Finder* f = static_cast<Finder*>(context);
  const struct stat& st = *e.st;
  if (!S_ISREG(st.st_mode) || !f->err.empty()) return;
  std::string_view name = f->Match(e.name);
  if (name.empty() || f->Exempt(st)) return;
  bool by_name_check = name == e.name && image_session::InCommandDir(*f->s, e.path);
  if ((st.st_mode & kExec) != 0 && !by_name_check) {
    Text t;
    t.Add(e.path, ": executable copy of ", name, " outside the command directories (");
    Describe(st, &t);
    t.Add(")");
    f->drift(f->context, t);
  }
  if (st.st_size == 0) return;
  if (f->ref_count == kMaxReferences || kPoolSize - f->pool_used < e.path.size()) {
    f->err.Add("more than ", kMaxReferences, " files named like denied commands (or their paths)");
    return;
  }
  Reference& r = f->refs[f->ref_count++];
  r = Reference{st.st_dev, st.st_ino, st.st_size, f->pool_used, e.path.size(), name};
  std::memcpy(f->pool + f->pool_used, e.path.data(), e.path.size());
  f->pool_used += e.path.size();
}

bool OpenAt(const image_session::Session& s, std::string_view path, image_root::Fd* out,
            Text* err) {
  image_root::Located at;
  if (image_root::Walk(s.root.get(), path, image_root::WalkMode::kEntry, &at, err) !=
          image_root::WalkResult::kOk ||
      !at.exists) {
    if (err->empty()) err->Add(path, " vanished during the audit");
    return false;
  }
  out->Reset(
      openat(at.dir.get(), at.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!out->ok()) {
    err->Add("openat ", path, ": ", image_text::Errno{errno});
    return false;
  }
  return true;
}

// Same bytes? Both files are read to the end in blocks.
bool SameContent(int a, int b, bool* same, Text* err, std::string_view shown) {
  char x[16384], y[16384];
  for (off_t off = 0;; off += static_cast<off_t>(sizeof x)) {
    ssize_t n = pread(a, x, sizeof x, off);
    ssize_t m = pread(b, y, sizeof y, off);
    if (n < 0 || m < 0) {
      err->Add("pread ", shown, ": ", image_text::Errno{errno});
      return false;
    }
    if (n != m || std::memcmp(x, y, static_cast<std::size_t>(n)) != 0) {
      *same = false;
      return true;
    }
    if (n == 0) {
      *same = true;
      return true;
    }
  }
}

// Second scan: an executable file not named like one, with a reference's
// size, is compared with it.
void FindSameContent(void* context, const image_scan::Entry& e) {
  Finder* f = static_cast<Finder*>(context);
  const struct stat& st = *e.st;
  if (!S_ISREG(st.st_mode) || (st.st_mode & kExec) == 0 || st.st_size == 0 || !f->err.empty())
    return;
  if (!f->Match(e.name).empty() || f->Exempt(st)) return;
  image_root::Fd file;
  for (std::size_t i = 0; i < f->ref_count; ++i) {
    const Reference& r = f->refs[i];
    if (r.size != st.st_size) continue;
    bool same = r.dev == st.st_dev && r.ino == st.st_ino;  // a hard link
    if (!same) {
      image_root::Fd ref;
      if ((!file.ok() && !OpenAt(*f->s, e.path, &file, &f->err)) ||
          !OpenAt(*f->s, f->PathOf(r), &ref, &f->err) ||
          !SameContent(file.get(), ref.get(), &same, &f->err, e.path)) {
        return;
      }
    }
    if (!same) continue;
    Text t;
    t.Add(e.path, ": executable, same content as ", f->PathOf(r), " (", r.name, ") (");
    Describe(st, &t);
    t.Add(")");
    f->drift(f->context, t);
    return;
  }
}

}  // namespace

bool Find(const image_session::Session& s, const image_names::NameList& names,
          const image_session::AllowedFiles& allowed, DriftFn drift, void* context,
          image_scan::Stats* stats, Text* unreadable_first, Text* err) {
  // Large (refs and their paths): static, not on the stack; verify runs once.
  // Late in .bss, so that it does not stand between a denial's data and libc's.
  AGT_LATE_BSS static Finder f;
  f.s = &s;
  f.names = &names;
  f.allowed = &allowed;
  f.drift = drift;
  f.context = context;
  f.ref_count = 0;
  f.pool_used = 0;
  f.err.Clear();
  if (!image_scan::Scan(s.root.get(), FindNamed, &f, stats, unreadable_first, err)) return false;
  if (f.err.empty() && f.ref_count > 0) {
    image_scan::Stats again;
    Text ignored;
    if (!image_scan::Scan(s.root.get(), FindSameContent, &f, &again, &ignored, err)) return false;
  }
  if (!f.err.empty()) {
    err->Add(f.err);
    return false;
  }
  return true;
}

}  // namespace image_copies
