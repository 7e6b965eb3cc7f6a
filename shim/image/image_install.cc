// agt-deny-shim install: links the shim over every denied name at each real
// path (existing entries replaced atomically, absent ones created, so the
// image does not reveal which tools it once held) and in the pinned
// directory. The allow list wins: a name already in the pinned directory as
// something other than the shim is left alone everywhere.
#include <sys/stat.h>

#include "denied_names.h"
#include "image_tool.h"
#include "image_session.h"

namespace image_tool {
namespace {

using image_options::Subcommand;
using image_session::Session;
using image_text::Quoted;
using image_text::Text;

constexpr Subcommand kSub = Subcommand::kInstall;

struct Counts {
  int linked = 0;
  int unchanged = 0;
  int allowed = 0;
  int failed = 0;
};

// Is `name` already in the pinned directory as an allowed command?
bool IsAllowedThere(const Session& s, std::string_view name, bool* allowed, Text* err) {
  *allowed = false;
  if (!s.pinned_present) return true;
  image_root::Located entry;
  if (!image_session::Lookup(s, -1, name, &entry, err)) return false;
  image_link::Kind kind;
  if (!image_link::Classify(s.root.get(), entry, s.shim, &kind, err)) return false;
  *allowed = kind == image_link::Kind::kOther;
  return true;
}

// Links one entry (real dir i, or the pinned directory when i < 0).
void LinkOne(const Session& s, int i, std::string_view name, std::string_view shim_path, Counts* c) {
  Text err;
  image_root::Located entry;
  image_link::Kind kind;
  if (!image_session::Lookup(s, i, name, &entry, &err) ||
      !image_link::Classify(s.root.get(), entry, s.shim, &kind, &err)) {
    image_session::Error(kSub, err);
    ++c->failed;
    return;
  }
  if (kind == image_link::Kind::kShim) {
    ++c->unchanged;
    return;
  }
  Text was;
  image_session::Describe(entry, &was);
  if (!image_link::ReplaceWithSymlink(entry.dir.get(), entry.name, shim_path, entry.path.view(), &err)) {
    image_session::Error(kSub, err);
    ++c->failed;
    return;
  }
  ++c->linked;
  Text t;
  t.Add(entry.path.view(), " -> ", shim_path, entry.exists ? " (replaced " : " (new", entry.exists ? was.view() : "", ")");
  image_session::Report(kSub, t);
}

void WarnLeftOut(const image_names::NameList& names, image_options::Source source) {
  if (source == image_options::Source::kDefault) return;
  Text t;
  int missing = 0;
  for (const denied_names::Row& row : denied_names::kRows) {
    if (!names.Contains(row.name)) {
      t.Add(missing == 0 ? "" : " ", row.name);
      ++missing;
    }
  }
  if (missing == 0) return;
  Text w;
  w.Add(source == image_options::Source::kOption ? "--names" : "DENIED_LOGGED_BIN_NAMES",
        " leaves out ", missing, " of the ", denied_names::kRows.size(),
        " default denied names, which will run normally: ", t);
  image_session::Warn(kSub, w);
}

}  // namespace

int Install(int argc, char** argv) {
  image_options::Options options;
  image_names::NameList names;
  image_options::Source source;
  Session s;
  int status = image_session::Begin(kSub, argc, argv, "DENIED_LOGGED_BIN_NAMES", image_options::Default::kDeniedSet,
                                    &options, &names, &source, &s);
  if (status >= 0) return status;
  Text err;
  if (!s.shim.present) {
    err.Add("the shim ", Quoted{options.shim}, " is not in the root (copy it there first); nothing was changed");
    image_session::Error(kSub, err);
    return 1;
  }

  // Decide everything before changing anything: which names the allow list
  // keeps, and that no directory stands where a link must go.
  bool keep[image_names::kMaxNames] = {};
  for (std::size_t n = 0; n < names.size(); ++n) {
    if (!IsAllowedThere(s, names[n], &keep[n], &err)) {
      err.Add("; nothing was changed");
      image_session::Error(kSub, err);
      return 1;
    }
    if (keep[n]) continue;
    for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) {
      if (!s.dirs.Unique(i)) continue;
      image_root::Located entry;
      if (!image_session::Lookup(s, static_cast<int>(i), names[n], &entry, &err)) {
        err.Add("; nothing was changed");
        image_session::Error(kSub, err);
        return 1;
      }
      if (entry.exists && S_ISDIR(entry.st.st_mode)) {
        err.Add(entry.path.view(), " is a directory, not a command; nothing was changed");
        image_session::Error(kSub, err);
        return 1;
      }
    }
  }
  WarnLeftOut(names, source);
  for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) {
    const image_root::RealDir& d = s.dirs.dirs[i];
    if (d.present && d.same_as >= 0) {
      Text t;
      t.Add(d.listed, " is ", d.dir.path.view(), " (same directory, done once)");
      image_session::Report(kSub, t);
    }
  }
  if (!image_session::EnsurePinned(&s, &err)) {
    image_session::Error(kSub, err);
    return 1;
  }

  Counts c;
  for (std::size_t n = 0; n < names.size(); ++n) {
    if (keep[n]) {
      Text t;
      t.Add("left alone: ", names[n], " (in ", image_root::kPinnedDir,
            " as an allowed command; the allow list wins)");
      image_session::Warn(kSub, t);
      ++c.allowed;
      continue;
    }
    for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) {
      if (s.dirs.Unique(i)) LinkOne(s, static_cast<int>(i), names[n], options.shim, &c);
    }
    LinkOne(s, -1, names[n], options.shim, &c);
  }
  Text t;
  t.Add(names.size(), " names: ", c.linked, " links made, ", c.unchanged, " already the shim, ", c.allowed,
        " left alone (allowed), ", c.failed, " failed");
  image_session::Report(kSub, t);
  return c.failed == 0 ? 0 : 1;
}

}  // namespace image_tool
