// agt-deny-shim verify: audits a built root, read-only. Every denied or
// stripped name (not allowed) is the shim or absent at each real path and is
// the shim in the pinned directory; the pinned directory holds only allowed
// names and shim links, all owned by root; each allowed name there leads to
// a file others may execute (an alias to its target's file); no other
// executable copy of a denied or stripped command is anywhere in the root
// (image_copies); the shim is a root-owned regular file anyone may execute
// but only its owner may read or change; no directory on the way to the shim, the
// pinned directory or a real-path directory is writable by group or others.
// Each drift is one line on stdout; exit 1 if any. The time taken is printed.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "image_copies.h"
#include "image_session.h"
#include "image_tool.h"

namespace image_tool {
namespace {

using image_options::Subcommand;
using image_session::Session;
using image_text::Text;

constexpr Subcommand kSub = Subcommand::kVerify;

class Audit {
 public:
  explicit Audit(const Session& s) : s_(s) {}
  int drifts() const { return drifts_; }
  int checked() const { return checked_; }

  void Drift(const Text& what) {
    image_text::WriteLine(1, "agt-deny-shim: verify: drift: ", what);
    ++drifts_;
  }

  // A failure to look is a drift too: verify must not pass what it could not see.
  void Failed(Text* err) {
    Text t;
    t.Add("cannot check: ", *err);
    Drift(t);
    err->Clear();
  }

  static void DriftTo(void* context, const Text& what) {
    static_cast<Audit*>(context)->Drift(what);
  }

  void CheckShim() {
    if (!s_.shim.present) {
      Text t;
      t.Add(s_.shim.path.view(), ": the shim is missing");
      Drift(t);
      return;
    }
    if (s_.shim.uid != 0) {
      Text t;
      t.Add(s_.shim.path.view(), ": the shim is owned by uid ",
            static_cast<unsigned long>(s_.shim.uid), ", not root (its owner can change it)");
      Drift(t);
    }
    mode_t m = s_.shim.mode;
    if ((m & S_IXOTH) == 0 || (m & (S_IWGRP | S_IWOTH)) != 0 || (m & (S_ISUID | S_ISGID)) != 0) {
      Text t;
      t.Add(s_.shim.path.view(), ": the shim has mode ", image_text::Octal{m},
            " (want executable by all, writable by its owner only, no setuid/setgid)");
      Drift(t);
    }
    if ((m & (S_IRGRP | S_IROTH)) != 0) {
      Text t;
      t.Add(s_.shim.path.view(), ": the shim is readable by others (mode ", image_text::Octal{m},
            "; want 0711): the kernel leaves its denials dumpable, so any process of the "
            "sandbox user could rewrite a record in their memory (agt-deny-shim install fixes it)");
      Drift(t);
    }
  }

