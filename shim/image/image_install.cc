// agt-deny-shim install: links the shim over every denied name, and every
// name harden disables (shells, interpreters: so `os.system(...)` is logged
// as a denial of sh), at each real path (existing entries replaced
// atomically, absent ones created, so the image does not reveal which tools
// it once held) and in the pinned directory; then takes the exec bits off
// every other executable copy of those names in the root
// (/usr/lib/git-core/git, /opt/bin/curl, pip3.11). The allow list wins: a
// name already in the pinned directory as something other than the shim is
// left alone everywhere. A link over a file an allowed command runs (busybox
// behind allowed applets) is refused before anything changes. Last, the
// shim itself is made unreadable to all but its owner (ProtectShim).
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "denied_names.h"
#include "image_scan.h"
#include "image_session.h"
#include "image_strip.h"
#include "image_tool.h"

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
void LinkOne(const Session& s, int i, std::string_view name, std::string_view shim_path,
             Counts* c) {
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
  if (!image_link::ReplaceWithSymlink(entry.dir.get(), entry.name, shim_path, entry.path.view(),
                                      &err)) {
    image_session::Error(kSub, err);
    ++c->failed;
    return;
  }
  ++c->linked;
  Text t;
  t.Add(entry.path.view(), " -> ", shim_path, entry.exists ? " (replaced " : " (new",
        entry.exists ? was.view() : "", ")");
  image_session::Report(kSub, t);
}

