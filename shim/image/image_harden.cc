// agt-deny-shim harden: strips the exec bits (and setuid/setgid) off shells,
// interpreters and encoders found at the real paths or in the pinned
// directory, following a symlink to the file it names inside the root. The
// file is opened with O_NOFOLLOW and changed with fchmod, so a link swapped in
// after the walk cannot redirect the change. The shim itself is never touched.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_tool.h"
#include "image_session.h"

namespace image_tool {
namespace {

using image_options::Subcommand;
using image_session::Session;
using image_text::Text;

constexpr Subcommand kSub = Subcommand::kHarden;
constexpr mode_t kStrip = S_IXUSR | S_IXGRP | S_IXOTH | S_ISUID | S_ISGID;

enum class Outcome { kAbsent, kStripped, kAlready, kSkipped, kFailed };

Outcome StripOne(const Session& s, int i, std::string_view name) {
  Text err;
  image_root::Located entry;
  if (!image_session::Lookup(s, i, name, &entry, &err)) {
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  if (!entry.exists) return Outcome::kAbsent;
  image_root::Located target;
  image_root::WalkResult r =
      image_root::Walk(s.root.get(), entry.path.view(), image_root::WalkMode::kFollow, &target, &err);
  if (r == image_root::WalkResult::kError) {
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  if (r == image_root::WalkResult::kMissing || !target.exists) return Outcome::kAlready;  // dangling: runs nothing
  if (!S_ISREG(target.st.st_mode)) {
    Text t;
    t.Add(entry.path.view(), " leads to ", target.path.view(), ", not a regular file; left alone");
    image_session::Warn(kSub, t);
    return Outcome::kSkipped;
  }
  if (s.shim.present && target.st.st_dev == s.shim.dev && target.st.st_ino == s.shim.ino) {
    Text t;
    t.Add(entry.path.view(), " is the deny shim; left executable");
    image_session::Report(kSub, t);
    return Outcome::kSkipped;
  }
  if ((target.st.st_mode & kStrip) == 0) return Outcome::kAlready;

  image_root::Fd fd(openat(target.dir.get(), target.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat st;
  if (!fd.ok() || fstat(fd.get(), &st) != 0) {
    err.Add("openat ", target.path.view(), ": ", image_text::Errno{errno});
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  if (st.st_dev != target.st.st_dev || st.st_ino != target.st.st_ino || !S_ISREG(st.st_mode)) {
    err.Add(target.path.view(), " changed while hardening; not touched");
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  mode_t mode = st.st_mode & 07777;
  if (fchmod(fd.get(), mode & ~kStrip) != 0) {
    err.Add("fchmod ", target.path.view(), ": ", image_text::Errno{errno});
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  Text t;
  t.Add("stripped ", target.path.view(), " (mode ", image_text::Octal{mode}, " -> ",
        image_text::Octal{mode & ~kStrip}, ")");
  if (target.path.view() != entry.path.view()) t.Add(" via ", entry.path.view());
  image_session::Report(kSub, t);
  return Outcome::kStripped;
}

}  // namespace

int Harden(int argc, char** argv) {
  image_options::Options options;
  image_names::NameList names;
  image_options::Source source;
  Session s;
  int status = image_session::Begin(kSub, argc, argv, "STRIP_EXEC_BIN_NAMES", image_options::Default::kStripSet,
                                    &options, &names, &source, &s);
  if (status >= 0) return status;
  Text err;

  int stripped = 0, already = 0, failed = 0, absent = 0;
  Text not_present;
  for (std::string_view name : names) {
    bool present = false;
    for (int i = -1; i < static_cast<int>(s.dirs.dirs.size()); ++i) {
      if (i < 0 ? !s.pinned_present : !s.dirs.Unique(static_cast<std::size_t>(i))) continue;
      switch (StripOne(s, i, name)) {
        case Outcome::kAbsent: break;
        case Outcome::kStripped: present = true; ++stripped; break;
        case Outcome::kAlready: present = true; ++already; break;
        case Outcome::kSkipped: present = true; break;
        case Outcome::kFailed: present = true; ++failed; break;
      }
    }
    if (!present) {
      not_present.Add(absent == 0 ? "" : " ", name);
      ++absent;
    }
  }
  if (!not_present.empty()) {
    Text t;
    t.Add("not present: ", not_present);
    if (source == image_options::Source::kDefault) {
      image_session::Report(kSub, t);
    } else {
      image_session::Warn(kSub, t);
    }
  }
  Text t;
  t.Add(names.size(), " names: ", stripped, " files stripped, ", already, " already not executable, ", absent,
        " not present, ", failed, " failed");
  image_session::Report(kSub, t);
  return failed == 0 ? 0 : 1;
}

}  // namespace image_tool