  void CheckPinnedDir() {
    if (!s_.pinned_present) {
      Text t;
      t.Add(image_root::kPinnedDir, ": the pinned directory is missing");
      Drift(t);
      return;
    }
    if ((s_.pinned.st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      Text t;
      t.Add(s_.pinned.path.view(), ": writable by group or others (mode ",
            image_text::Octal{s_.pinned.st.st_mode}, ")");
      Drift(t);
    }
  }

  // Every directory from the root down to `path` (canonical) must be
  // writable by its owner only: else someone else can swap what it holds.
  // Each directory is reported once.
  void CheckDirsOnTheWay(std::string_view path, std::string_view what) {
    image_root::PathBuf prefix;
    std::size_t pos = 0;
    for (;;) {
      Text err;
      image_root::Located dir;
      image_root::WalkResult r = image_root::Walk(s_.root.get(), prefix.view(),
                                                  image_root::WalkMode::kDirectory, &dir, &err);
      if (r == image_root::WalkResult::kError) {
        Failed(&err);
        return;
      }
      if (r == image_root::WalkResult::kMissing) return;
      if ((dir.st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !Seen(dir.st)) {
        Text t;
        t.Add(dir.path.view(), ": directory on the way to ", what,
              " is writable by group or others (mode ", image_text::Octal{dir.st.st_mode}, ")");
        Drift(t);
      }
      while (pos < path.size() && path[pos] == '/') ++pos;
      if (pos >= path.size()) return;
      std::size_t end = path.find('/', pos);
      if (end == std::string_view::npos) end = path.size();
      if (!prefix.Push(image_text::Slice(path, pos, end - pos))) return;
      pos = end;
    }
  }

  void CheckOwnership(const image_root::Located& entry) {
    if (!entry.exists || entry.st.st_uid == 0) return;
    Text t;
    t.Add(entry.path.view(), ": pinned entry owned by uid ",
          static_cast<unsigned long>(entry.st.st_uid), ", not root");
    Drift(t);
  }

  void CheckEverywhere(const image_names::NameList& names,
                       const image_session::AllowedFiles& allowed) {
    Text err;
    if (!image_copies::Find(s_, names, allowed, DriftTo, this, &stats_, &unreadable_, &err))
      Failed(&err);
  }
  const image_scan::Stats& stats() const { return stats_; }
  const Text& unreadable() const { return unreadable_; }

  void CheckDenied(std::string_view name) {
    Text err;
    for (int i = -1; i < static_cast<int>(s_.dirs.dirs.size()); ++i) {
      if (i < 0 ? !s_.pinned_present : !s_.dirs.Unique(static_cast<std::size_t>(i))) continue;
      image_root::Located entry;
      image_link::Kind kind;
      if (!image_session::Lookup(s_, i, name, &entry, &err) ||
          !image_link::Classify(s_.root.get(), entry, s_.shim, &kind, &err)) {
        Failed(&err);
        continue;
      }
      ++checked_;
      if (kind == image_link::Kind::kShim) continue;
      if (kind == image_link::Kind::kAbsent && i >= 0) continue;
      Text t;
      if (kind == image_link::Kind::kAbsent) {
        t.Add(entry.path.view(),
              ": denied name not linked to the shim in the pinned directory"
              " (a by-name call would fail unlogged)");
      } else {
        t.Add(entry.path.view(), ": denied name is not the shim (");
        image_session::Describe(entry, &t);
        t.Add(")");
      }
      Drift(t);
    }
  }

  void CheckPinnedEntries(const image_names::NameList& allowed) {
    if (!s_.pinned_present) return;
    int fd = openat(s_.pinned.dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* dir = fd < 0 ? nullptr : fdopendir(fd);
    if (dir == nullptr) {
      if (fd >= 0) close(fd);
      Text err;
      err.Add("opendir ", s_.pinned.path.view(), ": ", image_text::Errno{errno});
      Failed(&err);
      return;
    }
    Text err;
    for (;;) {
      errno = 0;
      struct dirent* d = readdir(dir);
      if (d == nullptr) {
        if (errno != 0) {
          err.Add("readdir ", s_.pinned.path.view(), ": ", image_text::Errno{errno});
          Failed(&err);
        }
        break;
      }
      std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      ++checked_;
      image_root::Located entry;
      image_link::Kind kind;
      image_root::PathBuf path;
      if (!image_session::Join(s_.pinned.path.view(), name, &path)) {
        err.Add("path too long in ", s_.pinned.path.view());
        Failed(&err);
        continue;
      }
      if (image_root::Walk(s_.root.get(), path.view(), image_root::WalkMode::kEntry, &entry,
                           &err) != image_root::WalkResult::kOk ||
          !image_link::Classify(s_.root.get(), entry, s_.shim, &kind, &err)) {
        Failed(&err);
        continue;
      }
      CheckOwnership(entry);
      if (allowed.Contains(name)) {
        CheckAllowedRuns(path.view(), allowed.AliasOf(name));
        continue;
      }
      if (kind == image_link::Kind::kShim) continue;
      Text t;
      t.Add(path.view(), ": neither an allowed name nor a shim link (");
      image_session::Describe(entry, &t);
      t.Add(")");
      Drift(t);
    }
    closedir(dir);
  }

  // An allowed name must lead to a file the sandbox user (not the owner) may
  // execute: harden following a stripped name's link (python -> python3) can
  // take the exec bits off an allowed command's file.
  // An alias (python=python3) must lead to the very file its target does.
  void CheckAllowedRuns(std::string_view path, std::string_view alias_of) {
    Text err;
    image_root::Located target;
    image_root::WalkResult r =
        image_root::Walk(s_.root.get(), path, image_root::WalkMode::kFollow, &target, &err);
    if (r == image_root::WalkResult::kError) {
      Failed(&err);
      return;
    }
    Text t;
    if (r == image_root::WalkResult::kMissing || !target.exists) {
      t.Add(path, ": allowed name leads to nothing (a dangling link)");
    } else if (!S_ISREG(target.st.st_mode) || (target.st.st_mode & S_IXOTH) == 0) {
      t.Add(path, ": allowed name does not run for the sandbox user (", target.path.view(),
            " mode ", image_text::Octal{target.st.st_mode}, ")");
    } else if (!alias_of.empty()) {
      image_root::PathBuf of_path;
      image_root::Located of;
      if (!image_session::Join(s_.pinned.path.view(), alias_of, &of_path)) return;
      r = image_root::Walk(s_.root.get(), of_path.view(), image_root::WalkMode::kFollow, &of, &err);
      if (r == image_root::WalkResult::kError) {
        Failed(&err);
        return;
      }
      if (r == image_root::WalkResult::kOk && of.exists && of.st.st_dev == target.st.st_dev &&
          of.st.st_ino == target.st.st_ino) {
        return;
      }
      t.Add(path, ": alias of ", alias_of, " leads to ", target.path.view(), ", not to what ",
            of_path.view(), " runs");
    } else {
      return;
    }
    Drift(t);
  }

 private:
  bool Seen(const struct stat& st) {
    for (std::size_t i = 0; i < seen_count_; ++i) {
      if (seen_[i].st_dev == st.st_dev && seen_[i].st_ino == st.st_ino) return true;
    }
    if (seen_count_ < kMaxSeen) seen_[seen_count_++] = st;
    return false;
  }

  static constexpr std::size_t kMaxSeen = 64;
  const Session& s_;
  int drifts_ = 0;
  int checked_ = 0;
  struct stat seen_[kMaxSeen];
  std::size_t seen_count_ = 0;
  image_scan::Stats stats_;
  Text unreadable_;
};

double Seconds(const struct timespec& a, const struct timespec& b) {
  return static_cast<double>(b.tv_sec - a.tv_sec) +
         static_cast<double>(b.tv_nsec - a.tv_nsec) / 1e9;
}

}  // namespace

int Verify(int argc, char** argv) {
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  image_options::Options options;
  int status = image_session::Start(kSub, argc, argv, &options);
  if (status >= 0) return status;

  Text err;
  image_names::NameList denied, allowed, stripped;
  image_options::Source source;
  if (!image_options::LoadList(options.denied_set, options.denied, "--denied",
                               "DENIED_LOGGED_BIN_NAMES", image_options::Default::kDeniedSet,
                               &denied, &source, &err) ||
      !image_options::LoadList(options.allowed_set, options.allowed, "--allowed",
                               "ALLOWED_BIN_NAMES", image_options::Default::kEmpty, &allowed,
                               &source, &err, image_names::Aliases::kAccepted) ||
      !image_options::LoadList(options.stripped_set, options.stripped, "--stripped",
                               "STRIP_EXEC_BIN_NAMES", image_options::Default::kStripSet, &stripped,
                               &source, &err)) {
    image_session::Error(kSub, err);
    return 2;
  }
  Session s;
  if (!image_session::Open(kSub, options, &s, &err)) {
    image_session::Error(kSub, err);
    return 1;
  }

  // Stripped names are linked to the shim by install, like denied ones.
  image_names::NameList must_be_shim;
  for (const image_names::NameList* list : {&denied, &stripped}) {
    for (std::string_view name : *list) {
      if (!allowed.Contains(name) && !must_be_shim.Add(name)) {
        err.Add("more than ", image_names::kMaxNames, " denied and stripped names");
        image_session::Error(kSub, err);
        return 2;
      }
    }
  }

  Audit audit(s);
  audit.CheckShim();
  audit.CheckPinnedDir();
  std::string_view shim_path = s.shim.path.view();
  audit.CheckDirsOnTheWay(image_text::Slice(shim_path, 0, shim_path.rfind('/')), "the shim");
  audit.CheckDirsOnTheWay(s.pinned_present ? s.pinned.path.view() : image_root::kPinnedDir,
                          "the pinned directory");
  for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) {
    if (s.dirs.Unique(i))
      audit.CheckDirsOnTheWay(s.dirs.dirs[i].dir.path.view(), "a real-path directory");
  }
  for (std::string_view name : must_be_shim) audit.CheckDenied(name);
  audit.CheckPinnedEntries(allowed);
  image_session::AllowedFiles allowed_files;
  if (!image_session::CollectAllowedFiles(s, &allowed_files, &err)) audit.Failed(&err);
  audit.CheckEverywhere(must_be_shim, allowed_files);

  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  Text scanned;
  const image_scan::Stats& st = audit.stats();
  scanned.Add("the whole root scanned: ", st.entries, " entries in ", st.directories,
              " directories");
  if (st.pseudo_skipped != 0)
    scanned.Add(", ", st.pseudo_skipped, " pseudo file systems not entered");
  if (st.unreadable != 0) {
    scanned.Add(", ", st.unreadable,
                " directories not readable by this user (first: ", audit.unreadable(), ")");
  }
  double elapsed = Seconds(start, end);
  unsigned long ms = static_cast<unsigned long>(elapsed * 1000.0 + 0.5);
  Text took;
  took.Add("verify took ", ms / 1000, ".", (ms % 1000) / 100, (ms % 100) / 10, ms % 10, " s");
  if (audit.drifts() != 0) {
    image_session::Report(kSub, scanned);
    image_session::Report(kSub, took);
    Text t;
    t.Add(audit.drifts(), " drifts found");
    image_session::Error(kSub, t);
    return 1;
  }
  int dirs = 0;
  for (std::size_t i = 0; i < s.dirs.dirs.size(); ++i) dirs += s.dirs.Unique(i) ? 1 : 0;
  Text t;
  t.Add("ok: ", denied.size(), " denied, ", allowed.size(), " allowed, ", stripped.size(),
        " stripped names in ", dirs, " directories and ", image_root::kPinnedDir, " (",
        audit.checked(), " entries checked)");
  image_session::Report(kSub, t);
  image_session::Report(kSub, scanned);
  image_session::Report(kSub, took);
  return 0;
}

}  // namespace image_tool
