// Finding sandboxes and noticing change: the pattern bases, their listing,
// one Source per sandbox id (loaded from its checkpoint), inotify events and
// the reconciliation scan that catches whatever the event queue lost.
#include "tail/tail_engine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <utility>

#include "tail/checkpoint_store.h"
#include "tail/secure_open.h"
#include "tail/tail_engine_support.h"
#include "watch_pattern.h"

namespace tail_engine {
namespace {

constexpr uint32_t kBaseMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
                               IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

constexpr uint32_t kSourceMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_MODIFY |
                                 IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |
                                 IN_ONLYDIR;

// Sources with an inotify watch get the full stat check only every this many
// scans (inotify reports their changes; an overflow triggers a full scan at
// once). Sources without a watch are checked at every scan.
constexpr uint32_t kWatchedCheckEvery = 10;

}  // namespace

void Engine::OpenPatternBase(Pattern* p) {
  // The base is the operator's own directory (trusted); below it, nothing is.
  p->base_fd.Reset(open(p->base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!p->base_fd.ok()) {
    if (p->base_mtime_ns != -2) {
      Warn("watch " + p->text + ": open " + p->base + ": " + strerror(errno) +
           "; retrying at every scan");
    }
    p->base_mtime_ns = -2;  // reported
    return;
  }
  p->base_mtime_ns = -1;
  if (watcher_.fd() >= 0) {
    std::string err;
    if (watcher_.AddPath(p->base, kBaseMask, &p->base_wd, &err) ==
        inotify_watcher::AddResult::kOk) {
      by_wd_[p->base_wd] = -static_cast<int64_t>(p - patterns_.data()) - 1;
      stats_.watches = watcher_.watches();
    } else {
      Warn(err + "; new sandboxes are found by the periodic scan only");
    }
  }
}

void Engine::ListBase(uint32_t pattern_index) {
  Pattern& p = patterns_[pattern_index];
  struct stat st;
  if (fstat(p.base_fd.get(), &st) != 0) return;
  if (MtimeNs(st) == p.base_mtime_ns) return;  // no entry added or removed
  p.base_mtime_ns = MtimeNs(st);
  unique_fd::UniqueFd fd(openat(p.base_fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.ok()) {
    Warn(logs::ErrnoReason("list", p.base));
    p.base_mtime_ns = -1;
    return;
  }
  DIR* dir = fdopendir(fd.get());
  if (!dir) return;
  fd.Release();  // closedir closes it
  while (struct dirent* e = readdir(dir)) {
    if (e->d_type != DT_DIR && e->d_type != DT_LNK && e->d_type != DT_UNKNOWN) continue;
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    Discover(pattern_index, name);
  }
  closedir(dir);
}

Engine::Source* Engine::Discover(uint32_t pattern_index, const std::string& sandbox_id) {
  if (!watch_pattern::IsPlausibleSandboxId(sandbox_id)) return nullptr;
  auto it = by_id_.find(sandbox_id);
  if (it != by_id_.end()) {
    Source& existing = sources_[it->second];
    if (existing.pattern != pattern_index && !existing.two_patterns_reported) {
      Warn("sandbox_id " + sandbox_id + " matches two patterns (" +
           patterns_[existing.pattern].text + " and " + patterns_[pattern_index].text +
           "); only the first is read");
      existing.two_patterns_reported = true;
    }
    return &existing;
  }
  uint32_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
    sources_[index] = Source();
  } else {
    index = static_cast<uint32_t>(sources_.size());
    sources_.emplace_back();
  }
  Source& s = sources_[index];
  s.index = index;
  s.sandbox_id = sandbox_id;
  s.pattern = pattern_index;
  by_id_[sandbox_id] = index;
  ++stats_.sources;
  checkpoint_store::Checkpoint c;
  std::string err;
  switch (LoadCheckpoint(sandbox_id, &c, &err)) {
    case checkpoint_store::LoadResult::kLoaded:
      s.have_committed = true;
      s.resume_pending = true;
      s.quota.Restore(c.held);
      // The files let go before the restart: a writer still appending to
      // one is read on from where reading stopped (TakeRotatedName).
      for (const checkpoint_store::Checkpoint::Gone& gone : c.gone) {
        line_reader::Position at;
        at.offset = gone.offset;
        Source::Rotation& r = s.rotated();
        r.let_go[r.let_go_next] = {gone.file, at};
        r.let_go_next = static_cast<uint8_t>((r.let_go_next + 1) % kLetGoRemembered);
      }
      s.committed = std::move(c);
      checkpoints_.erase(sandbox_id);  // held by the source from now on
      break;
    case checkpoint_store::LoadResult::kNone: break;
    case checkpoint_store::LoadResult::kCorrupt:
    case checkpoint_store::LoadResult::kError:
      Warn(sandbox_id + ": checkpoint unusable (" + err + "); reading " + LogPath(s) +
           " from offset 0 (recent entries already in the output are skipped)");
      break;
  }
  AddSourceWatch(index);
  if (options_.append_only_logs) ClaimLog(&sources_[index]);
  MarkDirty(index);
  return &sources_[index];
}

void Engine::AddSourceWatch(uint32_t index) {
  Source& s = sources_[index];
  if (watcher_.fd() < 0 || s.wd >= 0) return;
  s.watch_tried = true;
  const Pattern& p = patterns_[s.pattern];
  if (!p.base_fd.ok()) return;
  std::string rel = s.sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int raw_dfd = -1;
  std::string err;
  if (secure_open::OpenDirectory(p.base_fd.get(), rel, secure_open::Method::kAuto, &raw_dfd,
                                 &err) != secure_open::Result::kOk) {
    return;  // the log open reports a hostile shape; a missing one is found by the scan
  }
  const unique_fd::UniqueFd dfd(raw_dfd);
  int wd = -1;
  const inotify_watcher::AddResult r = watcher_.AddDirectoryFd(dfd.get(), kSourceMask, &wd, &err);
  if (r != inotify_watcher::AddResult::kOk) {
    if (!watch_limit_reported_) {
      watch_limit_reported_ = true;
      Warn(p.base + "/" + rel + ": " + err +
           (r == inotify_watcher::AddResult::kLimit
                ? "; sandboxes beyond it are read on the periodic scan only: raise the limit "
                  "for event-driven latency"
                : "; sandboxes without a watch are read on the periodic scan only"));
    }
    return;
  }
  s.wd = wd;
  s.path_check_due = true;  // what happened before the watch was not seen
  by_wd_[wd] = index;
  stats_.watches = watcher_.watches();
}

void Engine::HandleInotify() {
  const bool overflow = watcher_.Drain([&](const inotify_watcher::Event& ev) {
    auto it = by_wd_.find(ev.wd);
    if (it == by_wd_.end()) return;
    if (it->second < 0) {
      const uint32_t pi = static_cast<uint32_t>(-(it->second + 1));
      Pattern& pat = patterns_[pi];
      if (ev.mask & IN_IGNORED) {
        by_wd_.erase(it);
        pat.base_wd = -1;
        watcher_.Forget();
        return;
      }
      if (!ev.name.empty()) {
        const std::string name(ev.name);
        auto known = by_id_.find(name);
        if (known != by_id_.end()) {
          sources_[known->second].guard.dir_check_due = true;  // replaced, moved or removed
          sources_[known->second].path_check_due = true;
          MarkDirty(known->second);
          if (sources_[known->second].wd < 0) AddSourceWatch(known->second);
        } else if (ev.mask & (IN_CREATE | IN_MOVED_TO)) {
          Discover(pi, name);
        }
      }
      return;
    }
    const uint32_t si = static_cast<uint32_t>(it->second);
    if (ev.name.empty()) sources_[si].guard.dir_check_due = true;  // the directory itself
    const std::string& log_name = patterns_[sources_[si].pattern].log_name;
    if ((ev.mask & IN_MOVED_FROM) && ev.name == log_name) {
      if (move_cookies_.size() > 256) move_cookies_.clear();
      move_cookies_[ev.cookie] = si;
    } else if ((ev.mask & IN_MOVED_TO) && !ev.name.empty()) {
      auto c = move_cookies_.find(ev.cookie);
      if (c != move_cookies_.end() && c->second == si) {
        std::vector<std::string>& names = sources_[si].rotated().rotated_names;
        if (names.size() < 64) names.emplace_back(ev.name);
        move_cookies_.erase(c);
      }
    }
    if (ev.mask & IN_IGNORED) {
      by_wd_.erase(it);
      sources_[si].wd = -1;
      sources_[si].watch_tried = false;
      watcher_.Forget();
    }
    // Other files in the sandbox's directory are none of our business: a
    // sandbox writing them in a loop must not keep the collector busy.
    if (!ev.name.empty() && ev.name != log_name && !sources_[si].lingering()) return;
    // Anything but an append to the log (or its writer closing it) may have
    // changed what the path names: the next look states it.
    if (ev.name != log_name || (ev.mask & ~(IN_MODIFY | IN_CLOSE_WRITE)) != 0) {
      sources_[si].path_check_due = true;
    }
    MarkDirty(si);
  });
  stats_.watches = watcher_.watches();
  if (overflow) {
    Warn("inotify event queue overflowed (fs.inotify.max_queued_events); rescanning every source");
    for (Pattern& p : patterns_) p.base_mtime_ns = -1;
    for (Source& s : sources_) {
      s.guard.dir_check_due = true;
      s.path_check_due = true;
    }
    force_full_scan_ = true;
    Scan();
  }
}

void Engine::Scan() {
  for (uint32_t pi = 0; pi < patterns_.size(); ++pi) {
    if (!patterns_[pi].base_fd.ok()) OpenPatternBase(&patterns_[pi]);
    if (patterns_[pi].base_fd.ok()) ListBase(pi);
  }
  const bool full = force_full_scan_ || ++scan_count_ % kWatchedCheckEvery == 0;
  force_full_scan_ = false;
  const int64_t now = static_cast<int64_t>(time(nullptr));
  for (uint32_t i = 0; i < sources_.size(); ++i) {
    Source& s = sources_[i];
    if (s.retired) continue;
    if (s.quota.SummaryDue(options_.quota, now)) MarkDirty(i);  // its window ended
    if (s.wd < 0 && !s.watch_tried) AddSourceWatch(i);
    if (full) {
      s.guard.dir_check_due = true;
      s.path_check_due = true;
    }
    if (s.wd >= 0 && !full && !s.lingering()) continue;
    if (!s.dirty && CheapCheck(&s)) MarkDirty(i);
    if (s.wd < 0 && !s.current.fd.ok() && !s.lingering() && !s.dirty) RetireIfGone(i);
  }
}

void Engine::RetireIfGone(uint32_t index) {
  // A sandbox whose directory is gone and whose log is read and let go
  // gives its slot back, so sandbox churn does not grow memory. Its
  // checkpoint stays: the same id coming back resumes from it.
  Source& s = sources_[index];
  const Pattern& p = patterns_[s.pattern];
  struct stat st;
  if (!p.base_fd.ok() ||
      fstatat(p.base_fd.get(), s.sandbox_id.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
      errno != ENOENT) {
    return;
  }
  by_id_.erase(s.sandbox_id);
  move_cookies_.clear();
  // Kept for a compaction and for the same id coming back.
  if (s.have_committed) checkpoints_[s.sandbox_id] = checkpoint_store::Text(s.committed);
  s = Source();
  s.index = index;
  s.retired = true;
  free_slots_.push_back(index);
  if (stats_.sources > 0) --stats_.sources;
}

bool Engine::CheapCheck(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  if (!p.base_fd.ok()) return false;
  if (s->lingering()) return true;  // a few seconds after a rotation only
  struct stat pst;
  const bool present =
      fstatat(p.base_fd.get(), LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
  if (s->current.fd.ok()) {
    struct stat st;
    if (fstat(s->current.fd.get(), &st) != 0) return true;
    if (st.st_size != s->seen_size || MtimeNs(st) != s->seen_mtime_ns) return true;
    if (!present) return !s->rotated_away || st.st_nlink == 0;
    return file_id::FileId::Of(pst) != file_id::FileId::Of(st);
  }
  if (!present) return false;
  // Released for lack of fds, and nothing new since its checkpoint.
  if (s->have_committed && file_id::FileId::Of(pst) == s->committed.file &&
      static_cast<uint64_t>(pst.st_size) == s->committed.position.offset && s->problem.empty()) {
    return false;
  }
  // The same refused object as last time: nothing new to say or read.
  if (!s->problem.empty() && s->problem_ino != 0 && pst.st_ino == s->problem_ino) return false;
  return true;
}

}  // namespace tail_engine