// Only the first `denied` names are the denied list (the stripped names follow).
void WarnLeftOut(const image_names::NameList& names, std::size_t denied,
                 image_options::Source source) {
  if (source == image_options::Source::kDefault) return;
  Text t;
  int missing = 0;
  for (const denied_names::Row& row : denied_names::kRows) {
    bool listed = false;
    for (std::size_t i = 0; i < denied && !listed; ++i) listed = names[i] == row.name;
    if (!listed) {
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

// The scan for other copies: executable files named like a linked name
// outside the entries that are linked over.
struct Copies {
  const Session* s;
  const image_names::NameList* names;
  const bool* keep;
  image_strip::Plan* plan;
  Text err;
};

void PlanCopy(void* context, const image_scan::Entry& e) {
  Copies* c = static_cast<Copies*>(context);
  const struct stat& st = *e.st;
  if (!S_ISREG(st.st_mode) || (st.st_mode & image_strip::kStripBits) == 0 || !c->err.empty())
    return;
  if (c->s->shim.present && st.st_dev == c->s->shim.dev && st.st_ino == c->s->shim.ino) return;
  bool command_dir = image_session::InCommandDir(*c->s, e.path);
  for (std::size_t n = 0; n < c->names->size(); ++n) {
    std::string_view name = (*c->names)[n];
    if (c->keep[n] || !image_names::IsVariantOf(e.name, name)) continue;
    if (command_dir && name == e.name) return;  // linked over
    c->plan->Add(e.path, st, {}, &c->err);
    return;
  }
}

// Group and others lose the read bit on the shim (0755 -> 0711): a process
// whose executable it cannot read is made non-dumpable by the kernel at
// exec, so no other process of the sandbox user can rewrite a denial's
// memory (/proc/PID/mem, process_vm_writev, ptrace) between exec and the
// record reaching the collector, which checks this (agt-collector(1),
// LISTEN). Returns the failures (0 or 1).
int ProtectShim(const Session& s) {
  constexpr mode_t kReadByOthers = S_IRGRP | S_IROTH;
  // Already so: nothing is opened (install inside a running sandbox, as the
  // sandbox user, cannot read the shim it protects).
  if ((s.shim.mode & kReadByOthers) == 0) return 0;
  Text err;
  image_root::Located at;
  image_root::Fd fd;
  struct stat st;
  if (image_root::Walk(s.root.get(), s.shim.path.view(), image_root::WalkMode::kFollow, &at,
                       &err) != image_root::WalkResult::kOk ||
      !at.exists) {
    if (err.empty()) err.Add(s.shim.path.view(), " vanished before it was protected");
    image_session::Error(kSub, err);
    return 1;
  }
  if (!image_root::OpenForChmod(at, s.shim.dev, s.shim.ino, "protected", &fd, &st, &err)) {
    image_session::Error(kSub, err);
    return 1;
  }
  const mode_t mode = st.st_mode & 07777;
  const mode_t want = mode & ~kReadByOthers;
  if (mode == want) return 0;
  if (fchmod(fd.get(), want) != 0) {
    err.Add("fchmod ", s.shim.path.view(), ": ", image_text::Errno{errno});
    image_session::Error(kSub, err);
    return 1;
  }
  Text t;
  t.Add("the shim ", s.shim.path.view(), " made unreadable to the sandbox user (mode ",
        image_text::Octal{mode}, " -> ", image_text::Octal{want},
        "): its denials are not dumpable, so no other process can rewrite their memory");
  image_session::Report(kSub, t);
  return 0;
}

}  // namespace

int Install(int argc, char** argv) {
  image_options::Options options;
  image_names::NameList names;
  image_options::Source source;
  Session s;
  int status =
      image_session::Begin(kSub, argc, argv, "DENIED_LOGGED_BIN_NAMES",
                           image_options::Default::kDeniedSet, &options, &names, &source, &s);
  if (status >= 0) return status;
  Text err;
  // Every name harden disables is linked too, so an attempt is logged.
  image_names::NameList stripped;
  image_options::Source stripped_source;
  if (!image_options::LoadList(options.stripped_set, options.stripped, "--stripped",
                               "STRIP_EXEC_BIN_NAMES", image_options::Default::kStripSet, &stripped,
                               &stripped_source, &err)) {
    err.Add("; nothing was changed");
    image_session::Error(kSub, err);
    return 2;
  }
  const std::size_t denied_count = names.size();
  for (std::string_view name : stripped) {
    if (!names.Add(name)) {
      err.Add("more than ", image_names::kMaxNames,
              " denied and stripped names; nothing was changed");
      image_session::Error(kSub, err);
      return 2;
    }
  }
  if (!s.shim.present) {
    err.Add("the shim ", Quoted{options.shim},
            " is not in the root (copy it there first); nothing was changed");
    image_session::Error(kSub, err);
    return 1;
  }

  // Decide everything before changing anything: which names the allow list
  // keeps, that no directory stands where a link must go, that no link goes
  // over a file an allowed command runs, and which other copies to strip.
  image_session::AllowedFiles allowed;
  if (!image_session::CollectAllowedFiles(s, &allowed, &err)) {
    err.Add("; nothing was changed");
    image_session::Error(kSub, err);
    return 1;
  }
  int refused = 0;
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
      if (!image_session::LookupCommand(s, static_cast<int>(i), names[n], &entry, &err)) {
        image_session::Error(kSub, err);
        return 1;
      }
      const char* user = entry.exists && S_ISREG(entry.st.st_mode)
                             ? allowed.Find(entry.st.st_dev, entry.st.st_ino)
                             : nullptr;
      if (user != nullptr) {
        Text t;
        t.Add("refusing to link the shim over ", entry.path.view(),
              ": it is what the allowed command ", user, " runs (", image_root::kPinnedDir, "/",
              user, "); take ", names[n], " out of the lists or ", user, " out of the allow list");
        image_session::Error(kSub, t);
        ++refused;
      }
    }
  }
  image_strip::Plan plan;
  Copies copies{&s, &names, keep, &plan, {}};
  if (!plan.Decide(s, PlanCopy, &copies, &copies.err, allowed, refused)) return 1;
  WarnLeftOut(names, denied_count, source);
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
  c.failed += plan.Apply(s);
  c.failed += ProtectShim(s);
  Text t;
  t.Add(names.size(), " names (", denied_count, " denied, ", stripped.size(),
        " stripped): ", c.linked, " links made, ", c.unchanged, " already the shim, ", c.allowed,
        " left alone (allowed), ", plan.changed(), " other copies stripped, ", c.failed, " failed");
  image_session::Report(kSub, t);
  return c.failed == 0 ? 0 : 1;
}

}  // namespace image_tool
