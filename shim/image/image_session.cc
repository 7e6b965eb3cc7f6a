#include "image_session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "image_scan.h"

namespace image_session {
namespace {

void WriteWithPrefix(int fd, std::string_view kind, image_options::Subcommand sub,
                     const image_text::Text& text) {
  image_text::Text prefix;
  prefix.Add("agt-deny-shim: ", kind, image_options::Name(sub), ": ");
  image_text::WriteLine(fd, prefix.view(), text);
}

}  // namespace

bool Open(image_options::Subcommand sub, const image_options::Options& options, Session* s,
          image_text::Text* err) {
  s->sub = sub;
  if (!image_root::OpenRoot(options.root, &s->root, err)) return false;
  if (!image_root::OpenRealDirs(s->root.get(), &s->dirs, err)) return false;
  if (!image_link::FindShim(s->root.get(), options.shim, &s->shim, err)) return false;
  image_root::WalkResult r = image_root::Walk(s->root.get(), image_root::kPinnedDir,
                                              image_root::WalkMode::kDirectory, &s->pinned, err);
  if (r == image_root::WalkResult::kError) return false;
  s->pinned_present = r == image_root::WalkResult::kOk;
  if (s->pinned_present) {
    for (std::size_t i = 0; i < s->dirs.dirs.size(); ++i) {
      const image_root::RealDir& d = s->dirs.dirs[i];
      if (d.present && d.dir.st.st_dev == s->pinned.st.st_dev &&
          d.dir.st.st_ino == s->pinned.st.st_ino) {
        err->Add("the pinned directory ", image_root::kPinnedDir, " is the same directory as ",
                 d.listed);
        return false;
      }
    }
  }
  return true;
}

bool EnsurePinned(Session* s, image_text::Text* err) {
  if (s->pinned_present) return true;
  bool created = false;
  if (!image_root::EnsureDir(s->root.get(), image_root::kPinnedDir, &created, err)) return false;
  image_root::WalkResult r = image_root::Walk(s->root.get(), image_root::kPinnedDir,
                                              image_root::WalkMode::kDirectory, &s->pinned, err);
  if (r != image_root::WalkResult::kOk) {
    if (err->empty()) err->Add("the pinned directory vanished after mkdirat");
    return false;
  }
  s->pinned_present = true;
  if (created) {
    image_text::Text t;
    t.Add("created ", image_root::kPinnedDir);
    Report(s->sub, t);
  }
  return true;
}

bool Join(std::string_view dir, std::string_view name, image_root::PathBuf* out) {
  return out->Set(dir) && out->Push(name);
}

bool Lookup(const Session& s, int i, std::string_view name, image_root::Located* out,
            image_text::Text* err) {
  const image_root::Located& dir = i < 0 ? s.pinned : s.dirs.dirs[static_cast<std::size_t>(i)].dir;
  image_root::PathBuf path;
  if (!Join(dir.path.view(), name, &path)) {
    err->Add("path too long: ", image_text::Quoted{dir.path.view()}, "/", image_text::Quoted{name});
    return false;
  }
  image_root::WalkResult r =
      image_root::Walk(s.root.get(), path.view(), image_root::WalkMode::kEntry, out, err);
  if (r == image_root::WalkResult::kMissing) {
    err->Add("directory ", image_text::Quoted{dir.path.view()}, " vanished");
    return false;
  }
  return r == image_root::WalkResult::kOk;
}

bool LookupCommand(const Session& s, int i, std::string_view name, image_root::Located* out,
                   image_text::Text* err) {
  if (!Lookup(s, i, name, out, err)) {
    err->Add("; nothing was changed");
    return false;
  }
  if (out->exists && S_ISDIR(out->st.st_mode)) {
    err->Add(out->path.view(), " is a directory, not a command; nothing was changed");
    return false;
  }
  return true;
}

const char* AllowedFiles::Find(dev_t dev, ino_t ino) const {
  for (std::size_t i = 0; i < count; ++i) {
    if (files[i].dev == dev && files[i].ino == ino) return files[i].name;
  }
  return nullptr;
}

namespace {

struct Collector {
  const Session* s;
  AllowedFiles* out;
  image_text::Text* err;
  bool full = false;
};

void CollectOne(void* context, const image_scan::Entry& e) {
  Collector* c = static_cast<Collector*>(context);
  std::string_view name(e.name);
  if (c->full || name.size() > image_names::kMaxNameLength) return;
  image_root::PathBuf path;
  image_root::Located target;
  image_text::Text why;
  if (!Join(c->s->pinned.path.view(), name, &path) ||
      image_root::Walk(c->s->root.get(), path.view(), image_root::WalkMode::kFollow, &target,
                       &why) != image_root::WalkResult::kOk ||
      !target.exists || !S_ISREG(target.st.st_mode)) {
    return;  // runs nothing: nothing to protect
  }
  if (c->s->shim.present && target.st.st_dev == c->s->shim.dev &&
      target.st.st_ino == c->s->shim.ino)
    return;
  if (c->out->count == AllowedFiles::kMax) {
    c->err->Add("more than ", AllowedFiles::kMax, " allowed commands in ",
                c->s->pinned.path.view());
    c->full = true;
    return;
  }
  AllowedFiles::File& f = c->out->files[c->out->count++];
  f.dev = target.st.st_dev;
  f.ino = target.st.st_ino;
  std::memcpy(f.name, name.data(), name.size());
  f.name[name.size()] = '\0';
}

}  // namespace

bool CollectAllowedFiles(const Session& s, AllowedFiles* out, image_text::Text* err) {
  out->count = 0;
  if (!s.pinned_present) return true;
  Collector c{&s, out, err};
  return image_scan::ForEachName(s.pinned.dir.get(), s.pinned.path.view(), CollectOne, &c, err) &&
         !c.full;
}

bool InCommandDir(const Session& s, std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return false;
  std::string_view parent = slash == 0 ? std::string_view("/") : image_text::Slice(path, 0, slash);
  if (s.pinned_present && parent == s.pinned.path.view()) return true;
  if (!s.pinned_present && parent == image_root::kPinnedDir) return true;
  for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) {
    if (s.dirs.Unique(i) && parent == s.dirs.dirs[i].dir.path.view()) return true;
  }
  return false;
}

