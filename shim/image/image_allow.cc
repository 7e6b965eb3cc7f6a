// agt-deny-shim allow: fills the pinned PATH directory with symlinks to the
// allowed commands' real paths (the first executable found in PATH order
// among the real-path directories). A name found nowhere is warned about. An
// alias (python=python3) is linked to the real path its target was found at.
#include <sys/stat.h>

#include "image_session.h"
#include "image_tool.h"

namespace image_tool {
namespace {

using image_options::Subcommand;
using image_session::Session;
using image_text::Quoted;
using image_text::Text;

constexpr Subcommand kSub = Subcommand::kAllow;

enum class Found { kYes, kNo, kIsShim, kFailed };

// Finds `name` in the real dirs: *path is its entry (not the file a symlink
// names, so alternatives and multi-call names keep working).
Found FindCommand(const Session& s, std::string_view name, image_root::PathBuf* path) {
  Text err;
  for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) {
    if (!s.dirs.Unique(i)) continue;
    image_root::Located entry;
    if (!image_session::Lookup(s, static_cast<int>(i), name, &entry, &err)) {
      image_session::Error(kSub, err);
      return Found::kFailed;
    }
    if (!entry.exists) continue;
    image_root::Located target;
    image_root::WalkResult r = image_root::Walk(s.root.get(), entry.path.view(),
                                                image_root::WalkMode::kFollow, &target, &err);
    if (r != image_root::WalkResult::kOk || !target.exists || !S_ISREG(target.st.st_mode)) {
      err.Clear();
      Text t;
      t.Add(entry.path.view(), " does not lead to a regular file; looking further");
      image_session::Warn(kSub, t);
      continue;
    }
    if (s.shim.present && target.st.st_dev == s.shim.dev && target.st.st_ino == s.shim.ino) {
      Text t;
      t.Add(name, ": ", entry.path.view(),
            " is the deny shim; not allowing it (run allow before install)");
      image_session::Warn(kSub, t);
      return Found::kIsShim;
    }
    if ((target.st.st_mode & 0111) == 0) {
      Text t;
      t.Add(entry.path.view(), " is not executable (mode ", image_text::Octal{target.st.st_mode},
            ", stripped?); looking further");
      image_session::Warn(kSub, t);
      continue;
    }
    *path = entry.path;
    return Found::kYes;
  }
  return Found::kNo;
}

}  // namespace

int Allow(int argc, char** argv) {
  image_options::Options options;
  image_names::NameList names;
  image_options::Source source;
  Session s;
  int status =
      image_session::Begin(kSub, argc, argv, "ALLOWED_BIN_NAMES", image_options::Default::kRequired,
                           &options, &names, &source, &s, image_names::Aliases::kAccepted);
  if (status >= 0) return status;
  Text err;
  if (s.pinned_present) {
    for (std::string_view name : names) {
      image_root::Located entry;
      if (!image_session::LookupCommand(s, -1, name, &entry, &err)) {
        image_session::Error(kSub, err);
        return 1;
      }
    }
  }
  if (!image_session::EnsurePinned(&s, &err)) {
    image_session::Error(kSub, err);
    return 1;
  }

  int linked = 0, unchanged = 0, missing = 0, failed = 0;
  Text not_found;
  for (std::size_t n = 0; n < names.size(); ++n) {
    std::string_view name = names[n];
    std::string_view alias_of = names.AliasOf(n);
    image_root::PathBuf real;
    Found found = FindCommand(s, alias_of.empty() ? name : alias_of, &real);
    if (found == Found::kFailed) {
      ++failed;
      continue;
    }
    if (found != Found::kYes) {
      if (found == Found::kNo) not_found.Add(missing == 0 ? "" : " ", name);
      if (found == Found::kNo && !alias_of.empty()) not_found.Add(" (alias of ", alias_of, ")");
      ++missing;
      continue;
    }
    image_root::Located entry;
    if (!image_session::Lookup(s, -1, name, &entry, &err)) {
      image_session::Error(kSub, err);
      err.Clear();
      ++failed;
      continue;
    }
    if (entry.exists && S_ISLNK(entry.st.st_mode)) {
      char buf[PATH_MAX + 1];
      std::string_view target;
      if (image_link::ReadLink(entry.dir.get(), entry.name, buf, sizeof buf, &target, &err) &&
          target == real.view()) {
        ++unchanged;
        continue;
      }
      err.Clear();
    }
    Text was;
    image_session::Describe(entry, &was);
    if (!image_link::ReplaceWithSymlink(entry.dir.get(), entry.name, real.view(), entry.path.view(),
                                        &err)) {
      image_session::Error(kSub, err);
      err.Clear();
      ++failed;
      continue;
    }
    ++linked;
    Text t;
    t.Add(entry.path.view(), " -> ", real.view(), entry.exists ? " (replaced " : " (new",
          entry.exists ? was.view() : "", ")");
    if (!alias_of.empty()) t.Add(" alias of ", alias_of);
    image_session::Report(kSub, t);
  }
  if (!not_found.empty()) {
    Text t;
    t.Add("not found at any real path, not allowed: ", not_found);
    image_session::Warn(kSub, t);
  }
  Text t;
  t.Add(names.size(), " names: ", linked, " links made, ", unchanged, " unchanged, ", missing,
        " not allowed, ", failed, " failed");
  image_session::Report(kSub, t);
  return failed == 0 ? 0 : 1;
}

}  // namespace image_tool
