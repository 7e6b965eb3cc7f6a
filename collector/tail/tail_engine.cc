#include "tail/tail_engine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "entry_mapper.h"
#include "tail/checkpoint_store.h"
#include "tail/secure_open.h"
#include "watch_pattern.h"

namespace tail_engine {
namespace {

constexpr uint32_t kBaseMask =
    IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
constexpr uint32_t kSourceMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_MODIFY |
                                 IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |
                                 IN_ONLYDIR;
constexpr size_t kMinReadBuffer = 64 * 1024;
constexpr uint64_t kRejectionsPerSecond = 100;
// Up to this many checkpoints a cycle are fsynced one by one; more, by one syncfs.
constexpr size_t kFsyncEachUpTo = 4;
// Sources with an inotify watch get the full stat check only every this many
// scans (inotify reports their changes; an overflow triggers a full scan at
// once). Sources without a watch are checked at every scan.
constexpr uint32_t kWatchedCheckEvery = 10;
// How long a log rotated away stays open after the switch (Fluent Bit's
// rotate_wait): appends by a writer that opened it before the rename are read.
constexpr int64_t kRotateWaitMs = 5000;

int64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void Note(const std::string& msg) { fprintf(stderr, "agt-collector: %s\n", msg.c_str()); }
void Warn(const std::string& msg) { fprintf(stderr, "agt-collector: warning: %s\n", msg.c_str()); }

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::string Identity(uint64_t dev, uint64_t ino) {
  return std::to_string(dev) + ":" + std::to_string(ino);
}

// A readable directory fd for an O_PATH one (O_PATH cannot be listed).
int ReopenDirectory(int path_fd) {
  char proc_path[64];
  snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", path_fd);
  return open(proc_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

}  // namespace

// The checkpoint on disk, rebuilt from what was loaded or last published: a
// resume checks the file against exactly these fields.
checkpoint_store::Checkpoint Engine::Source::CommittedCheckpoint() const {
  checkpoint_store::Checkpoint c;
  c.dev = c_dev;
  c.ino = c_ino;
  c.offset = committed.offset;
  c.skipping_long_line = committed.skipping_long_line;
  c.hash_len = c_hash_len;
  c.sha256_hex = c_sha256;
  return c;
}

Engine::Engine() = default;

Engine::~Engine() {
  for (Source& s : sources_) {
    if (s.fd >= 0) close(s.fd);
    if (s.linger_fd >= 0) close(s.linger_fd);
  }
  for (Pattern& p : patterns_) {
    if (p.base_fd >= 0) close(p.base_fd);
  }
  if (state_fd_ >= 0) close(state_fd_);
  delete reader_;
}

bool Engine::Init(const Options& options, audit_file::AuditFileWriter* out,
                  syslog_sender::SyslogSender* syslog, std::string* err) {
  options_ = options;
  out_ = out;
  syslog_ = syslog;
  if (options_.max_entries_per_cycle == 0) options_.max_entries_per_cycle = 1;
  for (const std::string& text : options_.patterns) {
    std::string why;
    if (!watch_pattern::IsValidWatchPattern(text, &why)) {
      *err = "agt-collector: error: --watch " + text + ": " + why;
      return false;
    }
    Pattern p;
    p.text = text;
    p.base = std::string(watch_pattern::PatternBaseDir(text));
    const size_t at = text.find(watch_pattern::kPlaceholder);
    p.suffix = text.substr(at + watch_pattern::kPlaceholder.size() + 1);
    const size_t slash = p.suffix.rfind('/');
    if (slash != std::string::npos) p.suffix_parent = p.suffix.substr(0, slash);
    p.log_name = slash == std::string::npos ? p.suffix : p.suffix.substr(slash + 1);
    patterns_.push_back(p);
  }
  if (options_.state_dir.empty()) {
    *err = "agt-collector: error: run needs --state-dir (or state_dir in the config)";
    return false;
  }
  if (mkdir(options_.state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *err = "agt-collector: error: mkdir " + options_.state_dir + ": " + strerror(errno);
    return false;
  }
  state_fd_ = open(options_.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (state_fd_ < 0) {
    *err = "agt-collector: error: open state directory " + options_.state_dir + ": " +
           strerror(errno);
    return false;
  }
  std::string werr;
  if (!watcher_.Init(&werr)) {
    Warn(werr + "; every change is found by the periodic scan only");
  }
  std::vector<std::string> ids;
  // A cycle can overshoot its budget by an item or two (one per file it
  // touches after the budget is spent): the window has room to spare.
  if (!out_->RecentEntryIds(options_.max_entries_per_cycle + 256, &ids, err)) return false;
  recent_ids_.insert(ids.begin(), ids.end());
  read_buffer_.resize(std::max(kMinReadBuffer, options_.limits.max_line_bytes + 1));
  reader_ = new line_reader::Reader(read_buffer_.data(), read_buffer_.size(),
                                    options_.limits.max_line_bytes);
  for (Pattern& p : patterns_) OpenPatternBase(&p);
  return true;
}

void Engine::OpenPatternBase(Pattern* p) {
  // The base is the operator's own directory (trusted); below it, nothing is.
  p->base_fd = open(p->base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (p->base_fd < 0) {
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
    if (watcher_.AddPath(p->base, kBaseMask, &p->base_wd, &err) == inotify_watcher::AddResult::kOk) {
      by_wd_[p->base_wd] = -static_cast<int64_t>(p - patterns_.data()) - 1;
      stats_.watches = watcher_.watches();
    } else {
      Warn(err + "; new sandboxes are found by the periodic scan only");
    }
  }
}

std::string Engine::LogRelative(const Source& s) const {
  return s.sandbox_id + "/" + patterns_[s.pattern].suffix;
}

std::string Engine::LogPath(const Source& s) const {
  const Pattern& p = patterns_[s.pattern];
  return (p.base == "/" ? "" : p.base) + "/" + LogRelative(s);
}

void Engine::ListBase(uint32_t pattern_index) {
  Pattern& p = patterns_[pattern_index];
  struct stat st;
  if (fstat(p.base_fd, &st) != 0) return;
  if (MtimeNs(st) == p.base_mtime_ns) return;  // no entry added or removed
  p.base_mtime_ns = MtimeNs(st);
  int fd = openat(p.base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    Warn("list " + p.base + ": " + strerror(errno));
    p.base_mtime_ns = -1;
    return;
  }
  DIR* dir = fdopendir(fd);
  if (!dir) {
    close(fd);
    return;
  }
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
    if (existing.pattern != pattern_index && existing.problem.find("two patterns") == std::string::npos) {
      Warn("sandbox_id " + sandbox_id + " matches two patterns (" + patterns_[existing.pattern].text +
           " and " + patterns_[pattern_index].text + "); only the first is read");
      existing.problem = "two patterns";
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
  s.sandbox_id = sandbox_id;
  s.pattern = pattern_index;
  by_id_[sandbox_id] = index;
  ++stats_.sources;
  checkpoint_store::Checkpoint c;
  std::string err;
  switch (checkpoint_store::Load(state_fd_, sandbox_id, &c, &err)) {
    case checkpoint_store::LoadResult::kLoaded:
      s.have_committed = true;
      s.resume_pending = true;
      s.c_dev = c.dev;
      s.c_ino = c.ino;
      s.committed.offset = c.offset;
      s.committed.skipping_long_line = c.skipping_long_line;
      s.c_hash_len = c.hash_len;
      s.c_sha256 = c.sha256_hex;
      break;
    case checkpoint_store::LoadResult::kNone:
      break;
    case checkpoint_store::LoadResult::kCorrupt:
    case checkpoint_store::LoadResult::kError:
      Warn(sandbox_id + ": checkpoint unusable (" + err + "); reading " + LogPath(s) +
           " from offset 0 (recent entries already in the output are skipped)");
      break;
  }
  AddSourceWatch(index);
  MarkDirty(index);
  return &sources_[index];
}

void Engine::AddSourceWatch(uint32_t index) {
  Source& s = sources_[index];
  if (watcher_.fd() < 0 || s.wd >= 0) return;
  s.watch_tried = true;
  const Pattern& p = patterns_[s.pattern];
  if (p.base_fd < 0) return;
  std::string rel = s.sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int dfd = -1;
  std::string err;
  if (secure_open::OpenDirectory(p.base_fd, rel, secure_open::Method::kAuto, &dfd, &err) !=
      secure_open::Result::kOk) {
    return;  // the log open reports a hostile shape; a missing one is found by the scan
  }
  int wd = -1;
  const inotify_watcher::AddResult r = watcher_.AddDirectoryFd(dfd, kSourceMask, &wd, &err);
  close(dfd);
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
  by_wd_[wd] = index;
  stats_.watches = watcher_.watches();
}

void Engine::MarkDirty(uint32_t index) {
  Source& s = sources_[index];
  if (s.dirty) return;
  s.dirty = true;
  dirty_.push_back(index);
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
          MarkDirty(known->second);
          if (sources_[known->second].wd < 0) AddSourceWatch(known->second);
        } else if (ev.mask & (IN_CREATE | IN_MOVED_TO)) {
          Discover(pi, name);
        }
      }
      return;
    }
    const uint32_t si = static_cast<uint32_t>(it->second);
    const std::string& log_name = patterns_[sources_[si].pattern].log_name;
    if ((ev.mask & IN_MOVED_FROM) && ev.name == log_name) {
      if (move_cookies_.size() > 256) move_cookies_.clear();
      move_cookies_[ev.cookie] = si;
    } else if ((ev.mask & IN_MOVED_TO) && !ev.name.empty()) {
      auto c = move_cookies_.find(ev.cookie);
      if (c != move_cookies_.end() && c->second == si) {
        std::vector<std::string>& names = sources_[si].rotated_names;
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
    if (!ev.name.empty() && ev.name != log_name && sources_[si].linger_fd < 0) return;
    MarkDirty(si);
  });
  stats_.watches = watcher_.watches();
  if (overflow) {
    Warn("inotify event queue overflowed (fs.inotify.max_queued_events); rescanning every source");
    for (Pattern& p : patterns_) p.base_mtime_ns = -1;
    force_full_scan_ = true;
    Scan();
  }
}

void Engine::Scan() {
  for (uint32_t pi = 0; pi < patterns_.size(); ++pi) {
    if (patterns_[pi].base_fd < 0) OpenPatternBase(&patterns_[pi]);
    if (patterns_[pi].base_fd >= 0) ListBase(pi);
  }
  const bool full = force_full_scan_ || ++scan_count_ % kWatchedCheckEvery == 0;
  force_full_scan_ = false;
  for (uint32_t i = 0; i < sources_.size(); ++i) {
    Source& s = sources_[i];
    if (s.retired) continue;
    if (s.wd < 0 && !s.watch_tried) AddSourceWatch(i);
    if (s.wd >= 0 && !full && s.linger_fd < 0) continue;
    if (!s.dirty && CheapCheck(&s)) MarkDirty(i);
    if (s.wd < 0 && s.fd < 0 && s.linger_fd < 0 && !s.dirty) RetireIfGone(i);
  }
}

void Engine::RetireIfGone(uint32_t index) {
  // A sandbox whose directory is gone and whose log is read and let go
  // gives its slot back, so sandbox churn does not grow memory. Its
  // checkpoint file stays: the same id coming back resumes from it.
  Source& s = sources_[index];
  const Pattern& p = patterns_[s.pattern];
  struct stat st;
  if (p.base_fd < 0 || fstatat(p.base_fd, s.sandbox_id.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
      errno != ENOENT) {
    return;
  }
  by_id_.erase(s.sandbox_id);
  move_cookies_.clear();
  s = Source();
  s.retired = true;
  free_slots_.push_back(index);
  if (stats_.sources > 0) --stats_.sources;
}

bool Engine::CheapCheck(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  if (p.base_fd < 0) return false;
  if (s->linger_fd >= 0) return true;  // a few seconds after a rotation only
  struct stat pst;
  const bool present =
      fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
  if (s->fd >= 0) {
    struct stat st;
    if (fstat(s->fd, &st) != 0) return true;
    if (st.st_size != s->seen_size || MtimeNs(st) != s->seen_mtime_ns) return true;
    if (!present) return !s->rotated_away || st.st_nlink == 0;
    return pst.st_dev != st.st_dev || pst.st_ino != st.st_ino;
  }
  if (!present) return false;
  // Released for lack of fds, and nothing new since its checkpoint.
  if (s->have_committed && static_cast<uint64_t>(pst.st_dev) == s->c_dev &&
      static_cast<uint64_t>(pst.st_ino) == s->c_ino &&
      static_cast<uint64_t>(pst.st_size) == s->committed.offset && s->problem.empty()) {
    return false;
  }
  // The same refused object as last time: nothing new to say or read.
  if (!s->problem.empty() && s->problem_ino != 0 && pst.st_ino == s->problem_ino) return false;
  return true;
}

void Engine::Report(Source* s, const std::string& problem, uint64_t ino) {
  if (s->problem == problem && s->problem_ino == ino) return;
  s->problem = problem;
  s->problem_ino = ino;
  if (problem.rfind(s->sandbox_id + "/", 0) == 0) {
    Warn(patterns_[s->pattern].base + "/" + problem);
  } else {
    Warn(LogPath(*s) + ": " + problem);
  }
}

bool Engine::ResumeFromRotated(Source* s, uint64_t new_dev, uint64_t new_ino) {
  // Rotated while the collector was stopped: the checkpointed inode may now
  // sit beside the log under another name (denied.log.1). Finish it first.
  const Pattern& p = patterns_[s->pattern];
  std::string rel = s->sandbox_id;
  if (!p.suffix_parent.empty()) rel += "/" + p.suffix_parent;
  int path_fd = -1;
  std::string err;
  if (secure_open::OpenDirectory(p.base_fd, rel, secure_open::Method::kAuto, &path_fd, &err) !=
      secure_open::Result::kOk) {
    return false;
  }
  int dfd = ReopenDirectory(path_fd);
  close(path_fd);
  if (dfd < 0) return false;
  int list_fd = dup(dfd);
  DIR* dir = list_fd >= 0 ? fdopendir(list_fd) : nullptr;
  if (!dir) {
    if (list_fd >= 0) close(list_fd);
    close(dfd);
    return false;
  }
  bool found = false;
  while (struct dirent* e = readdir(dir)) {
    if (static_cast<uint64_t>(e->d_ino) != s->c_ino) continue;
    int fd = -1;
    if (secure_open::OpenRegular(dfd, e->d_name, secure_open::Method::kAuto, &fd, &err) !=
        secure_open::Result::kOk) {
      continue;
    }
    struct stat st;
    const checkpoint_store::Checkpoint c = s->CommittedCheckpoint();
    std::string why;
    if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_dev) != s->c_dev ||
        static_cast<uint64_t>(st.st_ino) != s->c_ino || !checkpoint_store::StillValid(fd, c, &why)) {
      close(fd);
      continue;
    }
    Note(s->sandbox_id + ": " + LogPath(*s) + " was rotated while stopped (now " +
         (new_ino == 0 ? std::string("missing") : Identity(new_dev, new_ino)) +
         "); finishing the previous file " + p.base + "/" + rel + "/" + e->d_name +
         " from offset " + std::to_string(c.offset) + " first");
    s->fd = fd;
    s->dev = c.dev;
    s->ino = c.ino;
    s->pos = s->committed;
    s->rotated_away = true;
    s->seen_size = st.st_size;
    s->seen_mtime_ns = MtimeNs(st);
    found = true;
    break;
  }
  closedir(dir);
  close(dfd);
  return found;
}

void Engine::OpenCurrent(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  if (p.base_fd < 0) return;
  int fd = -1;
  std::string err;
  secure_open::Result r = secure_open::OpenRegular(p.base_fd, LogRelative(*s),
                                                   secure_open::Method::kAuto, &fd, &err);
  if (r == secure_open::Result::kError && err.find("open file limit") != std::string::npos) {
    if (ReleaseIdleFiles(s, 64) > 0) {
      r = secure_open::OpenRegular(p.base_fd, LogRelative(*s), secure_open::Method::kAuto, &fd,
                                   &err);
    }
    if (r == secure_open::Result::kError && err.find("open file limit") != std::string::npos) {
      return;  // reported once for all (ReleaseIdleFiles); retried at the next scan
    }
  }
  if (r == secure_open::Result::kMissing) {
    ClearProblem(s);
    // Renamed away while stopped and no successor yet: finish the old file.
    if (s->resume_pending && ResumeFromRotated(s, 0, 0)) s->resume_pending = false;
    return;
  }
  if (r != secure_open::Result::kOk) {
    // A refused object is not looked at again until it is replaced (its
    // inode is remembered); an error (fd limit, permissions) is retried at
    // every scan, and either is reported once.
    struct stat pst;
    uint64_t ino = r == secure_open::Result::kRefused &&
                           fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0
                       ? static_cast<uint64_t>(pst.st_ino)
                       : 0;
    Report(s, err + (r == secure_open::Result::kRefused ? "; not read (reported once)" : ""), ino);
    return;
  }
  if (!s->problem.empty() && s->problem != "two patterns") {
    Note(LogPath(*s) + ": now a regular file; reading it");
    ClearProblem(s);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return;
  }
  const uint64_t dev = static_cast<uint64_t>(st.st_dev), ino = static_cast<uint64_t>(st.st_ino);
  line_reader::Position start;
  if (s->have_committed && dev == s->c_dev && ino == s->c_ino) {
    std::string why;
    if (checkpoint_store::StillValid(fd, s->CommittedCheckpoint(), &why)) {
      start = s->committed;
    } else {
      Note(s->sandbox_id + ": " + LogPath(*s) + ": reading from offset 0: " + why);
    }
  } else if (s->resume_pending) {
    if (ResumeFromRotated(s, dev, ino)) {
      s->resume_pending = false;
      close(fd);  // the new file is opened again once the old one is drained
      return;
    }
    Note(s->sandbox_id + ": the checkpointed file " + Identity(s->c_dev, s->c_ino) +
         " (offset " + std::to_string(s->committed.offset) + ") is gone; reading " + LogPath(*s) +
         " (" + Identity(dev, ino) + ") from offset 0");
  }
  s->resume_pending = false;
  s->fd = fd;
  s->dev = dev;
  s->ino = ino;
  s->pos = start;
  s->rotated_away = false;
  s->seen_size = -1;  // forces the size check in ValidateStillSame
  s->seen_mtime_ns = -1;
}

void Engine::ValidateStillSame(Source* s) {
  struct stat st;
  if (fstat(s->fd, &st) != 0) return;
  if (st.st_size == s->seen_size && MtimeNs(st) == s->seen_mtime_ns) return;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < s->pos.offset) {
    Note(s->sandbox_id + ": " + LogPath(*s) + " truncated: size " + std::to_string(size) +
         " is below offset " + std::to_string(s->pos.offset) + "; reading from offset 0");
    s->pos = line_reader::Position();
  } else if (s->have_committed && s->dev == s->c_dev && s->ino == s->c_ino &&
             s->pos.offset == s->committed.offset && s->pos.offset > 0) {
    std::string why;
    if (!checkpoint_store::StillValid(s->fd, s->CommittedCheckpoint(), &why)) {
      Note(s->sandbox_id + ": " + LogPath(*s) + ": " + why + "; reading from offset 0");
      s->pos = line_reader::Position();
    }
  }
  s->seen_size = st.st_size;
  s->seen_mtime_ns = MtimeNs(st);
}

line_reader::ReadResult Engine::ReadItems(Source* s, std::string* err) {
  return reader_->Read(
      s->fd, &s->pos,
      [&](const line_reader::Item& item) {
        if (item.kind == line_reader::Item::Kind::kRejected) {
          Reject(s, item.offset,
                 std::string(item.reason) + " (" + std::to_string(item.length) + " bytes" +
                     (item.reason[0] == 'l'
                          ? ", limit " + std::to_string(reader_->max_line_bytes())
                          : std::string()) +
                     ")");
        } else {
          HandleLine(s, item);
        }
        ++cycle_entries_;
        return cycle_entries_ < options_.max_entries_per_cycle && fatal_.empty();
      },
      err);
}

void Engine::ReadLinger(uint32_t index) {
  // The file rotated away is kept open for kRotateWaitMs after the switch: a
  // writer that opened it before the rename may still append to it.
  Source* s = &sources_[index];
  if (s->linger_fd < 0) return;
  std::swap(s->fd, s->linger_fd);
  std::swap(s->dev, s->linger_dev);
  std::swap(s->ino, s->linger_ino);
  std::swap(s->pos, s->linger_pos);
  std::string err;
  const line_reader::ReadResult rr = ReadItems(s, &err);
  std::swap(s->fd, s->linger_fd);
  std::swap(s->dev, s->linger_dev);
  std::swap(s->ino, s->linger_ino);
  std::swap(s->pos, s->linger_pos);
  if (rr == line_reader::ReadResult::kStopped) {
    MarkDirty(index);
  } else if (rr == line_reader::ReadResult::kError || NowMs() >= s->linger_until_ms) {
    close(s->linger_fd);
    s->linger_fd = -1;
  }
}

void Engine::Look(uint32_t index) {
  Source* s = &sources_[index];
  s->dirty = false;
  const Pattern& p = patterns_[s->pattern];
  if (p.base_fd < 0) return;
  if (s->fd < 0) {
    OpenCurrent(s);
    if (s->fd < 0) return;
  } else {
    struct stat pst;
    const bool present =
        fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
    s->rotated_away = !present || static_cast<uint64_t>(pst.st_dev) != s->dev ||
                      static_cast<uint64_t>(pst.st_ino) != s->ino;
  }
  if (std::find(touched_.begin(), touched_.end(), index) == touched_.end()) {
    touched_.push_back(index);
  }
  ReadLinger(index);
  // The old file drained, any skipped rotations, then the path's file.
  for (int steps = 0; steps < 2 + 64; ++steps) {  // bounded by rotated_names
    ValidateStillSame(s);
    std::string err;
    const line_reader::ReadResult rr = ReadItems(s, &err);
    if (rr == line_reader::ReadResult::kError) {
      Report(s, LogRelative(*s) + ": " + err, s->ino);
      return;
    }
    if (rr == line_reader::ReadResult::kStopped) {
      MarkDirty(index);  // more to read next cycle
      return;
    }
    struct stat st;
    if (fstat(s->fd, &st) == 0) {
      s->seen_size = st.st_size;
      s->seen_mtime_ns = MtimeNs(st);
    }
    if (!s->rotated_away) return;
    // Drained. A file rotated away before it was ever looked at comes next.
    if (TakeRotatedName(s)) continue;
    // Then whatever is at the path now.
    int fd = -1;
    std::string open_err;
    const secure_open::Result r = secure_open::OpenRegular(
        p.base_fd, LogRelative(*s), secure_open::Method::kAuto, &fd, &open_err);
    if (r != secure_open::Result::kOk) {
      if (r != secure_open::Result::kMissing) {
        struct stat pst;
        uint64_t ino = fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0
                           ? static_cast<uint64_t>(pst.st_ino)
                           : 0;
        Report(s, open_err + "; not read (reported once)", ino);
      }
      // Renamed away with no successor yet: keep reading it. Deleted: let go
      // once its position is checkpointed.
      if (st.st_nlink == 0) s->release_after_commit = true;
      return;
    }
    struct stat nst;
    if (fstat(fd, &nst) != 0 || (static_cast<uint64_t>(nst.st_dev) == s->dev &&
                                 static_cast<uint64_t>(nst.st_ino) == s->ino)) {
      close(fd);
      s->rotated_away = false;
      return;
    }
    ClearProblem(s);
    Note(s->sandbox_id + ": " + LogPath(*s) + " rotated: previous file " +
         Identity(s->dev, s->ino) + " read to its end (offset " + std::to_string(s->pos.offset) +
         "); now reading " + Identity(nst.st_dev, nst.st_ino) + " from offset 0");
    if (s->linger_fd >= 0) close(s->linger_fd);
    s->linger_fd = s->fd;
    s->linger_dev = s->dev;
    s->linger_ino = s->ino;
    s->linger_pos = s->pos;
    s->linger_until_ms = NowMs() + kRotateWaitMs;
    s->fd = fd;
    s->dev = static_cast<uint64_t>(nst.st_dev);
    s->ino = static_cast<uint64_t>(nst.st_ino);
    s->pos = line_reader::Position();
    s->rotated_away = false;
    s->release_after_commit = false;
    s->seen_size = -1;
    s->seen_mtime_ns = -1;
  }
}

size_t Engine::ReleaseIdleFiles(const Source* except, size_t want) {
  // Out of fds: let go of logs that are fully read and checkpointed. Each is
  // reopened on its next event or scan, and resumes from its checkpoint
  // (identity and hash checked; a rotation meanwhile is found like one that
  // happened while stopped).
  size_t released = 0;
  for (size_t n = 0; n < sources_.size() && released < want; ++n) {
    Source& s = sources_[release_cursor_++ % sources_.size()];
    if (&s == except || s.retired || s.fd < 0 || s.linger_fd >= 0 || s.dirty || s.rotated_away || s.release_after_commit ||
        !s.have_committed || s.c_dev != s.dev || s.c_ino != s.ino ||
        s.committed.offset != s.pos.offset ||
        s.committed.skipping_long_line != s.pos.skipping_long_line) {
      continue;
    }
    if (std::find(touched_.begin(), touched_.end(),
                  static_cast<uint32_t>(&s - sources_.data())) != touched_.end()) {
      continue;
    }
    close(s.fd);
    s.fd = -1;
    s.resume_pending = true;
    ++released;
  }
  if (!fd_pressure_reported_) {
    fd_pressure_reported_ = true;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    Warn("open file limit reached (RLIMIT_NOFILE " + std::to_string(rl.rlim_cur) + ", " +
         std::to_string(sources_.size()) + " sandboxes): idle logs are closed and reopened on "
         "demand (raise the limit to keep one fd per log)");
  }
  return released;
}

bool Engine::TakeRotatedName(Source* s) {
  const Pattern& p = patterns_[s->pattern];
  while (!s->rotated_names.empty()) {
    const std::string name = s->rotated_names.front();
    s->rotated_names.erase(s->rotated_names.begin());
    std::string rel = s->sandbox_id + "/";
    if (!p.suffix_parent.empty()) rel += p.suffix_parent + "/";
    rel += name;
    int fd = -1;
    std::string err;
    if (secure_open::OpenRegular(p.base_fd, rel, secure_open::Method::kAuto, &fd, &err) !=
        secure_open::Result::kOk) {
      continue;  // renamed again or removed since: out of reach
    }
    struct stat st, pst;
    const bool at_path =
        fstatat(p.base_fd, LogRelative(*s).c_str(), &pst, AT_SYMLINK_NOFOLLOW) == 0;
    if (fstat(fd, &st) != 0 ||
        (static_cast<uint64_t>(st.st_dev) == s->dev && static_cast<uint64_t>(st.st_ino) == s->ino) ||
        (s->linger_fd >= 0 && static_cast<uint64_t>(st.st_dev) == s->linger_dev &&
         static_cast<uint64_t>(st.st_ino) == s->linger_ino) ||
        (at_path && pst.st_dev == st.st_dev && pst.st_ino == st.st_ino)) {
      close(fd);  // the file just drained, or the one at the path: not a skipped one
      continue;
    }
    Note(s->sandbox_id + ": " + LogPath(*s) + " was rotated more than once between two looks; "
         "reading " + p.base + "/" + rel + " (" + Identity(st.st_dev, st.st_ino) +
         ") from offset 0 before the current file");
    close(s->fd);
    s->fd = fd;
    s->dev = static_cast<uint64_t>(st.st_dev);
    s->ino = static_cast<uint64_t>(st.st_ino);
    s->pos = line_reader::Position();
    s->rotated_away = true;
    s->seen_size = -1;
    s->seen_mtime_ns = -1;
    return true;
  }
  return false;
}

void Engine::Reject(Source* s, uint64_t offset, const std::string& reason) {
  ++stats_.lines_rejected;
  const int64_t now = static_cast<int64_t>(time(nullptr));
  if (now != rejection_second_) {
    if (rejections_suppressed_ > 0) {
      Warn(std::to_string(rejections_suppressed_) +
           " more rejected line(s) not shown (at most " + std::to_string(kRejectionsPerSecond) +
           " are shown per second)");
    }
    rejection_second_ = now;
    rejections_this_second_ = 0;
    rejections_suppressed_ = 0;
  }
  if (++rejections_this_second_ > kRejectionsPerSecond) {
    ++rejections_suppressed_;
    return;
  }
  Warn(LogPath(*s) + ":" + std::to_string(offset) + ": rejected: " + reason);
}

void Engine::HandleLine(Source* s, const line_reader::Item& item) {
  std::string reason;
  if (!record_validator::ValidateRecord(item.line, options_.limits, &record_, &reason)) {
    Reject(s, item.offset, reason);
    return;
  }
  const std::string path = LogPath(*s);
  entry_mapper::SourceLabels labels;
  std::string err;
  if (options_.config == nullptr || !config::LabelsForPath(*options_.config, path, &labels, &err)) {
    labels = config::LabelsForSandboxId(s->sandbox_id);
  }
  labels.sandbox_id = s->sandbox_id;
  entry_mapper::SourceRef ref;
  ref.file = path;
  ref.device = s->dev;
  ref.inode = s->ino;
  ref.offset = item.offset;
  entry_mapper::MapRecord(record_, item.line, labels, ref, &fields_);
  if (recent_ids_.erase(fields_.entry_id) > 0) {
    ++stats_.entries_already_present;  // written before a crash; exactly once
    return;
  }
  if (!out_->Append(fields_, &err)) {
    fatal_ = err;
    return;
  }
  ++stats_.entries_written;
  ++cycle_appended_;
  if (syslog_ != nullptr) {
    cycle_syslog_.push_back({fields_.entry_id, s->sandbox_id, record_.binary, fields_.timestamp});
  }
}

bool Engine::Commit(std::string* err) {
  if (!fatal_.empty()) {
    *err = fatal_;
    return false;
  }
  // 1. The entries are durable before any checkpoint that covers them.
  if (cycle_appended_ > 0 && !out_->Sync(err)) return false;
  cycle_appended_ = 0;
  // 2. Checkpoints for every source that moved: staged, made durable (one
  //    fsync each for a few, one syncfs for many), then renamed into place.
  std::vector<std::pair<uint32_t, checkpoint_store::Checkpoint>> moved;
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (s.fd < 0) continue;
    if (s.have_committed && s.c_dev == s.dev && s.c_ino == s.ino &&
        s.committed.offset == s.pos.offset &&
        s.committed.skipping_long_line == s.pos.skipping_long_line) {
      continue;
    }
    checkpoint_store::Checkpoint c;
    c.dev = s.dev;
    c.ino = s.ino;
    c.offset = s.pos.offset;
    c.skipping_long_line = s.pos.skipping_long_line;
    std::string herr;
    if (!checkpoint_store::HashBefore(s.fd, c.offset, &c.hash_len, &c.sha256_hex, &herr)) {
      MarkDirty(index);  // changed under us (truncated since the read): look again
      continue;
    }
    moved.emplace_back(index, c);
  }
  const bool batch = moved.size() > kFsyncEachUpTo;
  for (const auto& m : moved) {
    if (!checkpoint_store::Stage(state_fd_, sources_[m.first].sandbox_id, m.second, !batch, err)) {
      *err = "agt-collector: error: checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
  }
  if (batch && !checkpoint_store::SyncFilesystem(state_fd_, err)) {
    *err = "agt-collector: error: " + *err;
    return false;
  }
  for (const auto& m : moved) {
    Source& s = sources_[m.first];
    if (!checkpoint_store::Publish(state_fd_, s.sandbox_id, err)) {
      *err = "agt-collector: error: checkpoint in " + options_.state_dir + ": " + *err;
      return false;
    }
    s.have_committed = true;
    s.c_dev = m.second.dev;
    s.c_ino = m.second.ino;
    s.committed = s.pos;
    s.c_hash_len = m.second.hash_len;
    s.c_sha256 = m.second.sha256_hex;
  }
  if (!moved.empty() && !checkpoint_store::SyncDirectory(state_fd_, err)) {
    *err = "agt-collector: error: " + *err;
    return false;
  }
  for (uint32_t index : touched_) {
    Source& s = sources_[index];
    if (s.release_after_commit && s.fd >= 0) {
      close(s.fd);
      s.fd = -1;
    }
    s.release_after_commit = false;
  }
  touched_.clear();
  // 3. Syslog, best effort, only for what is durable.
  if (syslog_ != nullptr) {
    for (const Syslogged& e : cycle_syslog_) {
      syslog_->Send("command_denied entry_id=" + e.entry_id + " sandbox_id=" + e.sandbox_id +
                    " binary=" + e.binary + " timestamp=" + e.timestamp);
    }
    std::string line;
    if (syslog_->TakeReport(&line, time(nullptr))) fprintf(stderr, "%s\n", line.c_str());
  }
  cycle_syslog_.clear();
  cycle_entries_ = 0;
  return true;
}

bool Engine::Pump(std::string* err) {
  std::vector<uint32_t> work;
  work.swap(dirty_);
  size_t i = 0;
  for (; i < work.size() && cycle_entries_ < options_.max_entries_per_cycle && fatal_.empty(); ++i) {
    Look(work[i]);
  }
  for (; i < work.size(); ++i) dirty_.push_back(work[i]);  // budget spent: next cycle
  return Commit(err);
}

bool Engine::ReopenOutput(std::string* err) {
  if (!Commit(err)) return false;
  return out_->Reopen(err);
}

}  // namespace tail_engine