void Describe(const image_root::Located& entry, image_text::Text* out) {
  if (!entry.exists) {
    out->Add("absent");
    return;
  }
  mode_t m = entry.st.st_mode;
  if (S_ISREG(m)) {
    out->Add("regular file, mode ", image_text::Octal{static_cast<unsigned>(m)});
  } else if (S_ISLNK(m)) {
    char buf[PATH_MAX + 1];
    std::string_view target;
    image_text::Text why;
    if (image_link::ReadLink(entry.dir.get(), entry.name, buf, sizeof buf, &target, &why)) {
      out->Add("symlink to ", image_text::Quoted{target});
    } else {
      out->Add("unreadable symlink");
    }
  } else if (S_ISDIR(m)) {
    out->Add("directory");
  } else {
    out->Add("special file");
  }
}

void Report(image_options::Subcommand sub, const image_text::Text& text) {
  WriteWithPrefix(1, "", sub, text);
}

void Warn(image_options::Subcommand sub, const image_text::Text& text) {
  WriteWithPrefix(2, "warning: ", sub, text);
}

void Error(image_options::Subcommand sub, const image_text::Text& text) {
  WriteWithPrefix(2, "error: ", sub, text);
}

int Start(image_options::Subcommand sub, int argc, char** argv, image_options::Options* options) {
  image_text::Text err;
  if (!image_options::Parse(sub, argc, argv, options, &err)) {
    Error(sub, err);
    return 2;
  }
  if (options->help) {
    image_options::WriteUsage(sub, 1);
    return 0;
  }
  return -1;
}

int Begin(image_options::Subcommand sub, int argc, char** argv, const char* env_name,
          image_options::Default fallback, image_options::Options* options,
          image_names::NameList* names, image_options::Source* source, Session* s,
          image_names::Aliases aliases) {
  int status = Start(sub, argc, argv, options);
  if (status >= 0) return status;
  image_text::Text err;
  if (!image_options::LoadList(options->names_set, options->names, "--names", env_name, fallback,
                               names, source, &err, aliases)) {
    err.Add("; nothing was changed");
    Error(sub, err);
    return 2;
  }
  if (!Open(sub, *options, s, &err)) {
    err.Add("; nothing was changed");
    Error(sub, err);
    return 1;
  }
  return -1;
}

}  // namespace image_session
